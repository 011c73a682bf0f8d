/**
 * A DaemonSet's pods (upstream's pkg/controller/daemon/util and the helpers around it): the template new pods are
 * made from (daemon tolerations, the template-generation and revision-hash labels), whether a pod is of the current
 * revision, maxSurge and maxUnavailable resolved against the number of nodes, and the order pods on one node are
 * considered in.
 */
import type { KubeObject } from '../../client/types.js';
import { parseTime } from '../common/pods.js';
import { CONTROLLER_REVISION_HASH_LABEL_KEY } from '../history/hash.js';
import { addDaemonPodTolerations } from './placement.js';

/** Where apps/v1 keeps a DaemonSet's template generation. */
export const TEMPLATE_GENERATION_ANNOTATION = 'deprecated.daemonset.template.generation';
/** The label a daemon pod carries its DaemonSet's template generation in. */
export const POD_TEMPLATE_GENERATION_LABEL = 'pod-template-generation';

/** The DaemonSet's template generation, or undefined when the annotation is missing or unreadable. */
export function templateGeneration(ds: KubeObject): number | undefined {
  const value = ds.metadata.annotations?.[TEMPLATE_GENERATION_ANNOTATION];
  if (value === undefined || !/^-?\d+$/.test(value)) return undefined;
  return Number(value);
}

/** CreatePodTemplate: the DaemonSet's template with daemon tolerations and the generation and hash labels. */
export function createPodTemplate(ds: KubeObject, generation: number | undefined, hash: string) {
  const template = structuredClone(ds.spec?.template ?? {});
  template.spec ??= {};
  addDaemonPodTolerations(template.spec);
  template.metadata ??= {};
  const labels: Record<string, string> = { ...(template.metadata.labels ?? {}) };
  if (generation !== undefined) labels[POD_TEMPLATE_GENERATION_LABEL] = String(generation);
  if (hash !== '') labels[CONTROLLER_REVISION_HASH_LABEL_KEY] = hash;
  template.metadata.labels = labels;
  return template;
}

/** IsPodUpdated: the pod carries the current revision's hash, or the current template generation. */
export function isPodUpdated(pod: KubeObject, hash: string, generation: number | undefined): boolean {
  const labels = pod.metadata.labels ?? {};
  const templateMatches = generation !== undefined && labels[POD_TEMPLATE_GENERATION_LABEL] === String(generation);
  const hashMatches = hash !== '' && labels[CONTROLLER_REVISION_HASH_LABEL_KEY] === hash;
  return hashMatches || templateMatches;
}

/** intstr.GetScaledValueFromIntOrPercent with rounding up. */
function scaledUp(value: number | string | undefined | null, total: number): number {
  if (value === undefined || value === null) return 0;
  if (typeof value === 'number') return value;
  const m = /^(-?\d+)%$/.exec(value);
  if (!m) throw new Error(`invalid value for IntOrString: invalid type: string is not a percentage`);
  return Math.ceil((Number(m[1]) * total) / 100);
}

const rollingUpdateOf = (ds: KubeObject) =>
  ds.spec?.updateStrategy?.type === 'RollingUpdate' ? ds.spec?.updateStrategy?.rollingUpdate : undefined;

/** UnavailableCount: maxUnavailable against numberToSchedule (0 unless RollingUpdate). */
export function unavailableCount(ds: KubeObject, numberToSchedule: number): number {
  const ru = rollingUpdateOf(ds);
  return ru ? scaledUp(ru.maxUnavailable, numberToSchedule) : 0;
}

/** SurgeCount: maxSurge against numberToSchedule (0 unless RollingUpdate with maxSurge). */
export function surgeCount(ds: KubeObject, numberToSchedule: number): number {
  const ru = rollingUpdateOf(ds);
  return ru ? scaledUp(ru.maxSurge, numberToSchedule) : 0;
}

/** AllowsSurge: a rolling update whose maxSurge is not zero. */
export function allowsSurge(ds: KubeObject): boolean {
  try {
    return surgeCount(ds, 1) !== 0;
  } catch {
    return false;
  }
}

/** podByCreationTimestampAndPhase: bound pods first, then oldest first, then by name. */
export function compareDaemonPods(a: KubeObject, b: KubeObject): number {
  const boundA = !!a.spec?.nodeName;
  const boundB = !!b.spec?.nodeName;
  if (boundA !== boundB) return boundA ? -1 : 1;
  const ta = parseTime(a.metadata.creationTimestamp) ?? 0;
  const tb = parseTime(b.metadata.creationTimestamp) ?? 0;
  if (ta !== tb) return ta - tb;
  const na = a.metadata.name ?? '';
  const nb = b.metadata.name ?? '';
  return na < nb ? -1 : na > nb ? 1 : 0;
}
