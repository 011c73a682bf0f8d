import { isIPv4, isIPv6 } from 'node:net';

/** kube-apiserver's default `--service-cluster-ip-range`. */
export const DEFAULT_SERVICE_CLUSTER_IP_RANGE = '10.96.0.0/12';

/**
 * The ClusterIP of the `kubernetes` Service in the `default` namespace: the first address after the network address
 * of the primary (first) range of `--service-cluster-ip-range` (10.96.0.0/12 gives 10.96.0.1, fd00::/108 gives
 * fd00::1). The serving certificate carries it so that pods can reach the apiserver through the Service.
 */
export function apiServerServiceIP(serviceClusterIpRange: string = DEFAULT_SERVICE_CLUSTER_IP_RANGE): string {
  const primary = serviceClusterIpRange.split(',')[0]?.trim() ?? '';
  const slash = primary.indexOf('/');
  const address = slash < 0 ? primary : primary.slice(0, slash);
  const prefixText = slash < 0 ? '' : primary.slice(slash + 1);
  const v4 = isIPv4(address);
  if ((!v4 && !isIPv6(address)) || !/^\d{1,3}$/.test(prefixText)) {
    throw new Error(
      `invalid service CIDR ${JSON.stringify(serviceClusterIpRange)}: want an address and a prefix length`,
    );
  }
  const width = v4 ? 32 : 128;
  const prefix = Number(prefixText);
  if (prefix > width) throw new Error(`invalid service CIDR ${JSON.stringify(primary)}: prefix longer than ${width}`);
  if (prefix > width - 1) throw new Error(`service CIDR ${JSON.stringify(primary)} has no room for a service IP`);
  const hostBits = BigInt(width - prefix);
  const network = (toBigInt(address, v4) >> hostBits) << hostBits;
  return fromBigInt(network + 1n, v4);
}

function toBigInt(address: string, v4: boolean): bigint {
  if (v4) return address.split('.').reduce((n, part) => (n << 8n) | BigInt(Number(part)), 0n);
  // URL canonicalises IPv6 (embedded IPv4 becomes two hex groups), which leaves only "::" to expand.
  const canonical = new URL(`http://[${address}]`).hostname.slice(1, -1);
  const [head = '', tail] = canonical.split('::');
  const headGroups = head === '' ? [] : head.split(':');
  const tailGroups = tail === undefined || tail === '' ? [] : tail.split(':');
  const zeros: string[] = Array(8 - headGroups.length - tailGroups.length).fill('0');
  return [...headGroups, ...zeros, ...tailGroups].reduce((n, group) => (n << 16n) | BigInt(`0x${group}`), 0n);
}

function fromBigInt(value: bigint, v4: boolean): string {
  if (v4) return [24n, 16n, 8n, 0n].map((shift) => ((value >> shift) & 0xffn).toString()).join('.');
  const groups = [];
  for (let shift = 112n; shift >= 0n; shift -= 16n) groups.push(((value >> shift) & 0xffffn).toString(16));
  return new URL(`http://[${groups.join(':')}]`).hostname.slice(1, -1);
}
