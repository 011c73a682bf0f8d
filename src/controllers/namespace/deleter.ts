/**
 * Empties a namespace that is being deleted and then releases it (upstream's NamespacedResourcesDeleter): its pods
 * first (OrderedNamespaceDeletion), then, once none remain, every other namespaced resource the server serves
 * (discovery, preferred versions, with the delete verb), each with one deletecollection, or listed and deleted
 * object by object where deletecollection is not served. While objects
 * remain (pods terminating gracefully, objects held by finalizers) it answers ResourcesRemainingError with an
 * estimate of the wait; once nothing remains it removes its finalizer (`kubernetes`) from spec.finalizers through
 * the namespace's finalize subresource, and the apiserver then removes the namespace. Each pass records what holds
 * the deletion back in the namespace's status conditions.
 */
import {
  type DiscoveredResource,
  GroupDiscoveryFailedError,
  serverPreferredResources,
} from '../../client/discovery.js';
import type { KubeClient } from '../../client/rest.js';
import {
  ApiError,
  type GroupVersionResource,
  isConflict,
  isNotFound,
  type KubeObject,
  type ResourceClient,
} from '../../client/types.js';
import type { Clock } from '../../util/clock.js';
import type { Logger } from '../../util/logger.js';
import { type ContentTotals, emptyTotals, type NamespaceCondition, NamespaceConditionUpdater } from './conditions.js';

/** upstream's v1.FinalizerKubernetes: the spec.finalizers token this controller owns. */
export const FINALIZER_KUBERNETES = 'kubernetes';

/** The default wait (seconds) for objects held by finalizers, when nothing better is known. */
export const FINALIZER_ESTIMATE_SECONDS = 15;

/** Content is still being removed; try again in about `estimate` seconds. */
export class ResourcesRemainingError extends Error {
  constructor(readonly estimate: number) {
    super(`some content remains in the namespace, estimate ${estimate} seconds before it is removed`);
    this.name = 'ResourcesRemainingError';
  }
}

/** Several errors at once (apimachinery's utilerrors.Aggregate). */
export class AggregatedError extends Error {
  constructor(readonly errors: unknown[]) {
    const messages = [...new Set(errors.map((e) => (e instanceof Error ? e.message : String(e))))];
    super(messages.length === 1 ? (messages[0] as string) : `[${messages.join(', ')}]`);
    this.name = 'AggregateError';
  }
}

export interface NamespacedResourcesDeleterOptions {
  client: KubeClient;
  clock: Clock;
  logger: Logger;
  /** Which resources the server serves (default: preferred versions through discovery). */
  discoverResources?: () => Promise<DiscoveredResource[]>;
  /** The finalizer token to remove (default `kubernetes`). */
  finalizerToken?: string;
}

interface GvrDeletionResult {
  /** Seconds to wait; 0 when no estimate was made (which does not mean nothing remains). */
  estimate: number;
  remaining: number;
  finalizers: Map<string, number>;
  /** What went wrong, if anything; the counts above are what was known by then. */
  error?: unknown;
}

type NamespaceObject = KubeObject & {
  spec?: { finalizers?: string[] };
  status?: { phase?: string; conditions?: NamespaceCondition[] };
};

const METHOD_NOT_SUPPORTED = 405;

export class NamespacedResourcesDeleter {
  private readonly client: KubeClient;
  private readonly clock: Clock;
  private readonly log: Logger;
  private readonly discover: () => Promise<DiscoveredResource[]>;
  private readonly finalizerToken: string;
  /** Operations the server answered 404/405 for, by `<verb> <gvr>`: not tried again. */
  private readonly notSupported = new Set<string>();

  constructor(opts: NamespacedResourcesDeleterOptions) {
    this.client = opts.client;
    this.clock = opts.clock;
    this.log = opts.logger;
    this.discover = opts.discoverResources ?? (() => serverPreferredResources(opts.client));
    this.finalizerToken = opts.finalizerToken ?? FINALIZER_KUBERNETES;
  }

