/**
 * The arithmetic of a PodDisruptionBudget's status (upstream's pkg/controller/disruption and
 * component-helpers/apps/poddisruptionbudget), free of any I/O:
 *
 * - `scaledValueFromIntOrPercent(value, total, roundUp)`: an IntOrString as a count of `total` (intstr's
 *   GetScaledValueFromIntOrPercent), throwing upstream's messages for a bad value;
 * - `countHealthyPods(pods, disruptedPods, nowMs)`: ready pods not being deleted and not recently disrupted;
 * - `buildDisruptedPodMap(pods, disruptedPods, nowMs)`: the disruptedPods entries still waiting for their deletion
 *   (dropping those older than DELETION_TIMEOUT_MS), the ones that timed out and when to look again;
 * - `disruptionsAllowedOf`, `updateDisruptionAllowedCondition`, `conditionsAreUpToDate`, `setStatusCondition`.
 *
 * Times in the status are RFC 3339 strings (metav1.Time); functions here take epoch milliseconds.
 */
import { formatTime } from '../../client/events/event.js';
import type { KubeObject } from '../../client/types.js';
import { isPodReady, parseTime } from '../common/pods.js';

/** How long a pod named in disruptedPods may take to get its deletionTimestamp (upstream DeletionTimeout). */
export const DELETION_TIMEOUT_MS = 2 * 60_000;

export const DISRUPTION_ALLOWED_CONDITION = 'DisruptionAllowed';
export const SUFFICIENT_PODS_REASON = 'SufficientPods';
export const INSUFFICIENT_PODS_REASON = 'InsufficientPods';
export const SYNC_FAILED_REASON = 'SyncFailed';

/** metav1.Condition. */
export interface StatusCondition {
  type: string;
  status: string;
  observedGeneration?: number;
  lastTransitionTime?: string;
  reason: string;
  message: string;
}

/** policy/v1 PodDisruptionBudgetStatus. */
export interface PdbStatus {
  observedGeneration?: number;
  disruptedPods?: Record<string, string>;
  disruptionsAllowed: number;
  currentHealthy: number;
  desiredHealthy: number;
  expectedPods: number;
  conditions?: StatusCondition[];
}

/**
 * An int, or a percentage string of total (rounded up or down), as upstream's GetScaledValueFromIntOrPercent.
 * A string without `%` or with a bad number is an error.
 */
export function scaledValueFromIntOrPercent(value: unknown, total: number, roundUp: boolean): number {
  if (typeof value === 'number') return value;
  if (typeof value !== 'string') throw new Error('invalid type: neither int nor percentage');
  if (!value.endsWith('%')) throw new Error('invalid type: string is not a percentage');
  const digits = value.slice(0, -1);
  if (!/^[+-]?\d+$/.test(digits)) {
    throw new Error(
      `invalid value for IntOrString: invalid value "${value}": strconv.Atoi: parsing "${digits}": invalid syntax`,
    );
  }
  const percent = Number(digits);
  const scaled = (percent * total) / 100;
  return roundUp ? Math.ceil(scaled) : Math.floor(scaled);
}

/** Pods that count as healthy: ready, not being deleted, and not disrupted within the deletion timeout. */
export function countHealthyPods(
  pods: readonly KubeObject[],
  disruptedPods: Readonly<Record<string, string>>,
  nowMs: number,
): number {
  let healthy = 0;
  for (const pod of pods) {
    if (pod.metadata.deletionTimestamp) continue;
    const disruptedAt = parseTime(disruptedPods[pod.metadata.name ?? '']);
    if (disruptedAt !== undefined && disruptedAt + DELETION_TIMEOUT_MS > nowMs) continue;
    if (isPodReady(pod)) healthy++;
  }
  return healthy;
}

export interface DisruptedPodMap {
  /** The entries to keep: pods that exist, are not yet being deleted and are within the timeout. */
  disruptedPods: Record<string, string>;
  /** Pods whose eviction was approved but which were not deleted in time. */
  notDeleted: KubeObject[];
  /** When the earliest kept entry times out (ms), if any. */
  recheckAt: number | undefined;
}

/** upstream's buildDisruptedPodMap. */
export function buildDisruptedPodMap(
  pods: readonly KubeObject[],
  disruptedPods: Readonly<Record<string, string>> | undefined,
  nowMs: number,
): DisruptedPodMap {
  const result: DisruptedPodMap = { disruptedPods: {}, notDeleted: [], recheckAt: undefined };
  if (!disruptedPods) return result;
  for (const pod of pods) {
    if (pod.metadata.deletionTimestamp) continue;
    const name = pod.metadata.name ?? '';
    if (!Object.hasOwn(disruptedPods, name)) continue;
    const raw = disruptedPods[name] as string;
    const expectedDeletion = (parseTime(raw) ?? 0) + DELETION_TIMEOUT_MS;
    if (expectedDeletion < nowMs) {
      result.notDeleted.push(pod);
      continue;
    }
    if (result.recheckAt === undefined || expectedDeletion < result.recheckAt) result.recheckAt = expectedDeletion;
    result.disruptedPods[name] = raw;
  }
  return result;
}

