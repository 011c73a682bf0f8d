/**
 * IP address and CIDR checks with upstream's messages (apimachinery's util/validation ip.go). "Legacy" fields
 * accept what Go's old parser did (leading zeros, over-long IPv6 groups) unless strict validation is on; new
 * fields must be strict and in canonical form (IPv6 as RFC 5952, as Go prints it).
 */
import { type FieldError, type FieldPath, invalid } from '../field-errors.js';
import { goQuote } from './go-format.js';

/** An address as Go's net.IP holds it: 4 bytes for a dotted IPv4 text, 16 for an IPv6 text (which may end in dotted IPv4). */
export type IPBytes = number[];

function parseIPv4(s: string, strict: boolean): IPBytes | undefined {
  const parts = s.split('.');
  if (parts.length !== 4) return undefined;
  const out: IPBytes = [];
  for (const p of parts) {
    if (!/^[0-9]+$/.test(p) || (strict && p.length > 1 && p.startsWith('0'))) return undefined;
    const n = Number(p);
    if (n > 255) return undefined;
    out.push(n);
  }
  return out;
}

function parseIPv6(text: string, strict: boolean): IPBytes | undefined {
  const out: IPBytes = new Array(16).fill(0);
  let s = text;
  let ellipsis = -1;
  if (s.startsWith('::')) {
    ellipsis = 0;
    s = s.slice(2);
    if (s === '') return out;
  }
  let i = 0;
  while (i < 16) {
    const digits = /^[0-9a-fA-F]+/.exec(s)?.[0] ?? '';
    if (digits === '') return undefined;
    if (s[digits.length] === '.') {
      // A dotted IPv4 tail, only in the last 32 bits.
      if ((ellipsis < 0 && i !== 12) || i + 4 > 16) return undefined;
      const v4 = parseIPv4(s, strict);
      if (!v4) return undefined;
      out.splice(i, 4, ...v4);
      i += 4;
      s = '';
      break;
    }
    const n = Number.parseInt(digits, 16);
    // Go's old parser took any number of hex digits up to 0xffff; the strict one at most four.
    if (n > 0xffff || (strict && digits.length > 4)) return undefined;
    out[i] = n >> 8;
    out[i + 1] = n & 0xff;
    i += 2;
    s = s.slice(digits.length);
    if (s === '') break;
    if (s[0] !== ':' || s.length === 1) return undefined;
    s = s.slice(1);
    if (s[0] === ':') {
      if (ellipsis >= 0) return undefined;
      ellipsis = i;
      s = s.slice(1);
      if (s === '') break;
    }
  }
  if (s !== '') return undefined;
  if (i < 16) {
    if (ellipsis < 0) return undefined;
    const tail = out.slice(ellipsis, i);
    out.fill(0, ellipsis);
    out.splice(16 - tail.length, tail.length, ...tail);
  } else if (ellipsis >= 0) {
    return undefined;
  }
  return out;
}

/**
 * Parses an IP address as Go does, undefined when it is not one: strictly as net.ParseIP (no leading zeros in IPv4
 * parts, at most four hex digits to an IPv6 group), or, by default, as netutils.ParseIPSloppy (which takes both).
 */
export function parseIP(s: string, strict = false): IPBytes | undefined {
  return parseIPv4(s, strict) ?? parseIPv6(s, strict);
}

const is4In6 = (b: IPBytes) =>
  b.length === 16 && b.slice(0, 10).every((x) => x === 0) && b[10] === 0xff && b[11] === 0xff;

/** Whether an address is IPv4 as Go's To4() decides: dotted, or IPv4-mapped IPv6. */
export const isIPv4 = (b: IPBytes): boolean => b.length === 4 || is4In6(b);

/** As Go's net.IP prints: dotted IPv4 (also for IPv4-mapped IPv6), else IPv6 with the longest zero run as `::`. */
export function formatIP(b: IPBytes): string {
  const v4 = b.length === 4 ? b : is4In6(b) ? b.slice(12) : undefined;
  if (v4) return v4.join('.');
  const groups = Array.from({ length: 8 }, (_, g) => ((b[2 * g] ?? 0) << 8) | (b[2 * g + 1] ?? 0));
  let best = [-1, -1];
  for (let g = 0; g < 8; g++) {
    let end = g;
    while (end < 8 && groups[end] === 0) end++;
    if (end - g > (best[1] ?? 0) - (best[0] ?? 0)) best = [g, end];
    if (end > g) g = end;
  }
  const [start = -1, end = -1] = best;
  const hex = (gs: number[]) => gs.map((n) => n.toString(16)).join(':');
  if (end - start < 2) return hex(groups);
  return `${hex(groups.slice(0, start))}::${hex(groups.slice(end))}`;
}