  /**
   * One pass over the namespace: resolves once it is released (or already gone / not being deleted); rejects with
   * ResourcesRemainingError while content remains, or with the errors that stopped the pass.
   */
  async delete(name: string): Promise<void> {
    let ns: NamespaceObject;
    try {
      ns = (await this.client.namespaces().get(name)) as NamespaceObject;
    } catch (err) {
      if (isNotFound(err)) return;
      throw err;
    }
    if (!ns.metadata.deletionTimestamp) return;
    this.log
      .v(5)
      .info('namespace controller - syncNamespace', { namespace: name, finalizerToken: this.finalizerToken });

    try {
      ns = await this.retryOnConflict(ns, (current) => this.markTerminating(current));
    } catch (err) {
      if (isNotFound(err)) return;
      throw err;
    }
    if (!ns.metadata.deletionTimestamp) return;
    if ((ns.spec?.finalizers ?? []).length === 0) return;

    const estimate = await this.deleteAllContent(ns);
    if (estimate > 0) throw new ResourcesRemainingError(estimate);

    try {
      await this.retryOnConflict(ns, (current) => this.finalize(current));
    } catch (err) {
      // Another controller sharing the token may have finished the namespace already.
      if (isNotFound(err)) return;
      throw err;
    }
  }

  /** Runs fn, and on a conflict runs it again on a fresh read of the namespace (as long as it is the same one). */
  private async retryOnConflict(
    ns: NamespaceObject,
    fn: (ns: NamespaceObject) => Promise<NamespaceObject>,
  ): Promise<NamespaceObject> {
    let latest = ns;
    for (;;) {
      try {
        return await fn(latest);
      } catch (err) {
        if (!isConflict(err)) throw err;
      }
      const previous = latest;
      latest = (await this.client.namespaces().get(previous.metadata.name ?? '')) as NamespaceObject;
      if (previous.metadata.uid !== latest.metadata.uid) throw new Error('namespace uid has changed across retries');
    }
  }

  private async markTerminating(ns: NamespaceObject): Promise<NamespaceObject> {
    if (!ns.metadata.deletionTimestamp || ns.status?.phase === 'Terminating') return ns;
    const next = structuredClone(ns);
    next.status = { ...next.status, phase: 'Terminating' };
    return (await this.client.namespaces().updateStatus(next)) as NamespaceObject;
  }

  /** PUT .../finalize with this controller's token taken out of spec.finalizers. */
  private async finalize(ns: NamespaceObject): Promise<NamespaceObject> {
    const finalizers = [...new Set((ns.spec?.finalizers ?? []).filter((f) => f !== this.finalizerToken))].sort();
    const body: NamespaceObject = {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: ns.metadata,
      spec: { ...ns.spec, finalizers },
    };
    try {
      return (await this.client
        .namespaces()
        .updateSubresource(ns.metadata.name ?? '', 'finalize', body)) as NamespaceObject;
    } catch (err) {
      if (isNotFound(err)) return ns;
      throw err;
    }
  }

