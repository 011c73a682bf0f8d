/**
 * A Deployment's ReplicaSets: which is new (its template equals the Deployment's) and which are old, upstream's
 * orderings, the revision each carries, and the replica counts summed over them.
 */
import { equalIgnoreHash } from './hash.js';
import { type Deployment, REVISION_ANNOTATION, type ReplicaSet, replicasOf } from './types.js';

const created = (rs: ReplicaSet) => Date.parse(rs.metadata.creationTimestamp ?? '') || 0;

/** controller.ReplicaSetsByCreationTimestamp: oldest first, then by name. */
export function byCreationTimestamp(a: ReplicaSet, b: ReplicaSet): number {
  const d = created(a) - created(b);
  if (d !== 0) return d;
  const na = a.metadata.name ?? '';
  const nb = b.metadata.name ?? '';
  return na < nb ? -1 : na > nb ? 1 : 0;
}

/** controller.ReplicaSetsBySizeOlder: largest first; of equal size the older first. */
export function bySizeOlder(a: ReplicaSet, b: ReplicaSet): number {
  const d = replicasOf(b) - replicasOf(a);
  return d !== 0 ? d : byCreationTimestamp(a, b);
}

/** controller.ReplicaSetsBySizeNewer: largest first; of equal size the newer first. */
export function bySizeNewer(a: ReplicaSet, b: ReplicaSet): number {
  const d = replicasOf(b) - replicasOf(a);
  return d !== 0 ? d : byCreationTimestamp(b, a);
}

/** The revision annotation as a number: 0 when absent, undefined when it is not an integer. */
export function revisionOf(obj: { metadata: { annotations?: Record<string, string> } }): number | undefined {
  const v = obj.metadata.annotations?.[REVISION_ANNOTATION];
  if (v === undefined) return 0;
  return /^[+-]?\d+$/.test(v) ? Number(v) : undefined;
}

/** deploymentutil.ReplicaSetsByRevision: lowest revision first; unparsable or equal ones by creation. */
export function byRevision(a: ReplicaSet, b: ReplicaSet): number {
  const ra = revisionOf(a);
  const rb = revisionOf(b);
  if (ra === undefined || rb === undefined || ra === rb) return byCreationTimestamp(a, b);
  return ra - rb;
}

/** MaxRevision: the highest revision among the ReplicaSets (unparsable ones skipped). */
export function maxRevision(sets: readonly ReplicaSet[]): number {
  let max = 0;
  for (const rs of sets) {
    const v = revisionOf(rs);
    if (v !== undefined && v > max) max = v;
  }
  return max;
}

/** FilterActiveReplicaSets: those with spec.replicas > 0. */
export function activeReplicaSets(sets: readonly (ReplicaSet | undefined)[]): ReplicaSet[] {
  return sets.filter((rs): rs is ReplicaSet => rs !== undefined && replicasOf(rs) > 0);
}

/** FindNewReplicaSet: the oldest ReplicaSet whose template equals the Deployment's (hash label aside). */
export function findNewReplicaSet(d: Deployment, sets: readonly ReplicaSet[]): ReplicaSet | undefined {
  return [...sets].sort(byCreationTimestamp).find((rs) => equalIgnoreHash(rs.spec.template, d.spec.template));
}

/** FindOldReplicaSets: [the old ones with replicas, all old ones]. */
export function findOldReplicaSets(d: Deployment, sets: readonly ReplicaSet[]): [ReplicaSet[], ReplicaSet[]] {
  const newRS = findNewReplicaSet(d, sets);
  const all = sets.filter((rs) => !newRS || rs.metadata.uid !== newRS.metadata.uid);
  return [all.filter((rs) => replicasOf(rs) !== 0), all];
}

type Sets = readonly (ReplicaSet | undefined)[];
const sum = (sets: Sets, f: (rs: ReplicaSet) => number) => sets.reduce((n, rs) => (rs ? n + f(rs) : n), 0 as number);

/** The sum of spec.replicas. */
export const specReplicas = (sets: Sets) => sum(sets, replicasOf);
/** The sum of status.replicas (pods that exist). */
export const actualReplicas = (sets: Sets) => sum(sets, (rs) => rs.status?.replicas ?? 0);
export const readyReplicas = (sets: Sets) => sum(sets, (rs) => rs.status?.readyReplicas ?? 0);
export const availableReplicas = (sets: Sets) => sum(sets, (rs) => rs.status?.availableReplicas ?? 0);
