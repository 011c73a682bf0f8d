/**
 * Restricted checks on the user a pod runs as: runAsNonRoot must be true (set on the pod, or on every container
 * the pod-level value does not cover), from v1.0; runAsUser must not be 0, from v1.23.
 *
 * Upstream relaxes both for pods in a user namespace (`hostUsers: false`) only behind the alpha feature gate
 * UserNamespacesPodSecurityStandards, off by default in 1.33; wheelhouse has no such gate and never relaxes them.
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
  nameOf,
  type PodView,
  podSecurityContext,
  securityContext,
} from './check.js';

function runAsNonRoot(pod: PodView): CheckResult {
  const setters: string[] = [];
  const podValue = boolAt(podSecurityContext(pod), 'runAsNonRoot');
  if (podValue === false) setters.push('pod');
  const podCovers = podValue === true;
  const explicit: string[] = [];
  const implicit: string[] = [];
  for (const c of allContainers(pod.spec)) {
    const value = boolAt(securityContext(c), 'runAsNonRoot');
    if (value === false) explicit.push(nameOf(c));
    else if (value === undefined && !podCovers) implicit.push(nameOf(c));
  }
  if (explicit.length > 0) setters.push(containersPhrase(explicit));
  if (setters.length > 0) {
    return forbidden(
      'runAsNonRoot != true',
      `${setters.join(' and ')} must not set securityContext.runAsNonRoot=false`,
    );
  }
  if (implicit.length > 0) {
    return forbidden(
      'runAsNonRoot != true',
      `pod or ${containersPhrase(implicit)} must set securityContext.runAsNonRoot=true`,
    );
  }
  return ALLOWED;
}

function runAsUser(pod: PodView): CheckResult {
  const setters: string[] = [];
  if (podSecurityContext(pod)?.runAsUser === 0) setters.push('pod');
  const bad = allContainers(pod.spec)
    .filter((c) => securityContext(c)?.runAsUser === 0)
    .map(nameOf);
  if (bad.length > 0) setters.push(containersPhrase(bad));
  if (setters.length === 0) return ALLOWED;
  return forbidden('runAsUser=0', `${setters.join(' and ')} must not set runAsUser=0`);
}

export const USER_CHECKS: readonly Check[] = [
  { id: 'runAsNonRoot', level: 'restricted', versions: [{ minimumVersion: minorVersion(0), check: runAsNonRoot }] },
  { id: 'runAsUser', level: 'restricted', versions: [{ minimumVersion: minorVersion(23), check: runAsUser }] },
];
