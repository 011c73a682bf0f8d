/**
 * The deployment controller's steps besides the rollouts themselves: scaling (a change of spec.replicas, or any
 * sync of a paused Deployment), the Paused/Resumed Progressing condition, cleanup of old ReplicaSets beyond
 * revisionHistoryLimit, and the status-only sync of a Deployment being deleted.
 */
import { isNotFound } from '../../client/types.js';
import { type SyncDeps, updateReplicaSet, writeDeploymentStatus } from './deps.js';
import { getAllReplicaSetsAndSyncRevision } from './new-replica-set.js';
import { intAnnotation, replicasAnnotationsNeedUpdate, setReplicasAnnotations } from './util/annotations.js';
import { isRollingUpdate, maxSurge } from './util/fenceposts.js';
import { activeReplicaSets, byRevision } from './util/replica-sets.js';
import { findActiveOrLatest, isSaturated, proportionalScale } from './util/scaling.js';
import {
  calculateStatus,
  getCondition,
  hasProgressDeadline,
  hasRevisionHistoryLimit,
  newCondition,
  setCondition,
} from './util/status.js';
import { statusEqual } from './util/status-equal.js';
import {
  DEPLOYMENT_PROGRESSING,
  DESIRED_REPLICAS_ANNOTATION,
  type Deployment,
  PAUSED_DEPLOY_REASON,
  RESUMED_DEPLOY_REASON,
  type ReplicaSet,
  replicasOf,
  TIMED_OUT_REASON,
} from './util/types.js';

/**
 * scaleReplicaSet: sets rs to newScale replicas (and its desired/max-replicas annotations to the Deployment's),
 * recording upstream's ScalingReplicaSet event when the size changed. Resolves [scaled, the ReplicaSet now].
 */
export async function scaleReplicaSet(
  deps: SyncDeps,
  rs: ReplicaSet,
  newScale: number,
  d: Deployment,
  operation: string,
): Promise<[boolean, ReplicaSet]> {
  const oldScale = replicasOf(rs);
  const sizeNeedsUpdate = oldScale !== newScale;
  const desired = replicasOf(d);
  const max = desired + maxSurge(d);
  if (!sizeNeedsUpdate && !replicasAnnotationsNeedUpdate(rs, desired, max)) return [false, rs];
  const copy = structuredClone(rs);
  copy.spec.replicas = newScale;
  setReplicasAnnotations(copy, desired, max);
  const updated = await updateReplicaSet(deps, copy);
  if (sizeNeedsUpdate) {
    deps.recorder.event(
      d,
      'Normal',
      'ScalingReplicaSet',
      `Scaled ${operation} replica set ${updated.metadata.name} from ${oldScale} to ${newScale}`,
    );
  }
  return [sizeNeedsUpdate, updated];
}

/** scaleReplicaSetAndRecordEvent: scaleReplicaSet, only when the size differs. */
export async function scaleReplicaSetAndRecordEvent(
  deps: SyncDeps,
  rs: ReplicaSet,
  newScale: number,
  d: Deployment,
): Promise<[boolean, ReplicaSet]> {
  if (replicasOf(rs) === newScale) return [false, rs];
  return scaleReplicaSet(deps, rs, newScale, d, replicasOf(rs) < newScale ? 'up' : 'down');
}

/**
 * scale: a scaling event (or a paused Deployment). One active ReplicaSet takes spec.replicas; a saturated new one
 * lets the old ones go to 0; otherwise a rolling update spreads the change proportionally.
 */
async function scale(
  deps: SyncDeps,
  d: Deployment,
  newRS: ReplicaSet | undefined,
  oldRSs: ReplicaSet[],
): Promise<void> {
  const activeOrLatest = findActiveOrLatest(newRS, oldRSs);
  if (activeOrLatest) {
    if (replicasOf(activeOrLatest) === replicasOf(d)) return;
    await scaleReplicaSetAndRecordEvent(deps, activeOrLatest, replicasOf(d), d);
    return;
  }
  if (isSaturated(d, newRS)) {
    for (const old of activeReplicaSets(oldRSs)) await scaleReplicaSetAndRecordEvent(deps, old, 0, d);
    return;
  }
  if (isRollingUpdate(d)) {
    const plan = proportionalScale(d, newRS, oldRSs);
    for (const { rs, size } of plan.sizes) await scaleReplicaSet(deps, rs, size, d, plan.operation);
  }
}

