/**
 * rolloutRolling: a RollingUpdate step. The new ReplicaSet grows as far as maxSurge allows; then old ReplicaSets
 * shrink as far as maxUnavailable allows (their unhealthy replicas first); once the rollout is complete, old
 * ReplicaSets beyond revisionHistoryLimit are deleted.
 */
import type { SyncDeps } from './deps.js';
import { getAllReplicaSetsAndSyncRevision } from './new-replica-set.js';
import { syncRolloutStatus } from './progress.js';
import { cleanupDeployment, scaleReplicaSetAndRecordEvent } from './sync.js';
import { maxUnavailable } from './util/fenceposts.js';
import { activeReplicaSets, availableReplicas, byCreationTimestamp, specReplicas } from './util/replica-sets.js';
import { newRSNewReplicas } from './util/scaling.js';
import { deploymentComplete } from './util/status.js';
import { type Deployment, type ReplicaSet, replicasOf } from './util/types.js';

export async function rolloutRolling(deps: SyncDeps, d: Deployment, rsList: ReplicaSet[]): Promise<void> {
  const [newRS, oldRSs] = await getAllReplicaSetsAndSyncRevision(deps, d, rsList, true);
  if (!newRS) throw new Error('no new replica set');
  const allRSs = [...oldRSs, newRS];

  if (await reconcileNewReplicaSet(deps, allRSs, newRS, d)) {
    return syncRolloutStatus(deps, allRSs, newRS, d);
  }
  if (await reconcileOldReplicaSets(deps, allRSs, activeReplicaSets(oldRSs), newRS, d)) {
    return syncRolloutStatus(deps, allRSs, newRS, d);
  }
  if (deploymentComplete(d, d.status)) await cleanupDeployment(deps, oldRSs, d);
  return syncRolloutStatus(deps, allRSs, newRS, d);
}

async function reconcileNewReplicaSet(
  deps: SyncDeps,
  allRSs: ReplicaSet[],
  newRS: ReplicaSet,
  d: Deployment,
): Promise<boolean> {
  if (replicasOf(newRS) === replicasOf(d)) return false;
  const target = replicasOf(newRS) > replicasOf(d) ? replicasOf(d) : newRSNewReplicas(d, allRSs, newRS);
  const [scaled] = await scaleReplicaSetAndRecordEvent(deps, newRS, target, d);
  return scaled;
}

/** Scales old ReplicaSets down as far as the availability budget allows; true when something was scaled. */
async function reconcileOldReplicaSets(
  deps: SyncDeps,
  allRSs: ReplicaSet[],
  oldRSs: ReplicaSet[],
  newRS: ReplicaSet,
  d: Deployment,
): Promise<boolean> {
  if (specReplicas(oldRSs) === 0) return false;
  const allPods = specReplicas(allRSs);
  const minAvailable = replicasOf(d) - maxUnavailable(d);
  const newRSUnavailable = replicasOf(newRS) - (newRS.status?.availableReplicas ?? 0);
  const maxScaledDown = allPods - minAvailable - newRSUnavailable;
  if (maxScaledDown <= 0) return false;

  // Unhealthy replicas go first: they cost no availability.
  const [cleaned, cleanupCount] = await cleanupUnhealthyReplicas(deps, oldRSs, d, maxScaledDown);
  const scaledDown = await scaleDownOldReplicaSetsForRollingUpdate(deps, [...cleaned, newRS], cleaned, d);
  return cleanupCount + scaledDown > 0;
}

/** Scales old ReplicaSets down by their unavailable replicas, oldest first, at most maxCleanup in all. */
async function cleanupUnhealthyReplicas(
  deps: SyncDeps,
  oldRSs: ReplicaSet[],
  d: Deployment,
  maxCleanup: number,
): Promise<[ReplicaSet[], number]> {
  const sorted = [...oldRSs].sort(byCreationTimestamp);
  let total = 0;
  for (let i = 0; i < sorted.length; i++) {
    const rs = sorted[i] as ReplicaSet;
    if (total >= maxCleanup) break;
    const replicas = replicasOf(rs);
    const available = rs.status?.availableReplicas ?? 0;
    if (replicas === 0 || replicas === available) continue;
    const count = Math.min(maxCleanup - total, replicas - available);
    const next = replicas - count;
    if (next > replicas) {
      throw new Error(
        `when cleaning up unhealthy replicas, got invalid request to scale down ${rs.metadata.namespace}/${rs.metadata.name} ${replicas} -> ${next}`,
      );
    }
    const [, updated] = await scaleReplicaSetAndRecordEvent(deps, rs, next, d);
    total += count;
    sorted[i] = updated;
  }
  return [sorted, total];
}

/** Scales old ReplicaSets down, oldest first, while more than minAvailable pods are available. */
async function scaleDownOldReplicaSetsForRollingUpdate(
  deps: SyncDeps,
  allRSs: ReplicaSet[],
  oldRSs: ReplicaSet[],
  d: Deployment,
): Promise<number> {
  const minAvailable = replicasOf(d) - maxUnavailable(d);
  const available = availableReplicas(allRSs);
  if (available <= minAvailable) return 0;
  const toScaleDown = available - minAvailable;
  let total = 0;
  for (const rs of [...oldRSs].sort(byCreationTimestamp)) {
    if (total >= toScaleDown) break;
    const replicas = replicasOf(rs);
    if (replicas === 0) continue;
    const count = Math.min(replicas, toScaleDown - total);
    const next = replicas - count;
    if (next > replicas) {
      throw new Error(
        `when scaling down old replica sets, got invalid request to scale down ${rs.metadata.namespace}/${rs.metadata.name} ${replicas} -> ${next}`,
      );
    }
    await scaleReplicaSetAndRecordEvent(deps, rs, next, d);
    total += count;
  }
  return total;
}
