/**
 * The patches the garbage collector sends (upstream's patch.go). A strategic merge patch is tried first; it names
 * the dependent's uid, so it cannot apply to another object recreated under the same name. Resources without
 * strategic merge support (custom resources) get a JSON merge patch instead, guarded by the resourceVersion.
 */
import type { OwnerReference } from '../../client/types.js';

/** Removes the ownerReferences with the given uids (`$patch: delete` by the merge key uid). */
export function deleteOwnerRefStrategicMergePatch(dependentUid: string, ownerUids: readonly string[]): unknown {
  return {
    metadata: {
      ownerReferences: ownerUids.map((uid) => ({ $patch: 'delete', uid })),
      uid: dependentUid,
    },
  };
}

/** The ownerReferences without those of the given uids, as a JSON merge patch at resourceVersion. */
export function deleteOwnerRefJsonMergePatch(
  resourceVersion: string,
  refs: readonly OwnerReference[],
  ownerUids: readonly string[],
): unknown {
  const remove = new Set(ownerUids);
  const kept = refs.filter((ref) => !remove.has(ref.uid));
  return { metadata: { resourceVersion, ownerReferences: kept.length > 0 ? kept : null } };
}

/** Sets blockOwnerDeletion: false on every blocking ownerReference of the node (strategic merge, by uid). */
export function unblockOwnerReferencesStrategicMergePatch(uid: string, owners: readonly OwnerReference[]): unknown {
  return {
    metadata: {
      ownerReferences: owners
        .filter((o) => o.blockOwnerDeletion === true)
        .map((o) => ({ ...o, blockOwnerDeletion: false })),
      uid,
    },
  };
}

/** Every ownerReference with blockOwnerDeletion: false, as a JSON merge patch at resourceVersion. */
export function unblockOwnerReferencesJsonMergePatch(
  resourceVersion: string,
  owners: readonly OwnerReference[],
): unknown {
  return {
    metadata: {
      resourceVersion,
      ownerReferences: owners.map((o) => ({ ...o, blockOwnerDeletion: false })),
    },
  };
}

/** Sets the finalizers at resourceVersion (a JSON merge patch; a stale resourceVersion answers Conflict). */
export function finalizersMergePatch(resourceVersion: string, finalizers: readonly string[]): unknown {
  return { metadata: { resourceVersion, finalizers: finalizers.length > 0 ? [...finalizers] : null } };
}
