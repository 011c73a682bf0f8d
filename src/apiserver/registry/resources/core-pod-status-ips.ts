/**
 * A pod's IPs in its status, as upstream keeps them. `podIP` and `podIPs` are one field internally (the list), so
 * the v1 conversion reads a `podIP` that is alone, or that disagrees with `podIPs[0]`, as the whole list (the older
 * field wins, for clients that patch only it), and writes `podIP` back as `podIPs[0]`. `hostIP` and `hostIPs` are
 * both internal fields: nothing converts one into the other, and validation requires `hostIPs[0]` to be `hostIP`.
 */
import { duplicate, type FieldError, type FieldPath, invalid, path } from '../../../api/field-errors.js';
import { GoValue, goQuote } from '../../../api/validation/go-format.js';
import { isIPv4, isValidIPForLegacyField, parseIP } from '../../../api/validation/ip.js';
import { type Rec, recs, str } from './core-json.js';

/** podIP and podIPs made one, as the v1 conversion in and out does. */
export function syncPodIPs(status: Rec): void {
  const list = recs(status.podIPs);
  const single = str(status.podIP);
  if (single && (list.length === 0 || str(list[0]?.ip) !== single)) status.podIPs = [{ ip: single }];
  else if (list.length > 0) status.podIP = str(list[0]?.ip);
}

/**
 * The checks of one IP list (podIPs or hostIPs): each a valid IP (those the old status held are kept as they are),
 * no more than one of each family, no duplicates. `type` is the Go element type upstream prints values as.
 */
function ipList(at: FieldPath, list: Rec[], old: Rec[], type: 'PodIP' | 'HostIP'): FieldError[] {
  const ips = list.map((entry) => str(entry.ip));
  const oldIPs = old.map((entry) => str(entry.ip));
  const errs = ips.flatMap((ip, i) => isValidIPForLegacyField(at.index(i), ip, false, oldIPs));
  if (ips.length < 2) return errs;
  const goEntry = (ip: string) => `core.${type}{IP:${goQuote(ip)}}`;
  const families: FieldError[] = [];
  const parsed = ips.map((ip) => parseIP(ip));
  const dualStack = parsed.some((ip) => ip && isIPv4(ip)) && parsed.some((ip) => ip && !isIPv4(ip));
  if (!dualStack || ips.length > 2) {
    const shown = new GoValue(`[]core.${type}{${ips.map(goEntry).join(', ')}}`);
    families.push(invalid(at, shown, 'may specify no more than one IP for each IP family'));
  }
  const duplicates: FieldError[] = [];
  const seen = new Set<string>();
  ips.forEach((ip, i) => {
    if (seen.has(ip)) duplicates.push(duplicate(at.index(i), new GoValue(goEntry(ip))));
    seen.add(ip);
  });
  // Upstream reports a pod's duplicates after the family check, a host's before it.
  return type === 'PodIP' ? [...errs, ...families, ...duplicates] : [...errs, ...duplicates, ...families];
}

/** Upstream's validatePodIPs and validateHostIPs of a status update. */
export function validateStatusIPs(status: Rec, oldStatus: Rec): FieldError[] {
  const errs = ipList(path('status', 'podIPs'), recs(status.podIPs), recs(oldStatus.podIPs), 'PodIP');
  const hostIPs = recs(status.hostIPs);
  if (hostIPs.length === 0) return errs;
  const at = path('status', 'hostIPs');
  const first = str(hostIPs[0]?.ip);
  if (str(status.hostIP) !== first) errs.push(invalid(at.index(0).child('ip'), first, 'must be equal to `hostIP`'));
  errs.push(...ipList(at, hostIPs, recs(oldStatus.hostIPs), 'HostIP'));
  return errs;
}