  /**
   * Deletes everything in the namespace; answers the estimated seconds until what remains is gone (0: nothing
   * remains). Records the outcome in the namespace's conditions. Rejects with the errors of the pass.
   */
  private async deleteAllContent(ns: NamespaceObject): Promise<number> {
    const namespace = ns.metadata.name ?? '';
    const deletedAt = Date.parse(ns.metadata.deletionTimestamp ?? '');
    const errors: unknown[] = [];
    const conditions = new NamespaceConditionUpdater(() => this.clock.now());
    this.log.v(4).info('namespace controller - deleteAllContent', { namespace });

    let resources: DiscoveredResource[] = [];
    try {
      resources = await this.discover();
    } catch (err) {
      // Discovery that failed for some groups still gives the others, which can be emptied meanwhile.
      errors.push(err);
      conditions.processDiscoverResourcesErr(err);
      if (err instanceof GroupDiscoveryFailedError) resources = err.resources;
    }
    let deletable = resources.filter((r) => r.namespaced && r.verbs.includes('delete'));

    const totals: ContentTotals = emptyTotals();
    let estimate = 0;
    // OrderedNamespaceDeletion (beta, on in v1.33): the pods go first, and nothing else is deleted while any remain,
    // so that no pod outlives the policies and objects it runs under (NetworkPolicies, Secrets, …).
    const pods = deletable.find((r) => r.group === '' && r.resource === 'pods');
    if (pods) {
      deletable = deletable.filter((r) => r !== pods);
      const result = await this.deleteAllContentFor(pods, namespace, deletedAt);
      if (result.error !== undefined) {
        const reason = result.error instanceof Error ? result.error.message : String(result.error);
        errors.push(new Error(`failed to delete pods for namespace: ${namespace}, err: ${reason}`));
        conditions.processDeleteContentErr(result.error);
      }
      estimate = Math.max(estimate, result.estimate);
      if (result.remaining > 0) {
        this.log.v(5).info('Namespace controller - pods still remain, delaying deletion of other resources', {
          namespace,
        });
        await this.writeConditions(ns, conditions);
        if (errors.length > 0) throw new AggregatedError(errors);
        return estimate;
      }
    }
    const results = await Promise.all(
      deletable.map(async (resource) => ({
        resource,
        result: await this.deleteAllContentFor(resource, namespace, deletedAt),
      })),
    );
    for (const { resource, result } of results) {
      if (result.error !== undefined) {
        errors.push(result.error);
        conditions.processDeleteContentErr(result.error);
      }
      estimate = Math.max(estimate, result.estimate);
      if (result.remaining > 0) {
        const gvr = gvrOf(resource);
        totals.remainingByResource.set(gvrString(gvr), { gvr, count: result.remaining });
        for (const [finalizer, count] of result.finalizers) {
          if (count > 0)
            totals.remainingByFinalizer.set(finalizer, (totals.remainingByFinalizer.get(finalizer) ?? 0) + count);
        }
      }
    }
    conditions.processContentTotals(totals);
    await this.writeConditions(ns, conditions);

    this.log.v(4).info('namespace controller - deleteAllContent', { namespace, estimate, errors: errors.length });
    if (errors.length > 0) throw new AggregatedError(errors);
    return estimate;
  }

  /** Writes the namespace's deletion conditions when they changed, so that one that cleared is seen to clear. */
  private async writeConditions(ns: NamespaceObject, conditions: NamespaceConditionUpdater): Promise<void> {
    const status = structuredClone(ns.status ?? {});
    if (!conditions.update(status)) return;
    try {
      await this.client.namespaces().updateStatus({ ...ns, status });
    } catch (err) {
      this.log.error("couldn't update status condition for namespace", {
        namespace: ns.metadata.name ?? '',
        err: String(err),
      });
    }
  }

  /** Deletes all objects of one resource in the namespace and reports what is left (never rejects). */
  private async deleteAllContentFor(
    resource: DiscoveredResource,
    namespace: string,
    deletedAt: number,
  ): Promise<GvrDeletionResult> {
    const gvr = gvrOf(resource);
    const client = this.client.resource(gvr, { namespaced: true }).namespace(namespace);
    let estimate = 0;
    try {
      estimate = await this.estimateGracefulTermination(gvr, namespace, deletedAt);
    } catch (error) {
      return { estimate: 0, remaining: 0, finalizers: new Map(), error };
    }
    const failed = (error: unknown): GvrDeletionResult => ({ estimate, remaining: 0, finalizers: new Map(), error });

    let items: KubeObject[] | undefined;
    try {
      if (!(await this.deleteCollection(client, resource))) await this.deleteEachItem(client, resource);
      items = await this.listCollection(client, resource);
    } catch (error) {
      return failed(error);
    }
    if (items === undefined) return { estimate, remaining: 0, finalizers: new Map() };
    if (items.length === 0) return { estimate: 0, remaining: 0, finalizers: new Map() };

    const finalizers = new Map<string, number>();
    for (const item of items) {
      for (const f of item.metadata.finalizers ?? []) finalizers.set(f, (finalizers.get(f) ?? 0) + 1);
    }
    if (estimate !== 0) return { estimate, remaining: items.length, finalizers };
    // Objects held by finalizers are expected to go once those are done: wait a default time for them.
    if (finalizers.size > 0) return { estimate: FINALIZER_ESTIMATE_SECONDS, remaining: items.length, finalizers };
    return {
      estimate,
      remaining: items.length,
      finalizers,
      error: new Error(`unexpected items still remain in namespace: ${namespace} for gvr: ${gvrString(gvr)}`),
    };
  }

