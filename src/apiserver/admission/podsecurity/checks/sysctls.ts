/**
 * Baseline check on pod sysctls: only the "safe" ones, namespaced to the pod and isolated from other pods. The safe
 * set grew in v1.27 (ip_local_reserved_ports), v1.29 (TCP keepalive and fin timeout) and v1.32 (tcp_rmem, tcp_wmem).
 */
import { minorVersion } from '../levels.js';
import {
  ALLOWED,
  type Check,
  type CheckResult,
  forbidden,
  objList,
  type PodView,
  podSecurityContext,
} from './check.js';

const SAFE_1_0 = [
  'kernel.shm_rmid_forced',
  'net.ipv4.ip_local_port_range',
  'net.ipv4.tcp_syncookies',
  'net.ipv4.ping_group_range',
  'net.ipv4.ip_unprivileged_port_start',
];
const SAFE_1_27 = [...SAFE_1_0, 'net.ipv4.ip_local_reserved_ports'];
const SAFE_1_29 = [
  ...SAFE_1_27,
  'net.ipv4.tcp_keepalive_time',
  'net.ipv4.tcp_fin_timeout',
  'net.ipv4.tcp_keepalive_intvl',
  'net.ipv4.tcp_keepalive_probes',
];
const SAFE_1_32 = [...SAFE_1_29, 'net.ipv4.tcp_rmem', 'net.ipv4.tcp_wmem'];

function sysctls(safe: readonly string[]) {
  const allowed = new Set(safe);
  return (pod: PodView): CheckResult => {
    const bad = objList(podSecurityContext(pod), 'sysctls')
      .map((s) => (typeof s.name === 'string' ? s.name : ''))
      .filter((name) => !allowed.has(name));
    return bad.length > 0 ? forbidden('forbidden sysctls', bad.join(', ')) : ALLOWED;
  };
}

const v = minorVersion;

export const SYSCTL_CHECKS: readonly Check[] = [
  {
    id: 'sysctls',
    level: 'baseline',
    versions: [
      { minimumVersion: v(0), check: sysctls(SAFE_1_0) },
      { minimumVersion: v(27), check: sysctls(SAFE_1_27) },
      { minimumVersion: v(29), check: sysctls(SAFE_1_29) },
      { minimumVersion: v(32), check: sysctls(SAFE_1_32) },
    ],
  },
];
