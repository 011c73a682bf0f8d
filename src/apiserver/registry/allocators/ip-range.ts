/**
 * IP addresses as numbers, and the service CIDR they are allocated from (`--service-cluster-ip-range`).
 */
import { formatIP, parseIP as parseIPBytes } from '../../../api/validation/ip.js';

export type IPFamily = 'IPv4' | 'IPv6';

export interface ParsedIP {
  value: bigint;
  family: IPFamily;
}

/**
 * Parses an address as Go's sloppy parser does (IPv4 with leading zeros included); undefined when it is not one.
 * The family is the text's: an IPv4-mapped IPv6 address is IPv6 here.
 */
export function parseIP(text: string): ParsedIP | undefined {
  const bytes = parseIPBytes(text);
  if (!bytes) return undefined;
  return { value: bytes.reduce((n, b) => (n << 8n) | BigInt(b), 0n), family: bytes.length === 4 ? 'IPv4' : 'IPv6' };
}

/** The text of an address: dotted IPv4, or IPv6 as Go prints it. */
export function formatAddress(value: bigint, family: IPFamily): string {
  const count = family === 'IPv4' ? 4 : 16;
  const bytes: number[] = [];
  for (let i = count - 1; i >= 0; i--) bytes.push(Number((value >> BigInt(8 * i)) & 0xffn));
  return formatIP(bytes);
}

/** The family of an address's text, or undefined. */
export function familyOf(text: string): IPFamily | undefined {
  return parseIP(text)?.family;
}

/** A service CIDR: which addresses it holds and which of them may be handed out. */
export interface ServiceCIDR {
  /** As given, e.g. `10.96.0.0/12`; it is how errors name the range. */
  readonly text: string;
  readonly family: IPFamily;
  /** The network address. */
  readonly network: bigint;
  /** How many addresses the prefix spans, network and broadcast included. */
  readonly span: bigint;
  /** The first address that may be allocated (the one after the network address). */
  readonly first: bigint;
  /** How many addresses from `first` on may be allocated. */
  readonly size: number;
}

export function parseServiceCIDR(text: string): ServiceCIDR {
  const slash = text.indexOf('/');
  const ip = slash > 0 ? parseIP(text.slice(0, slash)) : undefined;
  const prefix = Number(text.slice(slash + 1));
  const width = ip?.family === 'IPv4' ? 32 : 128;
  if (!ip || !/^[0-9]{1,3}$/.test(text.slice(slash + 1)) || prefix > width) {
    throw new Error(`invalid service CIDR ${JSON.stringify(text)}`);
  }
  const hostBits = BigInt(width - prefix);
  const span = 1n << hostBits;
  const network = (ip.value >> hostBits) << hostBits;
  // IPv4 keeps back its network and broadcast addresses, IPv6 its network address.
  const usable = span - (ip.family === 'IPv4' ? 2n : 1n);
  const size = usable < 0n ? 0 : Number(usable > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : usable);
  return { text, family: ip.family, network, span, first: network + 1n, size };
}

/** Whether an address lies inside the CIDR's prefix (network and broadcast included). */
export function cidrContains(cidr: ServiceCIDR, ip: ParsedIP): boolean {
  return ip.family === cidr.family && ip.value >= cidr.network && ip.value < cidr.network + cidr.span;
}
