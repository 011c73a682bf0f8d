/**
 * The annotations the deployment controller keeps on ReplicaSets and Deployments: the revision (and, for a
 * ReplicaSet that was rolled back to, the revisions it served before), desired-replicas and max-replicas, and
 * the Deployment's own annotations copied to its new ReplicaSet (kubectl's change-cause among them).
 */
import { maxSurge } from './fenceposts.js';
import {
  DEPRECATED_ROLLBACK_TO_ANNOTATION,
  DESIRED_REPLICAS_ANNOTATION,
  type Deployment,
  LAST_APPLIED_CONFIG_ANNOTATION,
  MAX_REPLICAS_ANNOTATION,
  REVISION_ANNOTATION,
  REVISION_HISTORY_ANNOTATION,
  type ReplicaSet,
  replicasOf,
} from './types.js';

/** Upstream keeps revision-history to about 100 entries. */
export const MAX_REVISION_HISTORY_CHARS = 2000;

/** Deployment annotations never copied to ReplicaSets. */
const SKIPPED = new Set([
  LAST_APPLIED_CONFIG_ANNOTATION,
  REVISION_ANNOTATION,
  REVISION_HISTORY_ANNOTATION,
  DESIRED_REPLICAS_ANNOTATION,
  MAX_REPLICAS_ANNOTATION,
  DEPRECATED_ROLLBACK_TO_ANNOTATION,
]);

function annotationsOf(obj: { metadata: { annotations?: Record<string, string> } }): Record<string, string> {
  obj.metadata.annotations ??= {};
  return obj.metadata.annotations;
}

/** Copies the Deployment's annotations (but the skipped ones) to rs; true when rs changed. */
function copyDeploymentAnnotations(d: Deployment, rs: ReplicaSet): boolean {
  const target = annotationsOf(rs);
  let changed = false;
  for (const [k, v] of Object.entries(d.metadata.annotations ?? {})) {
    if (SKIPPED.has(k) || target[k] === v) continue;
    target[k] = v;
    changed = true;
  }
  return changed;
}

const parseInt64 = (s: string): number | undefined => (/^[+-]?\d+$/.test(s) ? Number(s) : undefined);

/**
 * SetNewReplicaSetAnnotations: copies the Deployment's annotations to its new ReplicaSet and raises the
 * ReplicaSet's revision to newRevision when lower, remembering the revision it had in revision-history (a
 * rollback); a ReplicaSet about to be created also gets desired-replicas and max-replicas. True when rs changed.
 */
export function setNewReplicaSetAnnotations(
  d: Deployment,
  rs: ReplicaSet,
  newRevision: string,
  exists: boolean,
  historyLimitChars = MAX_REVISION_HISTORY_CHARS,
): boolean {
  let changed = copyDeploymentAnnotations(d, rs);
  const annotations = annotationsOf(rs);
  const oldRevision = annotations[REVISION_ANNOTATION];
  let oldRevisionInt = 0;
  if (oldRevision !== undefined && oldRevision !== '') {
    const parsed = parseInt64(oldRevision);
    if (parsed === undefined) return false;
    oldRevisionInt = parsed;
  }
  const newRevisionInt = parseInt64(newRevision);
  if (newRevisionInt === undefined) return false;
  if (oldRevisionInt < newRevisionInt) {
    annotations[REVISION_ANNOTATION] = newRevision;
    changed = true;
    if (oldRevision !== undefined) {
      const history = annotations[REVISION_HISTORY_ANNOTATION] ?? '';
      if (history === '') {
        annotations[REVISION_HISTORY_ANNOTATION] = oldRevision;
      } else {
        const revisions = history.split(',');
        let total = history.length + oldRevision.length + 1;
        let start = 0;
        while (total > historyLimitChars && start < revisions.length) {
          total -= (revisions[start]?.length ?? 0) + 1;
          start++;
        }
        if (total <= historyLimitChars) {
          annotations[REVISION_HISTORY_ANNOTATION] = [...revisions.slice(start), oldRevision].join(',');
        }
      }
    }
  }
  if (!exists && setReplicasAnnotations(rs, replicasOf(d), replicasOf(d) + maxSurge(d))) changed = true;
  return changed;
}

/** SetReplicasAnnotations: desired-replicas and max-replicas; true when either changed. */
export function setReplicasAnnotations(rs: ReplicaSet, desired: number, max: number): boolean {
  const annotations = annotationsOf(rs);
  let changed = false;
  if (annotations[DESIRED_REPLICAS_ANNOTATION] !== String(desired)) {
    annotations[DESIRED_REPLICAS_ANNOTATION] = String(desired);
    changed = true;
  }
  if (annotations[MAX_REPLICAS_ANNOTATION] !== String(max)) {
    annotations[MAX_REPLICAS_ANNOTATION] = String(max);
    changed = true;
  }
  return changed;
}

export function replicasAnnotationsNeedUpdate(rs: ReplicaSet, desired: number, max: number): boolean {
  const annotations = rs.metadata.annotations;
  return (
    annotations?.[DESIRED_REPLICAS_ANNOTATION] !== String(desired) ||
    annotations?.[MAX_REPLICAS_ANNOTATION] !== String(max)
  );
}

/** An integer annotation (desired-replicas, max-replicas), or undefined when absent or not a number. */
export function intAnnotation(rs: ReplicaSet, key: string): number | undefined {
  const v = rs.metadata.annotations?.[key];
  return v === undefined ? undefined : parseInt64(v);
}

/** SetDeploymentRevision: true when the Deployment's revision annotation changed. */
export function setDeploymentRevision(d: Deployment, revision: string | undefined): boolean {
  const annotations = annotationsOf(d);
  if (annotations[REVISION_ANNOTATION] === revision) return false;
  if (revision === undefined) delete annotations[REVISION_ANNOTATION];
  else annotations[REVISION_ANNOTATION] = revision;
  return true;
}
