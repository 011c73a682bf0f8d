/**
 * Checks on container privileges: privileged containers, capabilities beyond the default set (baseline), and the
 * /proc mount type (baseline); privilege escalation and dropping ALL capabilities (restricted). From v1.25 the
 * restricted revisions let pods with `spec.os.name: windows` through (those fields do not exist on Windows).
 */
import { minorVersion } from '../levels.js';
import {
  ALLOWED,
  allContainers,
  boolAt,
  type Check,
  type CheckFn,
  type CheckResult,
  containersPhrase,
  forbidden,
  isWindowsPod,
  joinQuote,
  nameOf,
  objAt,
  type PodView,
  securityContext,
  sortedSet,
  stringAt,
  stringList,
} from './check.js';

function privileged(pod: PodView): CheckResult {
  const bad = allContainers(pod.spec)
    .filter((c) => boolAt(securityContext(c), 'privileged') === true)
    .map(nameOf);
  if (bad.length === 0) return ALLOWED;
  return forbidden('privileged', `${containersPhrase(bad)} must not set securityContext.privileged=true`);
}

function allowPrivilegeEscalation(pod: PodView): CheckResult {
  // Unset counts as true: only an explicit false passes.
  const bad = allContainers(pod.spec)
    .filter((c) => boolAt(securityContext(c), 'allowPrivilegeEscalation') !== false)
    .map(nameOf);
  if (bad.length === 0) return ALLOWED;
  return forbidden(
    'allowPrivilegeEscalation != false',
    `${containersPhrase(bad)} must set securityContext.allowPrivilegeEscalation=false`,
  );
}

/** A revision that lets Windows pods through and checks the rest as the earlier revision does. */
export function exceptWindows(check: CheckFn): CheckFn {
  return (pod) => (isWindowsPod(pod) ? ALLOWED : check(pod));
}

const DEFAULT_CAPABILITIES = new Set([
  'AUDIT_WRITE',
  'CHOWN',
  'DAC_OVERRIDE',
  'FOWNER',
  'FSETID',
  'KILL',
  'MKNOD',
  'NET_BIND_SERVICE',
  'SETFCAP',
  'SETGID',
  'SETPCAP',
  'SETUID',
  'SYS_CHROOT',
]);

export const CAPABILITIES_BASELINE_ID = 'capabilities_baseline';

function capabilitiesBaseline(pod: PodView): CheckResult {
  const bad: string[] = [];
  const added: string[] = [];
  for (const c of allContainers(pod.spec)) {
    const caps = objAt(securityContext(c), 'capabilities');
    if (!caps) continue;
    const extra = stringList(caps, 'add').filter((cap) => !DEFAULT_CAPABILITIES.has(cap));
    if (extra.length > 0) {
      bad.push(nameOf(c));
      added.push(...extra);
    }
  }
  if (bad.length === 0) return ALLOWED;
  return forbidden(
    'non-default capabilities',
    `${containersPhrase(bad)} must not include ${joinQuote(sortedSet(added))} in securityContext.capabilities.add`,
  );
}

function capabilitiesRestricted(pod: PodView): CheckResult {
  const missingDropAll: string[] = [];
  const addingForbidden: string[] = [];
  const forbiddenCaps: string[] = [];
  for (const c of allContainers(pod.spec)) {
    const caps = objAt(securityContext(c), 'capabilities');
    if (!caps) {
      missingDropAll.push(nameOf(c));
      continue;
    }
    if (!stringList(caps, 'drop').includes('ALL')) missingDropAll.push(nameOf(c));
    const extra = stringList(caps, 'add').filter((cap) => cap !== 'NET_BIND_SERVICE');
    if (extra.length > 0) {
      addingForbidden.push(nameOf(c));
      forbiddenCaps.push(...extra);
    }
  }
  const details: string[] = [];
  if (missingDropAll.length > 0) {
    details.push(`${containersPhrase(missingDropAll)} must set securityContext.capabilities.drop=["ALL"]`);
  }
  if (addingForbidden.length > 0) {
    details.push(
      `${containersPhrase(addingForbidden)} must not include ${joinQuote(sortedSet(forbiddenCaps))} in securityContext.capabilities.add`,
    );
  }
  return details.length > 0 ? forbidden('unrestricted capabilities', details.join('; ')) : ALLOWED;
}

function procMount(pod: PodView): CheckResult {
  const bad: string[] = [];
  const types: string[] = [];
  for (const c of allContainers(pod.spec)) {
    const type = stringAt(securityContext(c), 'procMount');
    if (type !== undefined && type !== 'Default') {
      bad.push(nameOf(c));
      types.push(type);
    }
  }
  if (bad.length === 0) return ALLOWED;
  return forbidden(
    'procMount',
    `${containersPhrase(bad)} must not set securityContext.procMount to ${joinQuote(sortedSet(types))}`,
  );
}

const v = minorVersion;

export const PRIVILEGE_CHECKS: readonly Check[] = [
  { id: 'privileged', level: 'baseline', versions: [{ minimumVersion: v(0), check: privileged }] },
  {
    id: CAPABILITIES_BASELINE_ID,
    level: 'baseline',
    versions: [{ minimumVersion: v(0), check: capabilitiesBaseline }],
  },
  { id: 'procMount', level: 'baseline', versions: [{ minimumVersion: v(0), check: procMount }] },
  {
    id: 'allowPrivilegeEscalation',
    level: 'restricted',
    versions: [
      // The field exists from Kubernetes 1.8.
      { minimumVersion: v(8), check: allowPrivilegeEscalation },
      { minimumVersion: v(25), check: exceptWindows(allowPrivilegeEscalation) },
    ],
  },
  {
    id: 'capabilities_restricted',
    level: 'restricted',
    versions: [
      { minimumVersion: v(22), check: capabilitiesRestricted, overrides: [CAPABILITIES_BASELINE_ID] },
      { minimumVersion: v(25), check: exceptWindows(capabilitiesRestricted), overrides: [CAPABILITIES_BASELINE_ID] },
    ],
  },
];
