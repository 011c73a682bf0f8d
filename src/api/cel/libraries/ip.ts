/**
 * Kubernetes' IP and CIDR libraries: ip(string), isIP, ip.isCanonical, an IP's family, isUnspecified, isLoopback,
 * isLinkLocalMulticast, isLinkLocalUnicast, isGlobalUnicast; cidr(string), isCIDR, a CIDR's containsIP,
 * containsCIDR, ip, masked, prefixLength; string() of both. Parsing is strict, as Go's netip: no leading zeros, no
 * IPv4-mapped IPv6 addresses, no zones.
 */
import type { Environment } from '@marcbachmann/cel-js';
import { formatIP, type IPBytes, parseIP } from '../../validation/ip.js';
import { CelEvaluationError } from '../errors.js';

export class CelIP {
  constructor(readonly bytes: IPBytes) {}
  get family(): 4 | 6 {
    return this.bytes.length === 4 ? 4 : 6;
  }
  toString(): string {
    return formatIP(this.bytes);
  }
}

export class CelCIDR {
  constructor(
    readonly ip: CelIP,
    readonly bits: number,
  ) {}
  toString(): string {
    return `${this.ip}/${this.bits}`;
  }
}

const is4In6 = (b: IPBytes) =>
  b.length === 16 && b.slice(0, 10).every((x) => x === 0) && b[10] === 0xff && b[11] === 0xff;

function strictIP(s: string): IPBytes | undefined {
  if (s.includes('%')) return undefined;
  const b = parseIP(s, true);
  if (!b || is4In6(b)) return undefined;
  return b;
}

function toIP(s: string): CelIP {
  const b = strictIP(s);
  if (!b)
    throw new CelEvaluationError(
      `IP Address "${s}" parse error during conversion from string: ParseAddr("${s}"): invalid IP address`,
    );
  return new CelIP(b);
}

function parseCIDR(s: string): CelCIDR | undefined {
  const slash = s.indexOf('/');
  if (slash < 0) return undefined;
  const b = strictIP(s.slice(0, slash));
  const mask = s.slice(slash + 1);
  if (!b || !/^(0|[1-9][0-9]*)$/.test(mask)) return undefined;
  const bits = Number(mask);
  if (bits > b.length * 8) return undefined;
  return new CelCIDR(new CelIP(b), bits);
}

function toCIDR(s: string): CelCIDR {
  const c = parseCIDR(s);
  if (!c)
    throw new CelEvaluationError(
      `network address parse error during conversion from string: netip.ParsePrefix("${s}"): invalid prefix`,
    );
  return c;
}

function maskBytes(b: IPBytes, bits: number): IPBytes {
  return b.map((x, i) => {
    const keep = Math.max(0, Math.min(8, bits - 8 * i));
    return x & ((0xff << (8 - keep)) & 0xff);
  });
}

function contains(c: CelCIDR, ip: CelIP): boolean {
  if (ip.family !== c.ip.family) return false;
  const a = maskBytes(c.ip.bytes, c.bits);
  const b = maskBytes(ip.bytes, c.bits);
  return a.every((x, i) => x === b[i]);
}

const first = (b: IPBytes) => b[0] ?? 0;
const second = (b: IPBytes) => b[1] ?? 0;

function isLoopback(ip: CelIP): boolean {
  const b = ip.bytes;
  return ip.family === 4 ? first(b) === 127 : b.slice(0, 15).every((x) => x === 0) && b[15] === 1;
}
const isUnspecified = (ip: CelIP) => ip.bytes.every((x) => x === 0);
const isLinkLocalUnicast = (ip: CelIP) =>
  ip.family === 4
    ? first(ip.bytes) === 169 && second(ip.bytes) === 254
    : first(ip.bytes) === 0xfe && (second(ip.bytes) & 0xc0) === 0x80;
const isLinkLocalMulticast = (ip: CelIP) =>
  ip.family === 4
    ? first(ip.bytes) === 224 && second(ip.bytes) === 0 && ip.bytes[2] === 0
    : first(ip.bytes) === 0xff && (second(ip.bytes) & 0x0f) === 0x02;
function isGlobalUnicast(ip: CelIP): boolean {
  const b = ip.bytes;
  const broadcast = ip.family === 4 && b.every((x) => x === 255);
  const multicast = ip.family === 4 ? first(b) >= 224 && first(b) <= 239 : first(b) === 0xff;
  return !broadcast && !multicast && !isUnspecified(ip) && !isLoopback(ip) && !isLinkLocalUnicast(ip);
}

export function registerIPLibrary(env: Environment): void {
  const IP = 'net.IP';
  const CIDR = 'net.CIDR';
  env
    .registerType(IP, CelIP)
    .registerType(CIDR, CelCIDR)
    .registerFunction(`ip(string): ${IP}`, toIP)
    .registerFunction('isIP(string): bool', (s: string) => strictIP(s) !== undefined)
    .registerFunction(`string(${IP}): string`, (ip: CelIP) => ip.toString())
    .registerFunction(`${IP}.family(): int`, (ip: CelIP) => BigInt(ip.family))
    .registerFunction(`${IP}.isUnspecified(): bool`, isUnspecified)
    .registerFunction(`${IP}.isLoopback(): bool`, isLoopback)
    .registerFunction(`${IP}.isLinkLocalMulticast(): bool`, isLinkLocalMulticast)
    .registerFunction(`${IP}.isLinkLocalUnicast(): bool`, isLinkLocalUnicast)
    .registerFunction(`${IP}.isGlobalUnicast(): bool`, isGlobalUnicast)
    .registerOperator(`${IP} == ${IP}`, (a: CelIP, b: CelIP) => a.toString() === b.toString())
    .registerFunction(`cidr(string): ${CIDR}`, toCIDR)
    .registerFunction('isCIDR(string): bool', (s: string) => parseCIDR(s) !== undefined)
    .registerFunction(`string(${CIDR}): string`, (c: CelCIDR) => c.toString())
    .registerFunction(`${CIDR}.containsIP(${IP}): bool`, contains)
    .registerFunction(`${CIDR}.containsIP(string): bool`, (c: CelCIDR, s: string) => contains(c, toIP(s)))
    .registerFunction(
      `${CIDR}.containsCIDR(${CIDR}): bool`,
      (c: CelCIDR, o: CelCIDR) => o.bits >= c.bits && contains(c, o.ip),
    )
    .registerFunction(`${CIDR}.containsCIDR(string): bool`, (c: CelCIDR, s: string) => {
      const o = toCIDR(s);
      return o.bits >= c.bits && contains(c, o.ip);
    })
    .registerFunction(`${CIDR}.ip(): ${IP}`, (c: CelCIDR) => c.ip)
    .registerFunction(
      `${CIDR}.masked(): ${CIDR}`,
      (c: CelCIDR) => new CelCIDR(new CelIP(maskBytes(c.ip.bytes, c.bits)), c.bits),
    )
    .registerFunction(`${CIDR}.prefixLength(): int`, (c: CelCIDR) => BigInt(c.bits))
    .registerOperator(`${CIDR} == ${CIDR}`, (a: CelCIDR, b: CelCIDR) => a.toString() === b.toString());
}

/** ip.isCanonical(string) lives on the `ip` name, which is also the conversion function: registered as a call. */
export function isCanonicalIP(s: string): boolean {
  const b = strictIP(s);
  if (!b)
    throw new CelEvaluationError(
      `IP Address "${s}" parse error during conversion from string: ParseAddr("${s}"): invalid IP address`,
    );
  return formatIP(b) === s;
}