  /** True when deletecollection was served; false when the server does not support it for this resource. */
  private async deleteCollection(client: ResourceClient, resource: DiscoveredResource): Promise<boolean> {
    const key = `deletecollection ${gvrString(gvrOf(resource))}`;
    if (!resource.verbs.includes('deletecollection') || this.notSupported.has(key)) return false;
    try {
      // Background: the garbage collector must not orphan anything on our account.
      await client.deleteCollection({ propagationPolicy: 'Background' });
      return true;
    } catch (err) {
      if (isUnsupported(err)) {
        this.notSupported.add(key);
        return false;
      }
      throw err;
    }
  }

  /** The objects of the resource in the namespace; undefined when list is not served for it. */
  private async listCollection(
    client: ResourceClient,
    resource: DiscoveredResource,
  ): Promise<KubeObject[] | undefined> {
    const key = `list ${gvrString(gvrOf(resource))}`;
    if (!resource.verbs.includes('list') || this.notSupported.has(key)) return undefined;
    try {
      return (await client.list()).items;
    } catch (err) {
      if (isUnsupported(err)) {
        this.notSupported.add(key);
        return undefined;
      }
      throw err;
    }
  }

  private async deleteEachItem(client: ResourceClient, resource: DiscoveredResource): Promise<void> {
    const items = await this.listCollection(client, resource);
    for (const item of items ?? []) {
      try {
        await client.delete(item.metadata.name ?? '', { propagationPolicy: 'Background' });
      } catch (err) {
        if (!isUnsupported(err)) throw err;
      }
    }
  }

  /**
   * Seconds the resource's objects may still take to go away by themselves (pods: the longest
   * terminationGracePeriodSeconds of the pods not yet finished), 0 once that long has passed since the namespace
   * was deleted.
   */
  private async estimateGracefulTermination(
    gvr: GroupVersionResource,
    namespace: string,
    deletedAt: number,
  ): Promise<number> {
    let estimate = 0;
    if (gvr.group === '' && gvr.resource === 'pods') {
      const pods = await this.client.pods(namespace).list();
      for (const pod of pods.items) {
        const phase = (pod.status as { phase?: string } | undefined)?.phase;
        if (phase === 'Succeeded' || phase === 'Failed') continue;
        const grace = (pod.spec as { terminationGracePeriodSeconds?: number } | undefined)
          ?.terminationGracePeriodSeconds;
        if (typeof grace === 'number' && grace > estimate) estimate = grace;
      }
    }
    const elapsed = this.clock.now() - (Number.isNaN(deletedAt) ? this.clock.now() : deletedAt);
    return elapsed >= estimate * 1000 ? 0 : estimate;
  }
}

function isUnsupported(err: unknown): boolean {
  return (
    isNotFound(err) ||
    (err instanceof ApiError && (err.code === METHOD_NOT_SUPPORTED || err.reason === 'MethodNotAllowed'))
  );
}

function gvrOf(r: DiscoveredResource): GroupVersionResource {
  return { group: r.group, version: r.version, resource: r.resource };
}

/** As schema.GroupVersionResource prints: `apps/v1, Resource=deployments`, `/v1, Resource=pods`. */
export function gvrString(gvr: GroupVersionResource): string {
  return `${gvr.group}/${gvr.version}, Resource=${gvr.resource}`;
}
