/**
 * What a Pod Security check is (upstream's policy.Check): an ID, the level it belongs to, and one or more
 * revisions, each applying from a policy version on. A check looks at a pod's metadata and spec — of a pod, or of a
 * workload's pod template — and allows it or says why not: a short reason (`host namespaces`) and, when it can, a
 * detail (`hostNetwork=true, hostPID=true`).
 *
 * Objects are the JSON the registry holds; the views below name the fields the checks read, and the accessors never
 * trust the shape (a template is validated, but a check must never throw).
 */
import type { Level, Version } from '../levels.js';

export type Obj = Record<string, unknown>;

export interface CheckResult {
  allowed: boolean;
  /** Set when not allowed: `privileged`, `host namespaces`… */
  reason?: string;
  /** Optional, when not allowed: the specific containers, values or fields. */
  detail?: string;
}

export const ALLOWED: CheckResult = { allowed: true };

export function forbidden(reason: string, detail = ''): CheckResult {
  return { allowed: false, reason, detail };
}

/** The pod a check sees: metadata (annotations) and spec. */
export interface PodView {
  metadata: Obj;
  spec: Obj;
}

export type CheckFn = (pod: PodView) => CheckResult;

export interface VersionedCheck {
  /** The first policy version this revision applies to. */
  minimumVersion: Version;
  check: CheckFn;
  /** Baseline checks this (restricted) revision replaces. */
  overrides?: readonly string[];
}

export interface Check {
  id: string;
  level: Exclude<Level, 'privileged'>;
  /** In strictly increasing minimumVersion. */
  versions: readonly VersionedCheck[];
}

export function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A field that should be an object, or undefined when it is absent or not one. */
export function objAt(o: unknown, key: string): Obj | undefined {
  if (!isObj(o)) return undefined;
  const v = o[key];
  return isObj(v) ? v : undefined;
}

/** A field that should be a list of objects (non-objects dropped). */
export function objList(o: unknown, key: string): Obj[] {
  if (!isObj(o)) return [];
  const v = o[key];
  return Array.isArray(v) ? v.filter(isObj) : [];
}

/** A field that should be a list of strings (others dropped). */
export function stringList(o: unknown, key: string): string[] {
  if (!isObj(o)) return [];
  const v = o[key];
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}

export function stringAt(o: unknown, key: string): string | undefined {
  if (!isObj(o)) return undefined;
  const v = o[key];
  return typeof v === 'string' ? v : undefined;
}

export function boolAt(o: unknown, key: string): boolean | undefined {
  if (!isObj(o)) return undefined;
  const v = o[key];
  return typeof v === 'boolean' ? v : undefined;
}

export function nameOf(c: Obj): string {
  return typeof c.name === 'string' ? c.name : '';
}

/** Every container of the spec, in upstream's order: init containers, containers, ephemeral containers. */
export function allContainers(spec: Obj): Obj[] {
  return [...objList(spec, 'initContainers'), ...objList(spec, 'containers'), ...objList(spec, 'ephemeralContainers')];
}

/** A container's securityContext (undefined when unset). */
export function securityContext(c: Obj): Obj | undefined {
  return objAt(c, 'securityContext');
}

/** The pod-level securityContext (undefined when unset). */
export function podSecurityContext(pod: PodView): Obj | undefined {
  return objAt(pod.spec, 'securityContext');
}

/** Pod annotations (string values only). */
export function annotationsOf(pod: PodView): Record<string, string> {
  const a = objAt(pod.metadata, 'annotations');
  const out: Record<string, string> = {};
  if (a) for (const [k, v] of Object.entries(a)) if (typeof v === 'string') out[k] = v;
  return out;
}

/** Whether the pod says it runs on Windows (spec.os.name). */
export function isWindowsPod(pod: PodView): boolean {
  return stringAt(objAt(pod.spec, 'os'), 'name') === 'windows';
}

/** `"a", "b"` — each item quoted, as upstream's messages list names. */
export function joinQuote(items: readonly string[]): string {
  return items.length === 0 ? '' : `"${items.join('", "')}"`;
}

export function pluralize(singular: string, plural: string, count: number): string {
  return count === 1 ? singular : plural;
}

/** `container "a"` / `containers "a", "b"`. */
export function containersPhrase(names: readonly string[]): string {
  return `${pluralize('container', 'containers', names.length)} ${joinQuote(names)}`;
}

/** The distinct values, sorted as Go sorts strings (by code unit, which is byte order for ASCII). */
export function sortedSet(values: Iterable<string>): string[] {
  return [...new Set(values)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}
