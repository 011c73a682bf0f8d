/**
 * ControllerRefs (metadata.ownerReferences[] with controller: true) and the claim logic upstream's
 * BaseControllerRefManager implements: an owner (ReplicaSet, ReplicationController, Deployment…) keeps the children
 * it controls that still match its selector, adopts matching orphans, and releases children it controls that no
 * longer match. Generic over the child kind: pods for ReplicaSets, ReplicaSets for Deployments.
 *
 * API (stable; shared with the deployment controller):
 * - `getControllerOf(obj)`: the ownerReference with controller: true, if any.
 * - `newControllerRef(owner, kind)`: the ownerReference a controller puts on what it creates (controller and
 *   blockOwnerDeletion true).
 * - `CONTROLLER_UID_INDEX` / `controllerUidIndexFunc`: an informer index of objects by their controller's uid (share
 *   these exact values when adding the index, so that two controllers adding it to one informer do not conflict).
 * - `recheckDeletionTimestamp(getFresh)` and `ownerCanAdopt(client, owner, kind)`: the check made (once per claim)
 *   before adopting: a fresh GET of the owner must still have the same uid and no deletionTimestamp.
 * - `new ControllerRefManager({ owner, ownerKind, selector, children, canAdopt })` and `claim(children, filters?)`:
 *   resolves with the children the owner controls after adopting and releasing; rejects with a ClaimError
 *   (its `claimed` and `errors`) when some adoption or release failed — the caller should fail the sync and retry.
 *   Adoption is a strategic merge patch adding the owner's controllerRef (with the child's uid as a guard);
 *   release is one removing it (`$patch: delete` by uid); NotFound (child gone) and Invalid (uid changed) are
 *   ignored as upstream does.
 */
import type { LabelSelector } from '../../api/labels.js';
import { ApiError, isNotFound, type KubeObject, type OwnerReference, type ResourceClient } from '../../client/types.js';

/** apiVersion and kind of an owner, as its controllerRefs spell them (e.g. `apps/v1`, `ReplicaSet`). */
export interface GroupVersionKind {
  apiVersion: string;
  kind: string;
}

export function getControllerOf(obj: KubeObject): OwnerReference | undefined {
  return obj.metadata?.ownerReferences?.find((ref) => ref.controller === true);
}

/**
 * Whether an update of a pod leaves it controlled by an object of another kind than `kind`, before and after: a
 * controller of `kind` then has nothing to do with it (its controller references resolve to nothing, and only pods
 * without a controller are adopted). Lets a controller pass over the updates of other controllers' pods cheaply.
 */
export function controlledByOtherKind(old: KubeObject, cur: KubeObject, kind: string): boolean {
  const before = getControllerOf(old);
  const after = getControllerOf(cur);
  return before !== undefined && after !== undefined && before.kind !== kind && after.kind !== kind;
}

export function newControllerRef(owner: KubeObject, kind: GroupVersionKind): OwnerReference {
  return {
    apiVersion: kind.apiVersion,
    kind: kind.kind,
    name: owner.metadata.name ?? '',
    uid: owner.metadata.uid ?? '',
    controller: true,
    blockOwnerDeletion: true,
  };
}

/** Name of the index of objects by their controller's uid. */
export const CONTROLLER_UID_INDEX = 'controllerUID';

/** Indexes an object under its controller's uid (nothing for an object without a controller). */
export function controllerUidIndexFunc(obj: KubeObject): string[] {
  const ref = getControllerOf(obj);
  return ref ? [ref.uid] : [];
}

/**
 * A check that fetches the owner afresh and fails when it is being deleted (upstream's RecheckDeletionTimestamp):
 * a cached owner may be stale, and adopting for an owner about to go would leave children to the garbage collector.
 */
export function recheckDeletionTimestamp(getFresh: () => Promise<KubeObject>): () => Promise<void> {
  return async () => {
    let fresh: KubeObject;
    try {
      fresh = await getFresh();
    } catch (err) {
      throw new Error(`can't recheck DeletionTimestamp: ${errorMessage(err)}`);
    }
    const { namespace, name, deletionTimestamp } = fresh.metadata;
    if (deletionTimestamp)
      throw new Error(`${namespace ?? ''}/${name ?? ''} has just been deleted at ${deletionTimestamp}`);
  };
}

/**
 * The canAdopt check of an owner: a fresh GET through ownerClient must answer an object with the owner's uid and no
 * deletionTimestamp.
 */
export function ownerCanAdopt(
  ownerClient: ResourceClient,
  owner: KubeObject,
  kind: GroupVersionKind,
): () => Promise<void> {
  const { namespace = '', name = '', uid = '' } = owner.metadata;
  return recheckDeletionTimestamp(async () => {
    const client = namespace ? ownerClient.namespace(namespace) : ownerClient;
    const fresh = await client.get(name);
    if (fresh.metadata.uid !== uid) {
      throw new Error(
        `original ${kind.kind} ${namespace}/${name} is gone: got uid ${fresh.metadata.uid}, wanted ${uid}`,
      );
    }
    return fresh;
  });
}

/** Some adoptions or releases failed; `claimed` holds what the owner controls regardless. */
export class ClaimError<T extends KubeObject = KubeObject> extends Error {
  override name = 'ClaimError';
  constructor(
    readonly claimed: T[],
    readonly errors: unknown[],
  ) {
    super(aggregateMessage(errors));
  }
}

