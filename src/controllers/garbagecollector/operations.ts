/**
 * The garbage collector's API calls (upstream's operations.go and patch.go): GET, PATCH and DELETE of any object
 * by its identity, through the resource the REST mapper gives for its apiVersion and kind.
 */
import type { KubeClient } from '../../client/rest.js';
import {
  ApiError,
  type DeleteOptions,
  isConflict,
  isNotFound,
  type KubeObject,
  type OwnerReference,
  type ResourceClient,
} from '../../client/types.js';
import type { Logger } from '../../util/logger.js';
import { formatReference, type GraphNode, type ObjectReference } from './graph.js';
import type { GraphBuilder } from './graph-builder.js';
import { finalizersMergePatch } from './patches.js';
import { type ResourceMapping, type RestMapper, resourceKey } from './resources.js';

/** client-go's retry.DefaultBackoff (4 steps from 10 ms, factor 5) for finalizer removal on conflicts. */
const UPDATE_MAX_RETRIES = 4;
const UPDATE_RETRY_BASE_MS = 10;

/** A cluster-scoped object names a namespaced owner: invalid, and not worth retrying. */
export class NamespacedOwnerOfClusterScopedObjectError extends Error {
  constructor() {
    super('cluster-scoped objects cannot refer to namespaced owners');
  }
}

export interface ObjectOperationsOptions {
  client: KubeClient;
  /** The current REST mapper (replaced by each discovery). */
  mapper(): RestMapper;
  /** For cached copies of objects (the JSON merge patch fallback). */
  builder: GraphBuilder;
  logger: Logger;
  sleep(ms: number): Promise<void>;
}

const sameJson = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

export class ObjectOperations {
  constructor(private readonly opts: ObjectOperationsOptions) {}

  clientFor(mapping: ResourceMapping, namespace: string): ResourceClient {
    const client = this.opts.client.resource(mapping.gvr, { namespaced: mapping.namespaced });
    return mapping.namespaced ? client.namespace(namespace) : client;
  }

  /** The client for the object identity names; throws for a namespaced kind without a namespace. */
  resourceClient(identity: ObjectReference): { client: ResourceClient; mapping: ResourceMapping } {
    const mapping = this.opts.mapper().mapping(identity.apiVersion, identity.kind);
    if (mapping.namespaced && identity.namespace === '') throw new NamespacedOwnerOfClusterScopedObjectError();
    return { client: this.clientFor(mapping, identity.namespace), mapping };
  }

  getObject(identity: ObjectReference): Promise<KubeObject> {
    return this.resourceClient(identity).client.get(identity.name);
  }

  /** The object's metadata from the monitor's cache when it has the object, else from the apiserver. */
  async getMetadata(identity: ObjectReference): Promise<KubeObject['metadata']> {
    const { client, mapping } = this.resourceClient(identity);
    const cached = this.opts.builder.cachedObject(
      resourceKey(mapping.gvr),
      mapping.namespaced ? identity.namespace : '',
      identity.name,
    );
    return (cached ?? (await client.get(identity.name))).metadata;
  }

  /** A strategic merge patch, or the JSON merge patch jmp makes where the resource does not support it. */
  async patch(item: GraphNode, smp: unknown, jmp: () => Promise<unknown>): Promise<KubeObject> {
    const { client } = this.resourceClient(item.identity);
    try {
      return await client.patch(item.identity.name, 'strategic', smp);
    } catch (err) {
      if (!(err instanceof ApiError && err.code === 415)) throw err;
    }
    return client.patch(item.identity.name, 'merge', await jmp());
  }

  /**
   * DELETE with the uid (and resourceVersion) as preconditions. When only the resourceVersion no longer matches
   * but the ownerReferences are still those classified, the delete is sent again with the uid alone.
   */
  async deleteObject(
    identity: ObjectReference,
    resourceVersion: string,
    ownersAtResourceVersion: readonly OwnerReference[],
    policy: NonNullable<DeleteOptions['propagationPolicy']>,
  ): Promise<void> {
    const { client } = this.resourceClient(identity);
    const preconditions: NonNullable<DeleteOptions['preconditions']> = { uid: identity.uid };
    if (resourceVersion) preconditions.resourceVersion = resourceVersion;
    try {
      await client.delete(identity.name, { preconditions, propagationPolicy: policy });
    } catch (err) {
      if (!isConflict(err) || !resourceVersion) throw err;
      const live = await client.get(identity.name);
      if (
        live.metadata.uid === identity.uid &&
        live.metadata.resourceVersion !== resourceVersion &&
        sameJson(live.metadata.ownerReferences ?? [], ownersAtResourceVersion)
      ) {
        await this.deleteObject(identity, '', [], policy);
        return;
      }
      throw err;
    }
  }

  /** Removes one finalizer (a merge patch at the read resourceVersion, retried on conflicts). */
  async removeFinalizer(owner: GraphNode, finalizer: string): Promise<void> {
    const identity = owner.identity;
    for (let attempt = 1; ; attempt++) {
      let obj: KubeObject;
      try {
        obj = await this.getObject(identity);
      } catch (err) {
        if (isNotFound(err)) return;
        throw new Error(
          `cannot finalize owner ${formatReference(identity)}, because cannot get it: ${errorMessage(err)}. The garbage collector will retry later`,
        );
      }
      if (obj.metadata.uid !== identity.uid) return;
      const finalizers = obj.metadata.finalizers ?? [];
      if (!finalizers.includes(finalizer)) {
        this.opts.logger
          .v(5)
          .info('finalizer already removed from object', { finalizer, object: formatReference(identity) });
        return;
      }
      const patch = finalizersMergePatch(
        obj.metadata.resourceVersion ?? '',
        finalizers.filter((f) => f !== finalizer),
      );
      try {
        await this.resourceClient(identity).client.patch(identity.name, 'merge', patch);
        return;
      } catch (err) {
        if (isNotFound(err)) return;
        if (!isConflict(err)) throw err;
        if (attempt >= UPDATE_MAX_RETRIES) {
          throw new Error(
            `updateMaxRetries(${UPDATE_MAX_RETRIES}) has reached. The garbage collector will retry later for owner ${formatReference(identity)}`,
          );
        }
      }
      await this.opts.sleep(UPDATE_RETRY_BASE_MS * 5 ** (attempt - 1));
    }
  }
}
