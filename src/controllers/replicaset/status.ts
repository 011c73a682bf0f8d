/**
 * A replica set's status as upstream computes it (calculateStatus / updateReplicaSetStatus): replicas (active pods
 * it controls), fullyLabeledReplicas (those carrying every template label), readyReplicas, availableReplicas (ready
 * for minReadySeconds), observedGeneration, and the ReplicaFailure condition while creating or deleting pods fails.
 */
import { LabelSelector } from '../../api/labels.js';
import type { KubeObject, ResourceClient } from '../../client/types.js';
import { formatTime } from '../../util/time.js';
import { isPodAvailable, isPodReady, podAvailableAt } from '../common/pods.js';

export const REPLICA_FAILURE = 'ReplicaFailure';

export interface ReplicaSetCondition {
  type: string;
  status: string;
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

export interface ReplicaSetStatus {
  replicas: number;
  fullyLabeledReplicas?: number;
  readyReplicas?: number;
  availableReplicas?: number;
  observedGeneration?: number;
  conditions?: ReplicaSetCondition[];
  [field: string]: unknown;
}

/** spec.replicas (1 when unset, as the apiserver defaults it). */
export function desiredReplicas(rs: KubeObject): number {
  const n = rs.spec?.replicas;
  return typeof n === 'number' ? n : 1;
}

export function minReadySecondsOf(rs: KubeObject): number {
  const n = rs.spec?.minReadySeconds;
  return typeof n === 'number' && n > 0 ? n : 0;
}

/** The pod counts a status is made of. */
export interface PodCounts {
  /** Active pods the set controls. */
  replicas: number;
  fullyLabeled: number;
  ready: number;
  available: number;
}

/** Counts the active pods the replica set controls. */
export function countPods(rs: KubeObject, activePods: readonly KubeObject[], nowMs: number): PodCounts {
  const templateLabels = LabelSelector.fromSet(rs.spec?.template?.metadata?.labels);
  const minReady = minReadySecondsOf(rs);
  const counts: PodCounts = { replicas: activePods.length, fullyLabeled: 0, ready: 0, available: 0 };
  for (const pod of activePods) {
    if (templateLabels.matches(pod.metadata.labels)) counts.fullyLabeled++;
    if (isPodReady(pod)) {
      counts.ready++;
      if (isPodAvailable(pod, minReady, nowMs)) counts.available++;
    }
  }
  return counts;
}

/** The new status from the active pods the replica set controls and the outcome of managing them. */
export function calculateStatus(
  rs: KubeObject,
  activePods: readonly KubeObject[],
  manageError: unknown,
  nowMs: number,
): ReplicaSetStatus {
  return statusFromCounts(rs, countPods(rs, activePods, nowMs), manageError, nowMs);
}

/** The new status from the counts of the pods the replica set controls and the outcome of managing them. */
export function statusFromCounts(
  rs: KubeObject,
  counts: PodCounts,
  manageError: unknown,
  nowMs: number,
): ReplicaSetStatus {
  const old: ReplicaSetStatus = rs.status ?? { replicas: 0 };
  let conditions = old.conditions ? [...old.conditions] : undefined;
  const failure = conditions?.find((c) => c.type === REPLICA_FAILURE);
  if (manageError !== undefined && !failure) {
    const diff = counts.replicas - desiredReplicas(rs);
    const reason = diff < 0 ? 'FailedCreate' : diff > 0 ? 'FailedDelete' : '';
    const message = manageError instanceof Error ? manageError.message : String(manageError);
    conditions = [
      ...(conditions ?? []),
      { type: REPLICA_FAILURE, status: 'True', lastTransitionTime: formatTime(nowMs), reason, message },
    ];
  } else if (manageError === undefined && failure) {
    conditions = conditions?.filter((c) => c.type !== REPLICA_FAILURE);
  }
  const next: ReplicaSetStatus = {
    ...old,
    replicas: counts.replicas,
    fullyLabeledReplicas: counts.fullyLabeled,
    readyReplicas: counts.ready,
    availableReplicas: counts.available,
  };
  // Only replicas is written when zero: the other counts are omitempty in upstream's ReplicaSetStatus.
  for (const k of ['fullyLabeledReplicas', 'readyReplicas', 'availableReplicas'] as const) {
    if (next[k] === 0) delete next[k];
  }
  if (conditions && conditions.length > 0) next.conditions = conditions;
  else delete next.conditions;
  return next;
}

/**
 * How long until the next of the pods that are ready but not yet available becomes available (ms, at least 1);
 * undefined when none is waiting.
 */
export function nextAvailableAfter(
  rs: KubeObject,
  activePods: readonly KubeObject[],
  nowMs: number,
): number | undefined {
  const minReady = minReadySecondsOf(rs);
  if (minReady === 0) return undefined;
  let next: number | undefined;
  for (const pod of activePods) {
    if (!isPodReady(pod) || isPodAvailable(pod, minReady, nowMs)) continue;
    const at = podAvailableAt(pod, minReady);
    if (at === undefined) continue;
    // Available once now is strictly after `at`.
    const wait = Math.max(1, at - nowMs + 1);
    next = next === undefined ? wait : Math.min(next, wait);
  }
  return next;
}

function sameConditions(a: ReplicaSetCondition[] | undefined, b: ReplicaSetCondition[] | undefined): boolean {
  return JSON.stringify(a ?? []) === JSON.stringify(b ?? []);
}

/**
 * Writes newStatus (with observedGeneration) unless nothing changed; on failure re-reads the object and tries once
 * more (upstream's statusUpdateRetries). Resolves with the object as stored.
 */
export async function updateReplicaSetStatus(
  client: ResourceClient,
  rs: KubeObject,
  newStatus: ReplicaSetStatus,
): Promise<KubeObject> {
  const old: Partial<ReplicaSetStatus> = rs.status ?? {};
  const generation = rs.metadata.generation ?? 0;
  if (
    (old.replicas ?? 0) === newStatus.replicas &&
    (old.fullyLabeledReplicas ?? 0) === (newStatus.fullyLabeledReplicas ?? 0) &&
    (old.readyReplicas ?? 0) === (newStatus.readyReplicas ?? 0) &&
    (old.availableReplicas ?? 0) === (newStatus.availableReplicas ?? 0) &&
    (old.observedGeneration ?? 0) === generation &&
    sameConditions(old.conditions, newStatus.conditions)
  ) {
    return rs;
  }
  const status = { ...newStatus, observedGeneration: generation };
  const ns = client.namespace(rs.metadata.namespace ?? '');
  let current = rs;
  for (let attempt = 0; ; attempt++) {
    try {
      return await ns.updateStatus({ ...current, status });
    } catch (err) {
      if (attempt >= 1) throw err;
      current = await ns.get(rs.metadata.name ?? '');
    }
  }
}
