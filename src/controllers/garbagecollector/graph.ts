/**
 * The garbage collector's dependency graph (upstream's graph.go): one node per object uid, with the object's
 * ownerReferences and the set of nodes that name it as an owner. A node is "virtual" while it stands for an owner
 * that dependents reference but that no informer has reported yet; the collector asks the apiserver whether it exists.
 */
import type { OwnerReference } from '../../client/types.js';

/** Where an object is: the coordinates of an ownerReference plus the namespace ('' for cluster-scoped objects). */
export interface ObjectReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  namespace: string;
}

/** The part of an ownerReference that says which object it is (without controller and blockOwnerDeletion). */
export function ownerReferenceCoordinates(ref: OwnerReference): Omit<ObjectReference, 'namespace'> {
  return { apiVersion: ref.apiVersion, kind: ref.kind, name: ref.name, uid: ref.uid };
}

/** Whether two references name the same object by uid, name, kind and apiVersion. */
export function ownerReferenceMatchesCoordinates(
  a: Pick<OwnerReference, 'apiVersion' | 'kind' | 'name' | 'uid'>,
  b: Pick<OwnerReference, 'apiVersion' | 'kind' | 'name' | 'uid'>,
): boolean {
  return a.uid === b.uid && a.name === b.name && a.kind === b.kind && a.apiVersion === b.apiVersion;
}

export function sameReference(a: ObjectReference, b: ObjectReference): boolean {
  return ownerReferenceMatchesCoordinates(a, b) && a.namespace === b.namespace;
}

/** Upstream's rendering of an objectReference in logs and event messages. */
export function formatReference(ref: ObjectReference): string {
  return `[${ref.apiVersion}/${ref.kind}, namespace: ${ref.namespace}, name: ${ref.name}, uid: ${ref.uid}]`;
}

/** A string that identifies a reference exactly, for maps and sets. */
export function referenceKey(ref: ObjectReference): string {
  return JSON.stringify([ref.apiVersion, ref.kind, ref.namespace, ref.name, ref.uid]);
}

export class GraphNode {
  identity: ObjectReference;
  /** Nodes whose ownerReferences name this node. */
  dependents = new Set<GraphNode>();
  /** The object's ownerReferences as last observed (empty for a virtual node). */
  owners: OwnerReference[] = [];
  /** The object is being deleted and holds the foregroundDeletion finalizer: it waits for its dependents. */
  deletingDependents = false;
  /** The object has a deletionTimestamp. */
  beingDeleted = false;
  /** Not yet observed through an informer. */
  virtual: boolean;

  constructor(identity: ObjectReference, opts: { virtual?: boolean; owners?: OwnerReference[] } = {}) {
    this.identity = { ...identity };
    this.virtual = opts.virtual ?? false;
    this.owners = opts.owners ?? [];
  }

  isObserved(): boolean {
    return !this.virtual;
  }

  markObserved(): void {
    this.virtual = false;
  }

  isBeingDeleted(): boolean {
    return this.beingDeleted;
  }

  markBeingDeleted(): void {
    this.beingDeleted = true;
  }

  isDeletingDependents(): boolean {
    return this.deletingDependents;
  }

  markDeletingDependents(): void {
    this.deletingDependents = true;
  }

  /** A copy with its own dependents set and owners list (the same dependent nodes). */
  clone(): GraphNode {
    const copy = new GraphNode(this.identity, { virtual: this.virtual, owners: [...this.owners] });
    copy.dependents = new Set(this.dependents);
    copy.deletingDependents = this.deletingDependents;
    copy.beingDeleted = this.beingDeleted;
    return copy;
  }

  getDependents(): GraphNode[] {
    return [...this.dependents];
  }

  replaceDependentIfItExists(from: GraphNode, to: GraphNode): void {
    if (this.dependents.delete(from)) this.dependents.add(to);
  }

