/**
 * The vocabulary of Pod Security admission (upstream's k8s.io/pod-security-admission/api): the three levels, policy
 * versions (`v1.N` or `latest`), the namespace labels that choose them, and how a namespace's labels and the
 * configured defaults make the policy a request is evaluated against — invalid enforce labels fail closed
 * (restricted), invalid audit and warn labels fail open (privileged), as upstream does.
 */
import { type FieldError, invalid, path } from '../../../api/field-errors.js';

export type Level = 'privileged' | 'baseline' | 'restricted';

export const LEVELS: readonly Level[] = ['privileged', 'baseline', 'restricted'];

/** A policy version: `{ minor }` is v1.minor; `latest` is newer than every numbered version. */
export type Version = { latest: true } | { latest: false; minor: number };

export const LATEST: Version = { latest: true };

export function minorVersion(minor: number): Version {
  return { latest: false, minor };
}

export function versionString(v: Version): string {
  return v.latest ? 'latest' : `v1.${v.minor}`;
}

/** Whether a is older than b (latest is older than nothing). */
export function olderThan(a: Version, b: Version): boolean {
  if (a.latest) return false;
  if (b.latest) return true;
  return a.minor < b.minor;
}

export function sameVersion(a: Version, b: Version): boolean {
  return a.latest ? b.latest : !b.latest && a.minor === b.minor;
}

export interface LevelVersion {
  level: Level;
  version: Version;
}

/** `restricted:latest`, `baseline:v1.30`. */
export function levelVersionString(lv: LevelVersion): string {
  return `${lv.level}:${versionString(lv.version)}`;
}

export function sameLevelVersion(a: LevelVersion, b: LevelVersion): boolean {
  return a.level === b.level && sameVersion(a.version, b.version);
}

/** Privileged at any version is the same policy; other levels must match in version too. */
function equivalent(a: LevelVersion, b: LevelVersion): boolean {
  return (a.level === 'privileged' && b.level === 'privileged') || sameLevelVersion(a, b);
}

export interface Policy {
  enforce: LevelVersion;
  audit: LevelVersion;
  warn: LevelVersion;
}

export function equivalentPolicies(a: Policy, b: Policy): boolean {
  return equivalent(a.enforce, b.enforce) && equivalent(a.audit, b.audit) && equivalent(a.warn, b.warn);
}

export function fullyPrivileged(p: Policy): boolean {
  return p.enforce.level === 'privileged' && p.audit.level === 'privileged' && p.warn.level === 'privileged';
}

/** Upstream's CompareLevels: negative, zero or positive as a is less, as or more strict than b. */
export function compareLevels(a: Level, b: Level): number {
  return LEVELS.indexOf(a) - LEVELS.indexOf(b);
}

export const LEVEL_ERROR = 'must be one of privileged, baseline, restricted';
export const VERSION_ERROR = 'must be "latest" or "v1.x"';

/** A level, or undefined when the text is not one. */
export function parseLevel(text: string): Level | undefined {
  return (LEVELS as readonly string[]).includes(text) ? (text as Level) : undefined;
}

/** A version (`latest`, `v1.0`, `v1.33`; no leading zeros), or undefined when the text is not one. */
export function parseVersion(text: string): Version | undefined {
  if (text === 'latest') return LATEST;
  const m = /^v1\.(0|[1-9][0-9]*)$/.exec(text);
  if (!m) return undefined;
  const minor = Number(m[1]);
  return Number.isSafeInteger(minor) ? minorVersion(minor) : undefined;
}

export const LABEL_PREFIX = 'pod-security.kubernetes.io/';
export const ENFORCE_LEVEL_LABEL = `${LABEL_PREFIX}enforce`;
export const ENFORCE_VERSION_LABEL = `${LABEL_PREFIX}enforce-version`;
export const AUDIT_LEVEL_LABEL = `${LABEL_PREFIX}audit`;
export const AUDIT_VERSION_LABEL = `${LABEL_PREFIX}audit-version`;
export const WARN_LEVEL_LABEL = `${LABEL_PREFIX}warn`;
export const WARN_VERSION_LABEL = `${LABEL_PREFIX}warn-version`;

const labelsPath = path('metadata', 'labels');

/**
 * The policy a namespace's labels ask for, over the defaults, with a field error per invalid label. When the
 * namespace sets an enforce level but no warn level, warn follows enforce if enforce is stricter (so a user sees
 * a warning for what enforce refuses).
 */
export function policyToEvaluate(
  labels: Readonly<Record<string, string>> | undefined,
  defaults: Policy,
): { policy: Policy; errors: FieldError[] } {
  const p: Policy = { enforce: { ...defaults.enforce }, audit: { ...defaults.audit }, warn: { ...defaults.warn } };
  const errors: FieldError[] = [];
  if (!labels || Object.keys(labels).length === 0) return { policy: p, errors };
  const has = (key: string) => Object.hasOwn(labels, key);
  const level = (key: string, onError: Level): Level => {
    const value = labels[key] as string;
    const parsed = parseLevel(value);
    if (parsed) return parsed;
    errors.push(invalid(labelsPath.key(key), value, LEVEL_ERROR));
    return onError;
  };
  const version = (key: string): Version => {
    const value = labels[key] as string;
    const parsed = parseVersion(value);
    if (parsed) return parsed;
    errors.push(invalid(labelsPath.key(key), value, VERSION_ERROR));
    return LATEST;
  };
  let enforceLevelSet = false;
  if (has(ENFORCE_LEVEL_LABEL)) {
    const before = errors.length;
    p.enforce.level = level(ENFORCE_LEVEL_LABEL, 'restricted');
    enforceLevelSet = errors.length === before;
  }
  if (has(ENFORCE_VERSION_LABEL)) p.enforce.version = version(ENFORCE_VERSION_LABEL);
  if (has(AUDIT_LEVEL_LABEL)) p.audit.level = level(AUDIT_LEVEL_LABEL, 'privileged');
  if (has(AUDIT_VERSION_LABEL)) p.audit.version = version(AUDIT_VERSION_LABEL);
  const warnLevelSet = has(WARN_LEVEL_LABEL);
  if (warnLevelSet) p.warn.level = level(WARN_LEVEL_LABEL, 'privileged');
  const warnVersionSet = has(WARN_VERSION_LABEL);
  if (warnVersionSet) p.warn.version = version(WARN_VERSION_LABEL);
  if (!warnLevelSet && enforceLevelSet && compareLevels(p.enforce.level, p.warn.level) > 0) {
    p.warn.level = p.enforce.level;
    if (!warnVersionSet) p.warn.version = p.enforce.version;
  }
  return { policy: p, errors };
}
