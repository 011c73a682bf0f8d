/**
 * A Deployment's status as upstream computes it: the counts summed over its ReplicaSets, the Available and
 * Progressing conditions (with upstream's reasons and messages), and the tests of a rollout being complete,
 * progressing or past its progress deadline.
 */
import { maxUnavailable } from './fenceposts.js';
import { actualReplicas, availableReplicas, readyReplicas, specReplicas } from './replica-sets.js';
import { COUNTS } from './status-equal.js';
import {
  type Condition,
  DEPLOYMENT_AVAILABLE,
  DEPLOYMENT_PROGRESSING,
  type Deployment,
  type DeploymentStatus,
  MAX_INT32,
  MINIMUM_REPLICAS_AVAILABLE,
  MINIMUM_REPLICAS_UNAVAILABLE,
  NEW_RS_AVAILABLE_REASON,
  type ReplicaSet,
  replicasOf,
  TIMED_OUT_REASON,
} from './types.js';

/** metav1.Time as it is serialized: RFC 3339 in whole seconds. */
export function metaTime(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

export function newCondition(
  now: number,
  type: string,
  status: Condition['status'],
  reason: string,
  message: string,
): Condition {
  const t = metaTime(now);
  return { type, status, lastUpdateTime: t, lastTransitionTime: t, reason, message };
}

export function getCondition(status: DeploymentStatus | undefined, type: string): Condition | undefined {
  return status?.conditions?.find((c) => c.type === type);
}

/**
 * SetDeploymentCondition: adds or replaces the condition of its type; nothing changes when one with the same
 * status and reason is there, and lastTransitionTime is kept when only the reason changed.
 */
export function setCondition(status: DeploymentStatus, condition: Condition): void {
  const current = getCondition(status, condition.type);
  if (current && current.status === condition.status && current.reason === condition.reason) return;
  const next = { ...condition };
  if (current && current.status === condition.status && current.lastTransitionTime !== undefined) {
    next.lastTransitionTime = current.lastTransitionTime;
  }
  status.conditions = [...(status.conditions ?? []).filter((c) => c.type !== condition.type), next];
}

export function removeCondition(status: DeploymentStatus, type: string): void {
  if (!status.conditions) return;
  status.conditions = status.conditions.filter((c) => c.type !== type);
}

/** ReplicaSetToDeploymentCondition (for ReplicaFailure). */
export function replicaSetConditionToDeployment(c: Condition): Condition {
  const out: Condition = { type: c.type, status: c.status };
  if (c.lastTransitionTime !== undefined) {
    out.lastUpdateTime = c.lastTransitionTime;
    out.lastTransitionTime = c.lastTransitionTime;
  }
  if (c.reason !== undefined) out.reason = c.reason;
  if (c.message !== undefined) out.message = c.message;
  return out;
}

export function hasProgressDeadline(d: Deployment): boolean {
  const s = d.spec.progressDeadlineSeconds;
  return s !== undefined && s !== null && s !== MAX_INT32;
}

export function hasRevisionHistoryLimit(d: Deployment): boolean {
  const l = d.spec.revisionHistoryLimit;
  return l !== undefined && l !== null && l !== MAX_INT32;
}

/** calculateStatus: the status the ReplicaSets show, with the Available condition brought up to date. */
export function calculateStatus(
  allRSs: readonly (ReplicaSet | undefined)[],
  newRS: ReplicaSet | undefined,
  d: Deployment,
  now: number,
): DeploymentStatus {
  const available = availableReplicas(allRSs);
  const unavailable = Math.max(0, specReplicas(allRSs) - available);
  const status: DeploymentStatus = {
    observedGeneration: d.metadata.generation ?? 0,
    replicas: actualReplicas(allRSs),
    updatedReplicas: actualReplicas([newRS]),
    readyReplicas: readyReplicas(allRSs),
    availableReplicas: available,
    unavailableReplicas: unavailable,
  };
  // Every count is omitempty in upstream's DeploymentStatus: a zero is not written (nor shown by kubectl).
  for (const k of COUNTS) if (status[k] === 0) delete status[k];
  if (d.status?.collisionCount !== undefined) status.collisionCount = d.status.collisionCount;
  if (d.status?.conditions) status.conditions = d.status.conditions.map((c) => ({ ...c }));
  if (available >= replicasOf(d) - maxUnavailable(d)) {
    setCondition(
      status,
      newCondition(
        now,
        DEPLOYMENT_AVAILABLE,
        'True',
        MINIMUM_REPLICAS_AVAILABLE,
        'Deployment has minimum availability.',
      ),
    );
  } else {
    setCondition(
      status,
      newCondition(
        now,
        DEPLOYMENT_AVAILABLE,
        'False',
        MINIMUM_REPLICAS_UNAVAILABLE,
        'Deployment does not have minimum availability.',
      ),
    );
  }
  return status;
}

/** DeploymentComplete: every desired replica updated and available, no old ones, the generation observed. */
export function deploymentComplete(d: Deployment, s: DeploymentStatus | undefined): boolean {
  const replicas = replicasOf(d);
  return (
    (s?.updatedReplicas ?? 0) === replicas &&
    (s?.replicas ?? 0) === replicas &&
    (s?.availableReplicas ?? 0) === replicas &&
    (s?.observedGeneration ?? 0) >= (d.metadata.generation ?? 0)
  );
}

/** DeploymentProgressing: new pods scaled up or ready or available, or old pods scaled down, since d.status. */
export function deploymentProgressing(d: Deployment, s: DeploymentStatus): boolean {
  const old = d.status ?? {};
  const oldOld = (old.replicas ?? 0) - (old.updatedReplicas ?? 0);
  const newOld = (s.replicas ?? 0) - (s.updatedReplicas ?? 0);
  return (
    (s.updatedReplicas ?? 0) > (old.updatedReplicas ?? 0) ||
    newOld < oldOld ||
    (s.readyReplicas ?? 0) > (old.readyReplicas ?? 0) ||
    (s.availableReplicas ?? 0) > (old.availableReplicas ?? 0)
  );
}

/** DeploymentTimedOut: no progress reported for progressDeadlineSeconds (or already reported as timed out). */
export function deploymentTimedOut(d: Deployment, s: DeploymentStatus, now: number): boolean {
  if (!hasProgressDeadline(d)) return false;
  const c = getCondition(s, DEPLOYMENT_PROGRESSING);
  if (!c) return false;
  if (c.reason === NEW_RS_AVAILABLE_REASON) return false;
  if (c.reason === TIMED_OUT_REASON) return true;
  const from = Date.parse(c.lastUpdateTime ?? '');
  if (Number.isNaN(from)) return false;
  return from + (d.spec.progressDeadlineSeconds ?? 0) * 1000 < now;
}
