/**
 * A StatefulSet's status (upstream's computeReplicaStatus, completeRollingUpdate, inconsistentStatus and the status
 * updater): counts of created, ready, available, current and updated pods; a RollingUpdate whose pods are all
 * updated and ready makes the update revision current; the status is written only when it changed, retrying
 * conflicts with the cached set. Written as the API serves it: the omitempty counters and revisions are left out
 * when zero, replicas, availableReplicas and collisionCount always present.
 */
import type { Indexer } from '../../client/cache/store.js';
import { isConflict, type ResourceClient } from '../../client/types.js';
import { getPodRevision, isCreated, isRunningAndAvailable, isRunningAndReady, isTerminating } from './identity.js';
import type { Pod, StatefulSet, StatefulSetStatus } from './types.js';

/** client-go's retry.DefaultRetry steps. */
const STATUS_ATTEMPTS = 5;

export interface Counts {
  replicas: number;
  readyReplicas: number;
  availableReplicas: number;
  currentReplicas: number;
  updatedReplicas: number;
}

/** The counters over pods (a slot not yet created counts for nothing). */
export function countReplicas(
  pods: readonly Pod[],
  minReadySeconds: number,
  currentRevision: string,
  updateRevision: string,
  nowMs: number,
): Counts {
  const c: Counts = { replicas: 0, readyReplicas: 0, availableReplicas: 0, currentReplicas: 0, updatedReplicas: 0 };
  for (const pod of pods) {
    if (isCreated(pod)) c.replicas++;
    if (isRunningAndReady(pod)) {
      c.readyReplicas++;
      if (isRunningAndAvailable(pod, minReadySeconds, nowMs)) c.availableReplicas++;
    }
    if (isCreated(pod) && !isTerminating(pod)) {
      const revision = getPodRevision(pod);
      if (revision === currentRevision) c.currentReplicas++;
      if (revision === updateRevision) c.updatedReplicas++;
    }
  }
  return c;
}

/** The status being computed in one sync. */
export interface WorkingStatus extends Counts {
  observedGeneration: number;
  currentRevision: string;
  updateRevision: string;
  collisionCount: number;
}

/** A RollingUpdate is complete when every wanted pod exists, is updated and ready: the update revision is current. */
export function completeRollingUpdate(set: StatefulSet, status: WorkingStatus): void {
  const replicas = set.spec.replicas ?? 1;
  if (
    set.spec.updateStrategy?.type === 'RollingUpdate' &&
    status.updatedReplicas === replicas &&
    status.readyReplicas === replicas &&
    status.replicas === replicas
  ) {
    status.currentReplicas = status.updatedReplicas;
    status.currentRevision = status.updateRevision;
  }
}

/** Whether the computed status says something the set's status does not (upstream compares these fields). */
export function inconsistentStatus(set: StatefulSet, status: WorkingStatus): boolean {
  const old = set.status ?? {};
  return (
    status.observedGeneration > (old.observedGeneration ?? 0) ||
    status.replicas !== (old.replicas ?? 0) ||
    status.currentReplicas !== (old.currentReplicas ?? 0) ||
    status.readyReplicas !== (old.readyReplicas ?? 0) ||
    status.updatedReplicas !== (old.updatedReplicas ?? 0) ||
    status.currentRevision !== (old.currentRevision ?? '') ||
    status.availableReplicas !== (old.availableReplicas ?? 0) ||
    status.updateRevision !== (old.updateRevision ?? '')
  );
}

/** The status as the API serves it. Conditions the set had are kept (this controller sets none). */
export function toApiStatus(status: WorkingStatus, old: StatefulSet['status']): StatefulSetStatus {
  const out: StatefulSetStatus = { replicas: status.replicas, availableReplicas: status.availableReplicas };
  if (status.observedGeneration) out.observedGeneration = status.observedGeneration;
  if (status.readyReplicas) out.readyReplicas = status.readyReplicas;
  if (status.currentReplicas) out.currentReplicas = status.currentReplicas;
  if (status.updatedReplicas) out.updatedReplicas = status.updatedReplicas;
  if (status.currentRevision) out.currentRevision = status.currentRevision;
  if (status.updateRevision) out.updateRevision = status.updateRevision;
  out.collisionCount = status.collisionCount;
  if (old?.conditions) out.conditions = old.conditions;
  return out;
}

/** Completes a finished rolling update and writes the status if it changed. */
export async function updateStatefulSetStatus(
  client: ResourceClient,
  setIndexer: Indexer,
  set: StatefulSet,
  status: WorkingStatus,
): Promise<void> {
  completeRollingUpdate(set, status);
  if (!inconsistentStatus(set, status)) return;
  let current = structuredClone(set);
  for (let attempt = 1; ; attempt++) {
    current.status = toApiStatus(status, current.status);
    try {
      await client.namespace(current.metadata.namespace ?? '').updateStatus(current);
      return;
    } catch (err) {
      if (!isConflict(err) || attempt >= STATUS_ATTEMPTS) throw err;
      const cached = setIndexer.getByKey(`${set.metadata.namespace ?? ''}/${set.metadata.name ?? ''}`);
      if (cached) current = structuredClone(cached) as StatefulSet;
    }
  }
}