export interface ControllerRefManagerOptions {
  /** The owner, as cached. */
  owner: KubeObject;
  ownerKind: GroupVersionKind;
  /** The owner's selector over its children's labels. */
  selector: LabelSelector;
  /** The children's resource (any namespace scope; the child's namespace is used). */
  children: ResourceClient;
  /** Throws when adoption must not happen (see ownerCanAdopt); called at most once per manager. */
  canAdopt: () => Promise<void>;
  /** Finalizers to add on adoption and remove on release (upstream's Job controller uses one; others none). */
  finalizers?: string[];
}

export class ControllerRefManager<T extends KubeObject = KubeObject> {
  private canAdoptResult: Promise<void> | undefined;

  constructor(private readonly opts: ControllerRefManagerOptions) {}

  /** Runs the canAdopt check once and remembers its outcome. */
  canAdopt(): Promise<void> {
    this.canAdoptResult ??= this.opts.canAdopt();
    return this.canAdoptResult;
  }

  /**
   * The children this owner controls, after adopting matching orphans and releasing non-matching ones. Children
   * controlled by another owner are left alone. Rejects with ClaimError if any adoption or release failed.
   */
  async claim(children: readonly T[], ...filters: ((child: T) => boolean)[]): Promise<T[]> {
    const match = (child: T) => this.opts.selector.matches(child.metadata.labels) && filters.every((f) => f(child));
    // Most children are settled without a call (already this owner's and matching, or someone else's): only
    // adoptions and releases wait for the API, so a sync over thousands of pods makes no promise for each.
    const outcomes: (boolean | Promise<{ claimed: boolean; err?: unknown }>)[] = children.map((child) => {
      const settled = this.settledClaim(child, match);
      if (settled !== undefined) return settled;
      return this.claimObject(child, match).then(
        (claimed) => ({ claimed }),
        (err: unknown) => ({ claimed: false, err }),
      );
    });
    const claimed: T[] = [];
    const errors: unknown[] = [];
    for (let i = 0; i < children.length; i++) {
      const outcome = outcomes[i] as boolean | Promise<{ claimed: boolean; err?: unknown }>;
      const { claimed: ok, err } = typeof outcome === 'boolean' ? { claimed: outcome, err: undefined } : await outcome;
      if (ok) claimed.push(children[i] as T);
      if (err !== undefined) errors.push(err);
    }
    if (errors.length > 0) throw new ClaimError(claimed, errors);
    return claimed;
  }

  /** claimObject's answer when it needs no API call (no adoption or release); undefined when it does. */
  private settledClaim(child: T, match: (child: T) => boolean): boolean | undefined {
    const owner = this.opts.owner.metadata;
    const ref = getControllerOf(child);
    if (ref) {
      if (ref.uid !== owner.uid) return false; // someone else's
      if (match(child)) return true;
      return owner.deletionTimestamp ? false : undefined; // an owner being deleted releases nothing
    }
    // An orphan.
    if (owner.deletionTimestamp || !match(child)) return false;
    if (child.metadata.deletionTimestamp) return false;
    if (owner.namespace && owner.namespace !== child.metadata.namespace) return false;
    return undefined;
  }

  /** Upstream's ClaimObject for one child: whether the owner controls it afterwards. */
  async claimObject(child: T, match: (child: T) => boolean): Promise<boolean> {
    const settled = this.settledClaim(child, match);
    if (settled !== undefined) return settled;
    // This owner's child that no longer matches is released; a matching orphan is adopted.
    const release = getControllerOf(child) !== undefined;
    try {
      if (release) await this.release(child);
      else await this.adopt(child);
    } catch (err) {
      if (isNotFound(err)) return false;
      throw err;
    }
    return !release;
  }

  /** Makes the owner the child's controller. */
  async adopt(child: T): Promise<void> {
    const { namespace = '', name = '', uid = '' } = child.metadata;
    try {
      await this.canAdopt();
    } catch (err) {
      throw new Error(`can't adopt ${childKind(child)} ${namespace}/${name} (${uid}): ${errorMessage(err)}`);
    }
    const finalizers = this.opts.finalizers ?? [];
    const patch = {
      metadata: {
        ownerReferences: [newControllerRef(this.opts.owner, this.opts.ownerKind)],
        uid,
        ...(finalizers.length > 0 ? { finalizers } : {}),
      },
    };
    await this.childClient(namespace).patch(name, 'strategic', patch);
  }

  /** Removes the owner's reference from the child. */
  async release(child: T): Promise<void> {
    const { namespace = '', name = '', uid = '' } = child.metadata;
    const finalizers = this.opts.finalizers ?? [];
    const patch = {
      metadata: {
        uid,
        ownerReferences: [{ $patch: 'delete', uid: this.opts.owner.metadata.uid ?? '' }],
        ...(finalizers.length > 0 ? { '$deleteFromPrimitiveList/finalizers': finalizers } : {}),
      },
    };
    try {
      await this.childClient(namespace).patch(name, 'strategic', patch);
    } catch (err) {
      // Gone, or recreated under another uid (Invalid): either way nothing is left to release.
      if (isNotFound(err)) return;
      if (err instanceof ApiError && err.reason === 'Invalid') return;
      throw err;
    }
  }

  private childClient(namespace: string): ResourceClient {
    return namespace ? this.opts.children.namespace(namespace) : this.opts.children;
  }
}

function childKind(child: KubeObject): string {
  return child.kind ?? 'object';
}

function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** apimachinery's aggregate error text: the one message, or `[a, b]`. */
export function aggregateMessage(errors: readonly unknown[]): string {
  const messages = errors.map(errorMessage);
  return messages.length === 1 ? (messages[0] ?? '') : `[${messages.join(', ')}]`;
}
