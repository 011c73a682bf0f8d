/**
 * Checks on the kernel security profiles a pod asks for:
 * - seccompProfile_baseline: up to v1.18 the alpha seccomp annotations, from v1.19 the securityContext fields; only
 *   RuntimeDefault and Localhost profiles (or none).
 * - seccompProfile_restricted (from v1.19, replacing the baseline check): a profile must be set, on the pod or on
 *   every container, and be RuntimeDefault or Localhost; Windows pods pass from v1.25.
 * - appArmorProfile (baseline): no Unconfined profile, by field or by the beta annotations.
 * - seLinuxOptions (baseline): only the container types (plus container_engine_t from v1.31), no user or role.
 */
import { goQuote } from '../../../../api/validation/go-format.js';
import { minorVersion } from '../levels.js';
import {
  ALLOWED,
  allContainers,
  annotationsOf,
  type Check,
  type CheckResult,
  containersPhrase,
  forbidden,
  joinQuote,
  nameOf,
  type Obj,
  objAt,
  type PodView,
  pluralize,
  podSecurityContext,
  securityContext,
  sortedSet,
  stringAt,
} from './check.js';
import { exceptWindows } from './privilege.js';

const SECCOMP_POD_ANNOTATION = 'seccomp.security.alpha.kubernetes.io/pod';
const SECCOMP_CONTAINER_ANNOTATION_PREFIX = 'container.seccomp.security.alpha.kubernetes.io/';

function allowedSeccompType(type: string): boolean {
  return type === 'RuntimeDefault' || type === 'Localhost';
}

function allowedSeccompAnnotation(value: string): boolean {
  return value === 'runtime/default' || value === 'docker/default' || value.startsWith('localhost/');
}

/** `key="value"` as upstream prints an annotation (Go's %q). */
function annotationText(key: string, value: string): string {
  return `${key}=${goQuote(value)}`;
}

function seccompBaselineAnnotations(pod: PodView): CheckResult {
  const annotations = annotationsOf(pod);
  const bad: string[] = [];
  const pods = annotations[SECCOMP_POD_ANNOTATION];
  if (pods !== undefined && !allowedSeccompAnnotation(pods)) bad.push(annotationText(SECCOMP_POD_ANNOTATION, pods));
  for (const c of allContainers(pod.spec)) {
    const key = SECCOMP_CONTAINER_ANNOTATION_PREFIX + nameOf(c);
    const value = annotations[key];
    if (value !== undefined && !allowedSeccompAnnotation(value)) bad.push(annotationText(key, value));
  }
  if (bad.length === 0) return ALLOWED;
  const distinct = sortedSet(bad);
  return forbidden(
    'seccompProfile',
    `forbidden ${pluralize('annotation', 'annotations', distinct.length)} ${distinct.join(', ')}`,
  );
}

/** The profile type a security context sets, or undefined when it sets no profile. */
function seccompType(sc: Obj | undefined): string | undefined {
  const profile = objAt(sc, 'seccompProfile');
  return profile ? (stringAt(profile, 'type') ?? '') : undefined;
}

/**
 * The seccomp fields: explicit bad types are refused, and when `required`, containers with no profile of their
 * own and no valid pod-level one are refused too.
 */
function seccompFields(pod: PodView, required: boolean): CheckResult {
  const setters: string[] = [];
  const badTypes: string[] = [];
  const podType = seccompType(podSecurityContext(pod));
  let podCovers = false;
  if (podType !== undefined) {
    if (allowedSeccompType(podType)) podCovers = true;
    else {
      setters.push('pod');
      badTypes.push(podType);
    }
  }
  const explicit: string[] = [];
  const implicit: string[] = [];
  for (const c of allContainers(pod.spec)) {
    const type = seccompType(securityContext(c));
    if (type !== undefined) {
      if (!allowedSeccompType(type)) {
        explicit.push(nameOf(c));
        badTypes.push(type);
      }
    } else if (!podCovers) implicit.push(nameOf(c));
  }
  if (explicit.length > 0) setters.push(containersPhrase(explicit));
  if (setters.length > 0) {
    return forbidden(
      'seccompProfile',
      `${setters.join(' and ')} must not set securityContext.seccompProfile.type to ${joinQuote(sortedSet(badTypes))}`,
    );
  }
  if (required && implicit.length > 0) {
    return forbidden(
      'seccompProfile',
      `pod or ${containersPhrase(implicit)} must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost"`,
    );
  }
  return ALLOWED;
}

const seccompBaselineFields = (pod: PodView) => seccompFields(pod, false);
const seccompRestricted = (pod: PodView) => seccompFields(pod, true);

const APPARMOR_ANNOTATION_PREFIX = 'container.apparmor.security.beta.kubernetes.io/';

function allowedAppArmorAnnotation(value: string): boolean {
  return value === '' || value === 'runtime/default' || value.startsWith('localhost/');
}

