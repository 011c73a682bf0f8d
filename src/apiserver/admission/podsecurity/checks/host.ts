/**
 * Baseline checks on what a pod shares with its node: host namespaces (network, PID, IPC), hostPath volumes, host
 * ports, and Windows HostProcess containers. All apply from policy v1.0.
 */
import { minorVersion } from '../levels.js';
import {
  ALLOWED,
  allContainers,
  boolAt,
  type Check,
  type CheckResult,
  containersPhrase,
  forbidden,
  joinQuote,
  nameOf,
  objAt,
  objList,
  type PodView,
  pluralize,
  podSecurityContext,
  securityContext,
  sortedSet,
} from './check.js';

const V1_0 = minorVersion(0);

function hostNamespaces(pod: PodView): CheckResult {
  const set: string[] = [];
  if (pod.spec.hostNetwork === true) set.push('hostNetwork=true');
  if (pod.spec.hostPID === true) set.push('hostPID=true');
  if (pod.spec.hostIPC === true) set.push('hostIPC=true');
  return set.length > 0 ? forbidden('host namespaces', set.join(', ')) : ALLOWED;
}

export const HOST_PATH_VOLUMES_ID = 'hostPathVolumes';

function hostPathVolumes(pod: PodView): CheckResult {
  const names = objList(pod.spec, 'volumes')
    .filter((v) => v.hostPath !== undefined && v.hostPath !== null)
    .map(nameOf);
  if (names.length === 0) return ALLOWED;
  return forbidden('hostPath volumes', `${pluralize('volume', 'volumes', names.length)} ${joinQuote(names)}`);
}

function hostPorts(pod: PodView): CheckResult {
  const containers: string[] = [];
  const ports: string[] = [];
  for (const c of allContainers(pod.spec)) {
    let bad = false;
    for (const p of objList(c, 'ports')) {
      const hostPort = p.hostPort;
      if (typeof hostPort === 'number' && hostPort !== 0) {
        bad = true;
        ports.push(String(hostPort));
      }
    }
    if (bad) containers.push(nameOf(c));
  }
  if (containers.length === 0) return ALLOWED;
  const distinct = sortedSet(ports);
  return forbidden(
    'hostPort',
    `${containersPhrase(containers)} ${pluralize('uses', 'use', containers.length)} ${pluralize('hostPort', 'hostPorts', distinct.length)} ${distinct.join(', ')}`,
  );
}

function windowsHostProcess(pod: PodView): CheckResult {
  const hostProcess = (sc: unknown) => boolAt(objAt(sc, 'windowsOptions'), 'hostProcess') === true;
  const containers = allContainers(pod.spec)
    .filter((c) => hostProcess(securityContext(c)))
    .map(nameOf);
  const setters: string[] = [];
  if (hostProcess(podSecurityContext(pod))) setters.push('pod');
  if (containers.length > 0) setters.push(containersPhrase(containers));
  if (setters.length === 0) return ALLOWED;
  return forbidden(
    'hostProcess',
    `${setters.join(' and ')} must not set securityContext.windowsOptions.hostProcess=true`,
  );
}

export const HOST_CHECKS: readonly Check[] = [
  { id: 'hostNamespaces', level: 'baseline', versions: [{ minimumVersion: V1_0, check: hostNamespaces }] },
  { id: HOST_PATH_VOLUMES_ID, level: 'baseline', versions: [{ minimumVersion: V1_0, check: hostPathVolumes }] },
  { id: 'hostPorts', level: 'baseline', versions: [{ minimumVersion: V1_0, check: hostPorts }] },
  { id: 'windowsHostProcess', level: 'baseline', versions: [{ minimumVersion: V1_0, check: windowsHostProcess }] },
];
