/**
 * syncRolloutStatus: the status written during a rollout, with the Progressing condition upstream keeps
 * (NewReplicaSetAvailable when complete, ReplicaSetUpdated while pods move, ProgressDeadlineExceeded when nothing
 * moved for progressDeadlineSeconds), ReplicaFailure promoted from the ReplicaSets, and a look again at the
 * deadline when the rollout seems stuck.
 */
import { type SyncDeps, writeDeploymentStatus } from './deps.js';
import {
  calculateStatus,
  deploymentComplete,
  deploymentProgressing,
  deploymentTimedOut,
  getCondition,
  hasProgressDeadline,
  newCondition,
  removeCondition,
  replicaSetConditionToDeployment,
  setCondition,
} from './util/status.js';
import { statusEqual } from './util/status-equal.js';
import {
  type Condition,
  DEPLOYMENT_PROGRESSING,
  DEPLOYMENT_REPLICA_FAILURE,
  type Deployment,
  type DeploymentStatus,
  NEW_RS_AVAILABLE_REASON,
  REPLICA_SET_UPDATED_REASON,
  type ReplicaSet,
  TIMED_OUT_REASON,
} from './util/types.js';

const quote = (s: string | undefined) => JSON.stringify(s ?? '');

export async function syncRolloutStatus(
  deps: SyncDeps,
  allRSs: readonly (ReplicaSet | undefined)[],
  newRS: ReplicaSet | undefined,
  d: Deployment,
): Promise<void> {
  const now = deps.clock.now();
  const status = calculateStatus(allRSs, newRS, d, now);
  if (!hasProgressDeadline(d)) removeCondition(status, DEPLOYMENT_PROGRESSING);

  const current = getCondition(d.status, DEPLOYMENT_PROGRESSING);
  const isComplete = status.replicas === status.updatedReplicas && current?.reason === NEW_RS_AVAILABLE_REASON;
  if (hasProgressDeadline(d) && !isComplete) {
    if (deploymentComplete(d, status)) {
      const msg = newRS
        ? `ReplicaSet ${quote(newRS.metadata.name)} has successfully progressed.`
        : `Deployment ${quote(d.metadata.name)} has successfully progressed.`;
      setCondition(status, newCondition(now, DEPLOYMENT_PROGRESSING, 'True', NEW_RS_AVAILABLE_REASON, msg));
    } else if (deploymentProgressing(d, status)) {
      const msg = newRS
        ? `ReplicaSet ${quote(newRS.metadata.name)} is progressing.`
        : `Deployment ${quote(d.metadata.name)} is progressing.`;
      const condition = newCondition(now, DEPLOYMENT_PROGRESSING, 'True', REPLICA_SET_UPDATED_REASON, msg);
      // Progress moves lastUpdateTime even when the reason stays the same.
      if (current) {
        if (current.status === 'True' && current.lastTransitionTime !== undefined) {
          condition.lastTransitionTime = current.lastTransitionTime;
        }
        removeCondition(status, DEPLOYMENT_PROGRESSING);
      }
      setCondition(status, condition);
    } else if (deploymentTimedOut(d, status, now)) {
      const msg = newRS
        ? `ReplicaSet ${quote(newRS.metadata.name)} has timed out progressing.`
        : `Deployment ${quote(d.metadata.name)} has timed out progressing.`;
      setCondition(status, newCondition(now, DEPLOYMENT_PROGRESSING, 'False', TIMED_OUT_REASON, msg));
    }
  }

  const failures = replicaFailures(allRSs, newRS);
  if (failures[0]) setCondition(status, failures[0]);
  else removeCondition(status, DEPLOYMENT_REPLICA_FAILURE);

  if (statusEqual(d.status, status)) {
    requeueStuckDeployment(deps, d, status, now);
    return;
  }
  d.status = status;
  await writeDeploymentStatus(deps, d);
}

/** getReplicaFailures: the new ReplicaSet's ReplicaFailure conditions, else those of the others. */
function replicaFailures(allRSs: readonly (ReplicaSet | undefined)[], newRS: ReplicaSet | undefined): Condition[] {
  const of = (rs: ReplicaSet | undefined) =>
    (rs?.status?.conditions ?? [])
      .filter((c) => c.type === DEPLOYMENT_REPLICA_FAILURE)
      .map(replicaSetConditionToDeployment);
  const fromNew = of(newRS);
  if (fromNew.length > 0) return fromNew;
  return allRSs.flatMap(of);
}

/**
 * requeueStuckDeployment: a rollout that shows no progress is looked at again when its deadline passes (at once,
 * rate-limited, when that is under a second away). Answers the wait in ms, or -1 when there is nothing to wait for.
 */
export function requeueStuckDeployment(deps: SyncDeps, d: Deployment, status: DeploymentStatus, now: number): number {
  const current = getCondition(d.status, DEPLOYMENT_PROGRESSING);
  if (!hasProgressDeadline(d) || !current) return -1;
  if (deploymentComplete(d, status) || current.reason === TIMED_OUT_REASON) return -1;
  const last = Date.parse(current.lastUpdateTime ?? '');
  if (Number.isNaN(last)) return -1;
  const after = last + (d.spec.progressDeadlineSeconds ?? 0) * 1000 - now;
  if (after < 1000) {
    deps.enqueueRateLimited(d);
    return 0;
  }
  // A second more, so that the deadline has surely passed when the sync runs.
  deps.enqueueAfter(d, after + 1000);
  return after;
}
