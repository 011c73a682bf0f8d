/**
 * The replica arithmetic of a Deployment, as pure functions: how far the new ReplicaSet may grow in a rolling
 * update, when it is saturated, and how a change of spec.replicas in the middle of a rollout is spread over the
 * active ReplicaSets in proportion to their sizes (upstream's proportional scaling).
 */
import { intAnnotation } from './annotations.js';
import { maxSurge, valueFromIntOrPercent } from './fenceposts.js';
import { activeReplicaSets, byCreationTimestamp, bySizeNewer, bySizeOlder, specReplicas } from './replica-sets.js';
import {
  DESIRED_REPLICAS_ANNOTATION,
  type Deployment,
  MAX_REPLICAS_ANNOTATION,
  type ReplicaSet,
  replicasOf,
} from './types.js';

/** Go's math.Round: halves away from zero. */
const roundHalfAway = (x: number) => Math.sign(x) * Math.round(Math.abs(x));

/** NewRSNewReplicas: the size the new ReplicaSet should have now. */
export function newRSNewReplicas(d: Deployment, allRSs: readonly ReplicaSet[], newRS: ReplicaSet): number {
  const replicas = replicasOf(d);
  const type = d.spec.strategy?.type;
  if (type === 'Recreate') return replicas;
  if (type !== 'RollingUpdate') throw new Error(`deployment type ${type} isn't supported`);
  const surge = valueFromIntOrPercent(d.spec.strategy?.rollingUpdate?.maxSurge, replicas, true);
  const current = specReplicas(allRSs);
  const maxTotal = replicas + surge;
  if (current >= maxTotal) return replicasOf(newRS);
  const scaleUp = Math.min(maxTotal - current, replicas - replicasOf(newRS));
  return replicasOf(newRS) + scaleUp;
}

/** IsSaturated: the new ReplicaSet has (and believes it should have) all the replicas, all available. */
export function isSaturated(d: Deployment, rs: ReplicaSet | undefined): boolean {
  if (!rs) return false;
  const desired = intAnnotation(rs, DESIRED_REPLICAS_ANNOTATION);
  if (desired === undefined) return false;
  const replicas = replicasOf(d);
  return replicasOf(rs) === replicas && desired === replicas && (rs.status?.availableReplicas ?? 0) === replicas;
}

/** FindActiveOrLatest: the only active ReplicaSet, or the newest when none is active; undefined when several are. */
export function findActiveOrLatest(
  newRS: ReplicaSet | undefined,
  oldRSs: readonly ReplicaSet[],
): ReplicaSet | undefined {
  if (!newRS && oldRSs.length === 0) return undefined;
  const newestFirst = [...oldRSs].sort((a, b) => byCreationTimestamp(b, a));
  const active = activeReplicaSets([...newestFirst, newRS]);
  if (active.length === 0) return newRS ?? newestFirst[0];
  return active.length === 1 ? active[0] : undefined;
}

/** getReplicaSetFraction: how many replicas rs should gain (or lose) for the Deployment's new size. */
function replicaSetFraction(rs: ReplicaSet, d: Deployment): number {
  if (replicasOf(d) === 0) return -replicasOf(rs);
  const deploymentMax = replicasOf(d) + maxSurge(d);
  let maxBefore = intAnnotation(rs, MAX_REPLICAS_ANNOTATION);
  if (maxBefore === undefined || maxBefore === 0) {
    maxBefore = d.status?.replicas ?? 0;
    if (maxBefore === 0) return 0;
  }
  return roundHalfAway((replicasOf(rs) * deploymentMax) / maxBefore) - replicasOf(rs);
}

/** GetReplicaSetProportion: rs's share of toAdd, given that `added` has been handed out already. */
export function replicaSetProportion(rs: ReplicaSet, d: Deployment, toAdd: number, added: number): number {
  if (replicasOf(rs) === 0 || toAdd === 0 || toAdd === added) return 0;
  const fraction = replicaSetFraction(rs, d);
  const allowed = toAdd - added;
  return toAdd > 0 ? Math.min(fraction, allowed) : Math.max(fraction, allowed);
}

export interface ScalePlan {
  /** 'up', 'down' or '' (nothing to add or remove), for the event message. */
  operation: 'up' | 'down' | '';
  /** Every active ReplicaSet with the size it should get, in the order to scale them. */
  sizes: { rs: ReplicaSet; size: number }[];
}

/**
 * The proportional part of upstream's scale(): spreads the difference between the allowed size
 * (spec.replicas + maxSurge) and the active ReplicaSets' total over them by their share of the size the
 * Deployment had (their max-replicas annotation); leftovers go to the largest. Only for rolling updates.
 */
export function proportionalScale(
  d: Deployment,
  newRS: ReplicaSet | undefined,
  oldRSs: readonly ReplicaSet[],
): ScalePlan {
  const all = activeReplicaSets([...oldRSs, newRS]);
  const allowed = replicasOf(d) > 0 ? replicasOf(d) + maxSurge(d) : 0;
  const toAdd = allowed - specReplicas(all);
  let operation: ScalePlan['operation'] = '';
  if (toAdd > 0) {
    all.sort(bySizeNewer);
    operation = 'up';
  } else if (toAdd < 0) {
    all.sort(bySizeOlder);
    operation = 'down';
  }
  let added = 0;
  const sizes = all.map((rs) => {
    if (toAdd === 0) return { rs, size: replicasOf(rs) };
    const proportion = replicaSetProportion(rs, d, toAdd, added);
    added += proportion;
    return { rs, size: replicasOf(rs) + proportion };
  });
  const first = sizes[0];
  if (first && toAdd !== 0) first.size = Math.max(0, first.size + toAdd - added);
  return { operation, sizes };
}