/** currentHealthy - desiredHealthy, never below 0, and 0 while no pods are expected. */
export function disruptionsAllowedOf(currentHealthy: number, desiredHealthy: number, expectedPods: number): number {
  const allowed = currentHealthy - desiredHealthy;
  return expectedPods <= 0 || allowed <= 0 ? 0 : allowed;
}

/** apimeta.SetStatusCondition: sets one condition in place, keeping its transition time unless its status moved. */
export function setStatusCondition(conditions: StatusCondition[], next: StatusCondition, nowMs: number): boolean {
  const existing = conditions.find((c) => c.type === next.type);
  if (!existing) {
    conditions.push({ ...next, lastTransitionTime: next.lastTransitionTime ?? formatTime(nowMs) });
    return true;
  }
  let changed = false;
  if (existing.status !== next.status) {
    existing.status = next.status;
    existing.lastTransitionTime = next.lastTransitionTime ?? formatTime(nowMs);
    changed = true;
  }
  if (existing.reason !== next.reason) {
    existing.reason = next.reason;
    changed = true;
  }
  if (existing.message !== next.message) {
    existing.message = next.message;
    changed = true;
  }
  if ((existing.observedGeneration ?? 0) !== (next.observedGeneration ?? 0)) {
    if (next.observedGeneration === undefined) delete existing.observedGeneration;
    else existing.observedGeneration = next.observedGeneration;
    changed = true;
  }
  return changed;
}

function observedGenerationField(status: PdbStatus): { observedGeneration?: number } {
  return status.observedGeneration ? { observedGeneration: status.observedGeneration } : {};
}

/** Sets DisruptionAllowed from disruptionsAllowed: True/SufficientPods or False/InsufficientPods. */
export function updateDisruptionAllowedCondition(status: PdbStatus, nowMs: number): void {
  status.conditions ??= [];
  const allowed = status.disruptionsAllowed > 0;
  setStatusCondition(
    status.conditions,
    {
      type: DISRUPTION_ALLOWED_CONDITION,
      status: allowed ? 'True' : 'False',
      reason: allowed ? SUFFICIENT_PODS_REASON : INSUFFICIENT_PODS_REASON,
      message: '',
      ...observedGenerationField(status),
    },
    nowMs,
  );
}

/** Whether DisruptionAllowed already says what disruptionsAllowed and the generation say. */
export function conditionsAreUpToDate(pdb: KubeObject): boolean {
  const status: Partial<PdbStatus> = pdb.status ?? {};
  const cond = (status.conditions ?? []).find((c) => c.type === DISRUPTION_ALLOWED_CONDITION);
  if (!cond) return false;
  if ((status.observedGeneration ?? 0) !== (pdb.metadata.generation ?? 0)) return false;
  if ((status.disruptionsAllowed ?? 0) > 0) return cond.status === 'True' && cond.reason === SUFFICIENT_PODS_REASON;
  return cond.status === 'False' && cond.reason === INSUFFICIENT_PODS_REASON;
}

/** Equal string maps, a missing map being the same as an empty one (as upstream's semantic equality). */
export function sameStringMap(a: Readonly<Record<string, string>> | undefined, b: Readonly<Record<string, string>>) {
  const ak = Object.keys(a ?? {});
  const bk = Object.keys(b);
  return ak.length === bk.length && ak.every((k) => Object.hasOwn(b, k) && b[k] === (a as Record<string, string>)[k]);
}

/** The status the controller wants, computed from the counts; conditions carried over and brought up to date. */
export function desiredPdbStatus(
  pdb: KubeObject,
  counts: { currentHealthy: number; desiredHealthy: number; expectedPods: number },
  disruptedPods: Record<string, string>,
  nowMs: number,
): PdbStatus {
  const previous: Partial<PdbStatus> = pdb.status ?? {};
  const status: PdbStatus = {
    ...(pdb.metadata.generation ? { observedGeneration: pdb.metadata.generation } : {}),
    ...(Object.keys(disruptedPods).length > 0 ? { disruptedPods } : {}),
    disruptionsAllowed: disruptionsAllowedOf(counts.currentHealthy, counts.desiredHealthy, counts.expectedPods),
    currentHealthy: counts.currentHealthy,
    desiredHealthy: counts.desiredHealthy,
    expectedPods: counts.expectedPods,
    conditions: structuredClone(previous.conditions ?? []),
  };
  updateDisruptionAllowedCondition(status, nowMs);
  return status;
}

/** Whether pdb's status already is what the counts say (upstream's early return in updatePdbStatus). */
export function statusIsCurrent(pdb: KubeObject, wanted: PdbStatus): boolean {
  const s: Partial<PdbStatus> = pdb.status ?? {};
  return (
    (s.currentHealthy ?? 0) === wanted.currentHealthy &&
    (s.desiredHealthy ?? 0) === wanted.desiredHealthy &&
    (s.expectedPods ?? 0) === wanted.expectedPods &&
    (s.disruptionsAllowed ?? 0) === wanted.disruptionsAllowed &&
    sameStringMap(s.disruptedPods, wanted.disruptedPods ?? {}) &&
    (s.observedGeneration ?? 0) === (pdb.metadata.generation ?? 0) &&
    conditionsAreUpToDate(pdb)
  );
}
