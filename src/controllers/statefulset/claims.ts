/**
 * persistentVolumeClaimRetentionPolicy (GA since v1.32) as ownerReferences on a pod's claims, as upstream keeps
 * them, so the garbage collector does the deleting:
 *
 * | whenScaled | whenDeleted | owner of a claim of a pod in range | of a pod scaled away |
 * |---|---|---|---|
 * | Retain | Retain | none | none |
 * | Retain | Delete | the set | the set |
 * | Delete | Retain | none | the pod |
 * | Delete | Delete | the set | the pod |
 *
 * Claims held by an older set or pod of the same name (a stale uid) or controlled by something else are left alone.
 */
import type { OwnerReference } from '../../client/types.js';
import { newControllerRef } from '../common/controller-ref.js';
import { podInOrdinalRange } from './identity.js';
import { type ClaimTemplate, POD_KIND, type Pod, STATEFUL_SET_KIND, type StatefulSet } from './types.js';

type Owner = { metadata: { name?: string; uid?: string } };
type Kind = { apiVersion: string; kind: string };
type Claim = ClaimTemplate & { metadata: { ownerReferences?: OwnerReference[] } };

export function retentionPolicy(set: StatefulSet): { whenScaled: string; whenDeleted: string } {
  const policy = set.spec.persistentVolumeClaimRetentionPolicy;
  return { whenScaled: policy?.whenScaled ?? 'Retain', whenDeleted: policy?.whenDeleted ?? 'Retain' };
}

/** The reference names this object as an owner of this kind (name and kind; the uid may differ). */
function matchesRef(ref: OwnerReference, obj: Owner, kind: Kind): boolean {
  return ref.apiVersion === kind.apiVersion && ref.kind === kind.kind && ref.name === obj.metadata.name;
}

function refsOf(claim: Claim): OwnerReference[] {
  return claim.metadata?.ownerReferences ?? [];
}

export function hasOwnerRef(claim: Claim, owner: Owner): boolean {
  return refsOf(claim).some((ref) => ref.uid === owner.metadata.uid);
}

/** The claim names an owner of this name and kind with another uid: a previous incarnation holds it. */
export function hasStaleOwnerRef(claim: Claim, owner: Owner, kind: Kind): boolean {
  const ref = refsOf(claim).find((r) => matchesRef(r, owner, kind));
  return ref !== undefined && ref.uid !== owner.metadata.uid;
}

/** Under a Delete policy, something other than the set or the pod controls the claim (or a ref is stale). */
function hasUnexpectedController(claim: Claim, set: StatefulSet, pod: Pod): boolean {
  const policy = retentionPolicy(set);
  if (policy.whenScaled === 'Retain' && policy.whenDeleted === 'Retain') return false;
  for (const ref of refsOf(claim)) {
    if (matchesRef(ref, set, STATEFUL_SET_KIND)) {
      if (ref.uid !== set.metadata.uid) return true;
      continue;
    }
    if (matchesRef(ref, pod, POD_KIND)) {
      if (ref.uid !== pod.metadata.uid) return true;
      continue;
    }
    if (ref.controller === true) return true;
  }
  return false;
}

/** The set or the pod owns the claim without being its controller. */
function hasNonControllerOwner(claim: Claim, set: StatefulSet, pod: Pod): boolean {
  return refsOf(claim).some(
    (ref) => (ref.uid === set.metadata.uid || ref.uid === pod.metadata.uid) && ref.controller !== true,
  );
}

/** Whether the claim's ownerReferences already say what the set's retention policy asks for this pod. */
export function isClaimOwnerUpToDate(claim: Claim, set: StatefulSet, pod: Pod): boolean {
  if (hasStaleOwnerRef(claim, set, STATEFUL_SET_KIND) || hasStaleOwnerRef(claim, pod, POD_KIND)) return true;
  if (hasUnexpectedController(claim, set, pod)) {
    // Our own references must go; otherwise leave the other controller's claim alone.
    return !(hasOwnerRef(claim, set) || hasOwnerRef(claim, pod));
  }
  if (hasNonControllerOwner(claim, set, pod)) return false;
  const { setRef, podRef } = wantedRefs(set, pod);
  return hasOwnerRef(claim, set) === setRef && hasOwnerRef(claim, pod) === podRef;
}

/** Which of the set and the pod should own a claim of this pod. */
function wantedRefs(set: StatefulSet, pod: Pod): { setRef: boolean; podRef: boolean } {
  const { whenScaled, whenDeleted } = retentionPolicy(set);
  const scaledDown = !podInOrdinalRange(pod, set);
  if (whenScaled === 'Delete' && whenDeleted === 'Delete') return { setRef: !scaledDown, podRef: scaledDown };
  if (whenScaled === 'Delete') return { setRef: false, podRef: scaledDown };
  if (whenDeleted === 'Delete') return { setRef: true, podRef: false };
  return { setRef: false, podRef: false };
}

/** Rewrites the claim's references to the set and the pod as the retention policy asks (in place). */
export function updateClaimOwnerRefs(claim: Claim, set: StatefulSet, pod: Pod): void {
  const unexpected = hasUnexpectedController(claim, set, pod);
  const refs = refsOf(claim).filter(
    (ref) => !matchesRef(ref, set, STATEFUL_SET_KIND) && !matchesRef(ref, pod, POD_KIND),
  );
  if (!unexpected) {
    const { setRef, podRef } = wantedRefs(set, pod);
    if (setRef) refs.push(newControllerRef(set, STATEFUL_SET_KIND));
    if (podRef) refs.push(newControllerRef(pod, POD_KIND));
  }
  claim.metadata = { ...claim.metadata, ownerReferences: refs };
  if (refs.length === 0) delete claim.metadata.ownerReferences;
}