  /** Dependents whose reference to this node has blockOwnerDeletion: true. */
  blockingDependents(): GraphNode[] {
    return this.getDependents().filter((dep) =>
      dep.owners.some((ref) => ref.uid === this.identity.uid && ref.blockOwnerDeletion === true),
    );
  }

  toString(): string {
    return `${formatReference(this.identity)}${this.virtual ? ' (virtual)' : ''}`;
  }
}

/** Owners known not to exist (upstream's absentOwnerCache): a small LRU of references. */
export class ReferenceCache {
  private readonly entries = new Map<string, true>();

  constructor(private readonly maxSize: number) {}

  add(ref: ObjectReference): void {
    const key = referenceKey(ref);
    this.entries.delete(key);
    this.entries.set(key, true);
    while (this.entries.size > this.maxSize) {
      const oldest = this.entries.keys().next();
      if (oldest.done) break;
      this.entries.delete(oldest.value);
    }
  }

  has(ref: ObjectReference): boolean {
    const key = referenceKey(ref);
    if (!this.entries.has(key)) return false;
    this.entries.delete(key);
    this.entries.set(key, true);
    return true;
  }
}

/**
 * Splits dependents into those whose reference to the owner matches identity, and those that reference its uid
 * with other coordinates or from another namespace (a dependent can be in both).
 */
export function partitionDependents(
  dependents: readonly GraphNode[],
  identity: ObjectReference,
): { matching: GraphNode[]; nonmatching: GraphNode[] } {
  const matching: GraphNode[] = [];
  const nonmatching: GraphNode[] = [];
  const ownerNamespaced = identity.namespace !== '';
  for (const dep of dependents) {
    let match = false;
    let mismatch = false;
    if (ownerNamespaced && identity.namespace !== dep.identity.namespace) {
      mismatch = true;
    } else {
      for (const ref of dep.owners) {
        if (ref.uid !== identity.uid) continue;
        if (ownerReferenceMatchesCoordinates(ref, identity)) match = true;
        else mismatch = true;
      }
    }
    if (match) matching.push(dep);
    if (mismatch) nonmatching.push(dep);
  }
  return { matching, nonmatching };
}

function referenceLessThan(a: ObjectReference, b: ObjectReference): boolean {
  if (a.kind !== b.kind) return a.kind < b.kind;
  if (a.apiVersion !== b.apiVersion) return a.apiVersion < b.apiVersion;
  if (a.namespace !== b.namespace) return a.namespace < b.namespace;
  if (a.name !== b.name) return a.name < b.name;
  return a.uid < b.uid;
}

/**
 * Another identity the dependents give the owner uid of a verified-absent identity: the first that sorts after it,
 * else the first of all; undefined when there is none.
 */
export function alternateOwnerIdentity(
  dependents: readonly GraphNode[],
  absent: ObjectReference,
): ObjectReference | undefined {
  const absentClusterScoped = absent.namespace === '';
  const seen = new Set<string>([referenceKey(absent)]);
  let first: ObjectReference | undefined;
  let firstFollowing: ObjectReference | undefined;
  for (const dep of dependents) {
    for (const ref of dep.owners) {
      if (ref.uid !== absent.uid) continue;
      if (
        ownerReferenceMatchesCoordinates(ref, absent) &&
        (absentClusterScoped || absent.namespace === dep.identity.namespace)
      ) {
        continue;
      }
      const alt: ObjectReference = { ...ownerReferenceCoordinates(ref), namespace: dep.identity.namespace };
      // An apiVersion/kind seen to be cluster-scoped stays cluster-scoped.
      if (absentClusterScoped && alt.apiVersion === absent.apiVersion && alt.kind === absent.kind) alt.namespace = '';
      const key = referenceKey(alt);
      if (seen.has(key)) continue;
      seen.add(key);
      if (!first || referenceLessThan(alt, first)) first = alt;
      if (referenceLessThan(absent, alt) && (!firstFollowing || referenceLessThan(alt, firstFollowing))) {
        firstFollowing = alt;
      }
    }
  }
  return firstFollowing ?? first;
}