function allowedAppArmorType(type: string): boolean {
  return type === 'RuntimeDefault' || type === 'Localhost';
}

function appArmorType(sc: Obj | undefined): string | undefined {
  const profile = objAt(sc, 'appArmorProfile');
  return profile ? (stringAt(profile, 'type') ?? '') : undefined;
}

function appArmorProfile(pod: PodView): CheckResult {
  const setters: string[] = [];
  const badTypes: string[] = [];
  const podType = appArmorType(podSecurityContext(pod));
  if (podType !== undefined && !allowedAppArmorType(podType)) {
    setters.push('pod');
    badTypes.push(podType);
  }
  const bad: string[] = [];
  for (const c of allContainers(pod.spec)) {
    const type = appArmorType(securityContext(c));
    if (type !== undefined && !allowedAppArmorType(type)) {
      bad.push(nameOf(c));
      badTypes.push(type);
    }
  }
  if (bad.length > 0) setters.push(containersPhrase(bad));
  const badAnnotations = Object.entries(annotationsOf(pod))
    .filter(([k, value]) => k.startsWith(APPARMOR_ANNOTATION_PREFIX) && !allowedAppArmorAnnotation(value))
    .map(([k, value]) => annotationText(k, value));
  const values = sortedSet(badTypes);
  if (badAnnotations.length > 0) {
    values.push(...sortedSet(badAnnotations));
    setters.push(pluralize('annotation', 'annotations', badAnnotations.length));
  }
  if (setters.length === 0) return ALLOWED;
  return forbidden(
    pluralize('forbidden AppArmor profile', 'forbidden AppArmor profiles', values.length),
    `${setters.join(' and ')} must not set AppArmor profile type to ${joinQuote(values)}`,
  );
}

const SELINUX_TYPES_1_0 = new Set(['', 'container_t', 'container_init_t', 'container_kvm_t']);
const SELINUX_TYPES_1_31 = new Set([...SELINUX_TYPES_1_0, 'container_engine_t']);

function seLinuxOptions(allowedTypes: ReadonlySet<string>) {
  return (pod: PodView): CheckResult => {
    const badTypes: string[] = [];
    let setUser = false;
    let setRole = false;
    const valid = (opts: Obj): boolean => {
      let ok = true;
      const type = stringAt(opts, 'type') ?? '';
      if (!allowedTypes.has(type)) {
        ok = false;
        badTypes.push(type);
      }
      if ((stringAt(opts, 'user') ?? '') !== '') {
        ok = false;
        setUser = true;
      }
      if ((stringAt(opts, 'role') ?? '') !== '') {
        ok = false;
        setRole = true;
      }
      return ok;
    };
    const setters: string[] = [];
    const podOpts = objAt(podSecurityContext(pod), 'seLinuxOptions');
    if (podOpts && !valid(podOpts)) setters.push('pod');
    const bad: string[] = [];
    for (const c of allContainers(pod.spec)) {
      const opts = objAt(securityContext(c), 'seLinuxOptions');
      if (opts && !valid(opts)) bad.push(nameOf(c));
    }
    if (bad.length > 0) setters.push(containersPhrase(bad));
    if (setters.length === 0) return ALLOWED;
    const what: string[] = [];
    const types = sortedSet(badTypes);
    if (types.length > 0) what.push(`${pluralize('type', 'types', types.length)} ${joinQuote(types)}`);
    if (setUser) what.push('user may not be set');
    if (setRole) what.push('role may not be set');
    return forbidden(
      'seLinuxOptions',
      `${setters.join(' and ')} set forbidden securityContext.seLinuxOptions: ${what.join('; ')}`,
    );
  };
}

export const SECCOMP_BASELINE_ID = 'seccompProfile_baseline';

const v = minorVersion;

export const PROFILE_CHECKS: readonly Check[] = [
  {
    id: SECCOMP_BASELINE_ID,
    level: 'baseline',
    versions: [
      { minimumVersion: v(0), check: seccompBaselineAnnotations },
      { minimumVersion: v(19), check: seccompBaselineFields },
    ],
  },
  { id: 'appArmorProfile', level: 'baseline', versions: [{ minimumVersion: v(0), check: appArmorProfile }] },
  {
    id: 'seLinuxOptions',
    level: 'baseline',
    versions: [
      { minimumVersion: v(0), check: seLinuxOptions(SELINUX_TYPES_1_0) },
      { minimumVersion: v(31), check: seLinuxOptions(SELINUX_TYPES_1_31) },
    ],
  },
  {
    id: 'seccompProfile_restricted',
    level: 'restricted',
    versions: [
      { minimumVersion: v(19), check: seccompRestricted, overrides: [SECCOMP_BASELINE_ID] },
      { minimumVersion: v(25), check: exceptWindows(seccompRestricted), overrides: [SECCOMP_BASELINE_ID] },
    ],
  },
];
