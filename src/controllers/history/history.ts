/**
 * ControllerHistory: a controller's history of ControllerRevisions through the API (upstream's realHistory). Reads
 * come from a ControllerRevision informer's indexer; writes go to the apiserver.
 *
 * - `list(parent, selector)`: the revisions in parent's namespace matching selector that parent controls or that
 *   have no controller (orphans the caller may adopt).
 * - `create(parent, revision, collisionCount)`: creates the revision named `<parent>-<hash>` (the hash covers the data
 *   and collisionCount). On a name clash with equal data the existing revision is the answer; otherwise the count is
 *   bumped and the name computed again. Resolves with the revision and the collision count reached, which the caller
 *   writes to its status.collisionCount.
 * - `update(revision, n)`: sets the revision number, retrying on conflicts with the cached copy.
 * - `delete(revision)`, `adopt(parent, kind, revision)`, `release(parent, revision)`.
 */
import type { LabelSelector } from '../../api/labels.js';
import type { Indexer } from '../../client/cache/store.js';
import type { KubeObject } from '../../client/types.js';
import { ApiError, isAlreadyExists, isConflict, isNotFound, type ResourceClient } from '../../client/types.js';
import { type GroupVersionKind, getControllerOf, newControllerRef } from '../common/controller-ref.js';
import { controllerRevisionName, hashControllerRevision, revisionDataBytes } from './hash.js';
import type { ControllerRevision } from './revisions.js';

/** The apps/v1 controllerrevisions resource, for informers. */
export const CONTROLLER_REVISIONS = { group: 'apps', version: 'v1', resource: 'controllerrevisions' };

/** How many times update retries on conflict (client-go's retry.DefaultBackoff steps). */
const UPDATE_ATTEMPTS = 4;

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((v, i) => v === b[i]);
}

export class ControllerHistory {
  constructor(
    /** apps/v1 controllerrevisions (any namespace scope; the object's namespace is used). */
    private readonly client: ResourceClient,
    /** The ControllerRevision informer's indexer (with the namespace index). */
    private readonly indexer: Indexer,
  ) {}

  private ns(namespace: string | undefined): ResourceClient {
    return this.client.namespace(namespace ?? '');
  }

  list(parent: KubeObject, selector: LabelSelector): ControllerRevision[] {
    const out: ControllerRevision[] = [];
    for (const r of this.indexer.byIndex('namespace', parent.metadata.namespace ?? '')) {
      if (!selector.matches(r.metadata.labels)) continue;
      const ref = getControllerOf(r);
      if (!ref || ref.uid === parent.metadata.uid) out.push(r as ControllerRevision);
    }
    return out;
  }

  async create(
    parent: KubeObject,
    revision: ControllerRevision,
    collisionCount: number,
  ): Promise<{ revision: ControllerRevision; collisionCount: number }> {
    const clone = structuredClone(revision);
    clone.metadata.namespace = parent.metadata.namespace;
    const bytes = revisionDataBytes(clone.data);
    let count = collisionCount;
    for (;;) {
      clone.metadata.name = controllerRevisionName(parent.metadata.name ?? '', hashControllerRevision(revision, count));
      try {
        const created = (await this.ns(parent.metadata.namespace).create(clone)) as ControllerRevision;
        return { revision: created, collisionCount: count };
      } catch (err) {
        if (!isAlreadyExists(err)) throw err;
      }
      const exists = (await this.ns(parent.metadata.namespace).get(clone.metadata.name)) as ControllerRevision;
      if (sameBytes(revisionDataBytes(exists.data), bytes)) return { revision: exists, collisionCount: count };
      count++;
    }
  }

  async update(revision: ControllerRevision, newRevision: number): Promise<ControllerRevision> {
    let clone = structuredClone(revision);
    for (let attempt = 1; ; attempt++) {
      if (clone.revision === newRevision) return clone;
      clone.revision = newRevision;
      try {
        return (await this.ns(clone.metadata.namespace).update(clone)) as ControllerRevision;
      } catch (err) {
        if (!isConflict(err) || attempt >= UPDATE_ATTEMPTS) throw err;
        const cached = this.indexer.getByKey(`${clone.metadata.namespace ?? ''}/${clone.metadata.name ?? ''}`);
        clone = structuredClone(
          (cached ?? (await this.ns(clone.metadata.namespace).get(clone.metadata.name ?? ''))) as ControllerRevision,
        );
      }
    }
  }

  async delete(revision: ControllerRevision): Promise<void> {
    await this.ns(revision.metadata.namespace).delete(revision.metadata.name ?? '');
  }

  /** Makes parent the revision's controller; refuses a revision that already has one. */
  async adopt(
    parent: KubeObject,
    parentKind: GroupVersionKind,
    revision: ControllerRevision,
  ): Promise<ControllerRevision> {
    const owner = getControllerOf(revision);
    if (owner) throw new Error(`attempt to adopt revision owned by ${JSON.stringify(owner)}`);
    const patch = { metadata: { ownerReferences: [newControllerRef(parent, parentKind)], uid: revision.metadata.uid } };
    return (await this.ns(parent.metadata.namespace).patch(
      revision.metadata.name ?? '',
      'strategic',
      patch,
    )) as ControllerRevision;
  }

  /** Drops parent's reference from the revision; a revision gone or no longer parent's is left alone. */
  async release(parent: KubeObject, revision: ControllerRevision): Promise<ControllerRevision | undefined> {
    const patch = {
      metadata: { ownerReferences: [{ $patch: 'delete', uid: parent.metadata.uid }], uid: revision.metadata.uid },
    };
    try {
      return (await this.ns(revision.metadata.namespace).patch(
        revision.metadata.name ?? '',
        'strategic',
        patch,
      )) as ControllerRevision;
    } catch (err) {
      if (isNotFound(err)) return undefined;
      if (err instanceof ApiError && err.reason === 'Invalid') return undefined;
      throw err;
    }
  }
}