function ipErrors(fieldPath: FieldPath, value: string, strict: boolean): { ip?: IPBytes; errs: FieldError[] } {
  const ip = parseIP(value, false);
  if (!ip)
    return { errs: [invalid(fieldPath, value, 'must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)')] };
  const errs: FieldError[] = [];
  if (strict) {
    const strictIP = parseIP(value, true);
    if (!strictIP) errs.push(invalid(fieldPath, value, 'must not have leading 0s'));
    else if (is4In6(strictIP)) errs.push(invalid(fieldPath, value, 'must not be an IPv4-mapped IPv6 address'));
  }
  return { ip, errs };
}

/** For fields that predate strict validation; `validOldIPs` are stored values accepted again on update. */
export function isValidIPForLegacyField(
  fieldPath: FieldPath,
  value: string,
  strict: boolean,
  validOldIPs: readonly string[] = [],
): FieldError[] {
  if (validOldIPs.includes(value)) return [];
  return ipErrors(fieldPath, value, strict).errs.map((e) => e.withOrigin('format=ip-sloppy'));
}

/** A strictly valid IP in canonical form. */
export function isValidIP(fieldPath: FieldPath, value: string): FieldError[] {
  const { ip, errs } = ipErrors(fieldPath, value, true);
  if (ip && errs.length === 0 && formatIP(ip) !== value) {
    errs.push(invalid(fieldPath, value, `must be in canonical form (${goQuote(formatIP(ip))})`));
  }
  return errs.map((e) => e.withOrigin('format=ip-strict'));
}

interface ParsedCIDR {
  ip: IPBytes;
  bits: number;
}

/** Go's sloppy CIDR parse: IPv4 or IPv6 address, `/`, a decimal prefix length (leading zeros allowed). */
function parseCIDR(value: string, strict: boolean): ParsedCIDR | undefined {
  const slash = value.indexOf('/');
  if (slash < 0) return undefined;
  const addr = value.slice(0, slash);
  const mask = value.slice(slash + 1);
  const ip = parseIP(addr, strict);
  if (!ip || !/^[0-9]+$/.test(mask) || (strict && mask.length > 1 && mask.startsWith('0'))) return undefined;
  const bits = Number(mask);
  return bits <= ip.length * 8 ? { ip, bits } : undefined;
}

function masked({ ip, bits }: ParsedCIDR): IPBytes {
  return ip.map((b, i) => {
    const keep = Math.max(0, Math.min(8, bits - 8 * i));
    return b & ((0xff << (8 - keep)) & 0xff);
  });
}

/** The subnet as Go's net.IPNet prints it; an IPv4-mapped address keeps its IPv6 prefix length. */
function formatCIDR(c: ParsedCIDR): string {
  return `${formatIP(masked(c))}/${c.bits}`;
}

/**
 * The subnet of a CIDR (parsed sloppily, as netutils.ParseCIDRSloppy does) as Go's IPNet.String() prints it: host
 * bits cleared, IPv6 compressed. Undefined when it is not a CIDR.
 */
export function canonicalCIDR(value: string): string | undefined {
  const cidr = parseCIDR(value, false);
  return cidr && formatCIDR(cidr);
}

function cidrErrors(fieldPath: FieldPath, value: string, strict: boolean): { cidr?: ParsedCIDR; errs: FieldError[] } {
  const cidr = parseCIDR(value, false);
  if (!cidr)
    return { errs: [invalid(fieldPath, value, 'must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)')] };
  const errs: FieldError[] = [];
  if (strict) {
    const s = parseCIDR(value, true);
    if (!s) errs.push(invalid(fieldPath, value, 'must not have leading 0s in IP or prefix length'));
    else if (is4In6(s.ip)) errs.push(invalid(fieldPath, value, 'must not have an IPv4-mapped IPv6 address'));
    else if (masked(s).some((b, i) => b !== s.ip[i])) {
      errs.push(invalid(fieldPath, value, 'must not have bits set beyond the prefix length'));
    }
  }
  return { cidr, errs };
}

export function isValidCIDRForLegacyField(
  fieldPath: FieldPath,
  value: string,
  strict: boolean,
  validOldCIDRs: readonly string[] = [],
): FieldError[] {
  if (validOldCIDRs.includes(value)) return [];
  return cidrErrors(fieldPath, value, strict).errs;
}

/** A strictly valid subnet (`10.0.0.0/8`, no bits beyond the prefix) in canonical form. */
export function isValidCIDR(fieldPath: FieldPath, value: string): FieldError[] {
  const { cidr, errs } = cidrErrors(fieldPath, value, true);
  if (cidr && errs.length === 0 && formatCIDR(cidr) !== value) {
    errs.push(invalid(fieldPath, value, `must be in canonical form (${goQuote(formatCIDR(cidr))})`));
  }
  return errs;
}