/** cleanupDeployment: deletes the oldest scaled-down ReplicaSets beyond revisionHistoryLimit. */
export async function cleanupDeployment(deps: SyncDeps, oldRSs: readonly ReplicaSet[], d: Deployment): Promise<void> {
  if (!hasRevisionHistoryLimit(d)) return;
  const cleanable = oldRSs.filter((rs) => !rs.metadata.deletionTimestamp);
  const diff = cleanable.length - (d.spec.revisionHistoryLimit ?? 0);
  if (diff <= 0) return;
  cleanable.sort(byRevision);
  for (const rs of cleanable.slice(0, diff)) {
    if (
      (rs.status?.replicas ?? 0) !== 0 ||
      replicasOf(rs) !== 0 ||
      (rs.metadata.generation ?? 0) > (rs.status?.observedGeneration ?? 0) ||
      rs.metadata.deletionTimestamp
    ) {
      continue;
    }
    deps.logger.v(4).info('Trying to cleanup replica set for deployment', {
      replicaSet: `${rs.metadata.namespace}/${rs.metadata.name}`,
      deployment: `${d.metadata.namespace}/${d.metadata.name}`,
    });
    try {
      await deps.client.replicaSets(rs.metadata.namespace ?? '').delete(rs.metadata.name ?? '');
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  }
}

/** syncDeploymentStatus: writes the status the ReplicaSets show, when it differs. */
export async function syncDeploymentStatus(
  deps: SyncDeps,
  allRSs: readonly (ReplicaSet | undefined)[],
  newRS: ReplicaSet | undefined,
  d: Deployment,
): Promise<void> {
  const status = calculateStatus(allRSs, newRS, d, deps.clock.now());
  if (statusEqual(d.status, status)) return;
  d.status = status;
  await writeDeploymentStatus(deps, d);
}

/** syncStatusOnly: a Deployment being deleted gets its status brought up to date, nothing else. */
export async function syncStatusOnly(deps: SyncDeps, d: Deployment, rsList: ReplicaSet[]): Promise<void> {
  const [newRS, oldRSs] = await getAllReplicaSetsAndSyncRevision(deps, d, rsList, false);
  await syncDeploymentStatus(deps, [...oldRSs, newRS], newRS, d);
}

/** sync: scaling, and everything a paused Deployment gets (cleanup included). */
export async function syncScaling(deps: SyncDeps, d: Deployment, rsList: ReplicaSet[]): Promise<void> {
  const [newRS, oldRSs] = await getAllReplicaSetsAndSyncRevision(deps, d, rsList, false);
  await scale(deps, d, newRS, oldRSs);
  if (d.spec.paused) await cleanupDeployment(deps, oldRSs, d);
  await syncDeploymentStatus(deps, [...oldRSs, newRS], newRS, d);
}

/** checkPausedConditions: Progressing Unknown with DeploymentPaused / DeploymentResumed. */
export async function checkPausedConditions(deps: SyncDeps, d: Deployment): Promise<void> {
  if (!hasProgressDeadline(d)) return;
  const cond = getCondition(d.status, DEPLOYMENT_PROGRESSING);
  if (cond?.reason === TIMED_OUT_REASON) return;
  const pausedCondExists = cond?.reason === PAUSED_DEPLOY_REASON;
  const now = deps.clock.now();
  d.status ??= {};
  if (d.spec.paused && !pausedCondExists) {
    setCondition(
      d.status,
      newCondition(now, DEPLOYMENT_PROGRESSING, 'Unknown', PAUSED_DEPLOY_REASON, 'Deployment is paused'),
    );
  } else if (!d.spec.paused && pausedCondExists) {
    setCondition(
      d.status,
      newCondition(now, DEPLOYMENT_PROGRESSING, 'Unknown', RESUMED_DEPLOY_REASON, 'Deployment is resumed'),
    );
  } else {
    return;
  }
  await writeDeploymentStatus(deps, d);
}

/** isScalingEvent: an active ReplicaSet's desired-replicas annotation differs from spec.replicas. */
export async function isScalingEvent(deps: SyncDeps, d: Deployment, rsList: ReplicaSet[]): Promise<boolean> {
  const [newRS, oldRSs] = await getAllReplicaSetsAndSyncRevision(deps, d, rsList, false);
  for (const rs of activeReplicaSets([...oldRSs, newRS])) {
    const desired = intAnnotation(rs, DESIRED_REPLICAS_ANNOTATION);
    if (desired !== undefined && desired !== replicasOf(d)) return true;
  }
  return false;
}
