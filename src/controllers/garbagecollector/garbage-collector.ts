/**
 * The garbage collector (upstream's garbagecollector.go). The GraphBuilder keeps the ownership
 * graph from informers; this class runs the workers of its two queues and talks to the apiserver:
 *
 * - attemptToDelete: for a node, GET the live object (a 404 or another uid means it is gone: a virtual delete event
 *   goes to the graph). An owner waiting in foreground deletion loses its `foregroundDeletion` finalizer once no
 *   dependent blocks it. Otherwise its ownerReferences are classified by GETting each owner: solid (exists),
 *   dangling (404, or another uid under that name), or waiting (being deleted in the foreground). With a solid owner
 *   the dangling and waiting references are patched away; without one the object is deleted (Foreground when an
 *   owner waits and it has dependents of its own, else as its finalizers say, else Background), always with a uid
 *   precondition so a recreated object of the same name is never touched.
 * - attemptToOrphan: remove the owner's reference from every dependent, then its `orphan` finalizer.
 *
 * Discovery is repeated every 30 s so that resources served later get monitors.
 */
import type { SharedInformerFactory } from '../../client/cache/factory.js';
import { waitForCacheSync } from '../../client/cache/wait-for-cache-sync.js';
import type { EventRecorder } from '../../client/events/broadcaster.js';
import type { KubeClient } from '../../client/rest.js';
import { type DeleteOptions, isNotFound, type KubeObject, type OwnerReference } from '../../client/types.js';
import { createRateLimitingQueue, type RateLimitingQueue } from '../../client/workqueue/rate-limiting.js';
import type { Clock } from '../../util/clock.js';
import type { Logger } from '../../util/logger.js';
import { runWorkers } from '../worker.js';
import { formatReference, type GraphNode, type ObjectReference, ownerReferenceCoordinates } from './graph.js';
import { FINALIZER_DELETE_DEPENDENTS, FINALIZER_ORPHAN_DEPENDENTS, GraphBuilder } from './graph-builder.js';
import { errorMessage, NamespacedOwnerOfClusterScopedObjectError, ObjectOperations } from './operations.js';
import {
  deleteOwnerRefJsonMergePatch,
  deleteOwnerRefStrategicMergePatch,
  unblockOwnerReferencesJsonMergePatch,
  unblockOwnerReferencesStrategicMergePatch,
} from './patches.js';
import {
  type DeletableResource,
  discoverResources,
  IGNORED_RESOURCES,
  RestMapper,
  RestMappingError,
} from './resources.js';

/** How often discovery is repeated, and how long workers wait for the first sync (upstream: 30 s). */
export const GC_SYNC_PERIOD_MS = 30_000;
/** How soon a failed first discovery is tried again. */
const FIRST_DISCOVERY_RETRY_MS = 1_000;

export interface GarbageCollectorOptions {
  client: KubeClient;
  informers: SharedInformerFactory;
  clock: Clock;
  logger: Logger;
  recorder: EventRecorder;
  workers: number;
  signal: AbortSignal;
  syncPeriodMs?: number;
  /** group resources (`events`, `events.events.k8s.io`) never monitored. */
  ignoredResources?: ReadonlySet<string>;
}

/** A virtual node not yet observed through an informer: look at it again later. */
class NotYetObservedError extends Error {}

type DeleteOutcome = 'done' | 'virtualDeleteEnqueued';

export class GarbageCollector {
  readonly attemptToDelete: RateLimitingQueue<GraphNode>;
  readonly attemptToOrphan: RateLimitingQueue<GraphNode>;
  readonly builder: GraphBuilder;
  private mapper = new RestMapper([]);
  private readonly ops: ObjectOperations;
  private readonly log: Logger;
  private readonly syncPeriodMs: number;

  constructor(private readonly opts: GarbageCollectorOptions) {
    this.log = opts.logger;
    this.syncPeriodMs = opts.syncPeriodMs ?? GC_SYNC_PERIOD_MS;
    this.attemptToDelete = createRateLimitingQueue<GraphNode>({
      clock: opts.clock,
      name: 'garbage_collector_attempt_to_delete',
    });
    this.attemptToOrphan = createRateLimitingQueue<GraphNode>({
      clock: opts.clock,
      name: 'garbage_collector_attempt_to_orphan',
    });
    this.builder = new GraphBuilder({
      informers: opts.informers,
      attemptToDelete: this.attemptToDelete,
      attemptToOrphan: this.attemptToOrphan,
      recorder: opts.recorder,
      logger: opts.logger.child('graph-builder'),
    });
    this.ops = new ObjectOperations({
      client: opts.client,
      mapper: () => this.mapper,
      builder: this.builder,
      logger: opts.logger,
      sleep: (ms) => this.sleep(ms),
    });
  }

  async run(): Promise<void> {
    const { signal } = this.opts;
    this.log.info('Starting controller', { controller: 'garbagecollector' });
    this.builder.start();
    const syncing = this.syncLoop();
    try {
      if (await this.waitForGraphSync(this.syncPeriodMs)) {
        this.log.info('Garbage collector: all resource monitors have synced');
      } else if (!signal.aborted) {
        this.log.info('Garbage collector: not all resource monitors could be synced, proceeding anyways');
      }
      if (!signal.aborted) this.log.info('Proceeding to collect garbage');
      await Promise.all([
        runWorkers({
          queue: this.attemptToDelete,
          workers: this.opts.workers,
          sync: (node) => this.attemptToDeleteWorker(node),
          signal,
          logger: this.log,
        }),
        runWorkers({
          queue: this.attemptToOrphan,
          workers: this.opts.workers,
          sync: (node) => this.attemptToOrphanWorker(node),
          signal,
          logger: this.log,
        }),
        syncing,
      ]);
    } finally {
      this.attemptToDelete.shutDown();
      this.attemptToOrphan.shutDown();
      this.builder.stop();
      this.log.info('Shutting down controller', { controller: 'garbagecollector' });
    }
  }

  // ---- discovery ----

  /** Discovery now, then every sync period; the monitors follow the deletable resources. */
  private async syncLoop(): Promise<void> {
    let current = new Map<string, DeletableResource>();
    while (!this.opts.signal.aborted) {
      try {
        current = (await this.syncOnce(current)) ?? current;
      } catch (err) {
        this.log.error('failed to sync resource monitors', { err: String(err) });
      }
      // Until discovery has worked once there is nothing to collect with: try again soon.
      await this.sleep(current.size === 0 ? FIRST_DISCOVERY_RETRY_MS : this.syncPeriodMs);
    }
  }

  /** One discovery round; answers the resources now monitored, or undefined when discovery gave nothing. */
  async syncOnce(current: ReadonlyMap<string, DeletableResource>): Promise<Map<string, DeletableResource> | undefined> {
    let result: Awaited<ReturnType<typeof discoverResources>>;
    try {
      result = await discoverResources(this.opts.client, this.opts.ignoredResources ?? IGNORED_RESOURCES, this.mapper);
    } catch (err) {
      this.log.info('failed to discover preferred resources', { error: String(err) });
      return undefined;
    }
    const next = result.deletable;
    if (result.failedGroupVersions.size > 0) {
      this.log.info('failed to discover some groups', { groups: [...result.failedGroupVersions] });
    }
    if (next.size === 0) {
      this.log.v(2).info('no resources reported by discovery, skipping garbage collector sync');
      return undefined;
    }
    // Keep the monitors of group versions discovery could not read this time.
    for (const [key, resource] of current) {
      if (result.failedGroupVersions.has(resource.apiVersion) && this.builder.isResourceSynced(key)) {
        next.set(key, resource);
      }
    }
    this.mapper = result.mapper;
    const added = [...next.keys()].filter((key) => !current.has(key));
    const removed = [...current.keys()].filter((key) => !next.has(key));
    if (added.length === 0 && removed.length === 0 && current.size > 0) {
      this.log.v(5).info('no resource updates from discovery, skipping garbage collector sync');
      return next;
    }
    this.log.v(2).info('syncing garbage collector with updated resources from discovery', {
      diff: `added: [${added.join(' ')}], removed: [${removed.join(' ')}]`,
    });
    this.builder.syncMonitors(next);
    return next;
  }

  /** Waits until every monitor has synced; false after timeoutMs or when the controller stops. */
  private async waitForGraphSync(timeoutMs: number): Promise<boolean> {
    const deadline = this.opts.clock.now() + timeoutMs;
    while (!this.opts.signal.aborted) {
      if (this.builder.isSynced()) return true;
      const left = deadline - this.opts.clock.now();
      if (left <= 0) return false;
      const syncables = this.builder.syncables();
      if (syncables.length === 0) {
        await this.sleep(Math.min(left, 50));
        continue;
      }
      const stop = new AbortController();
      const timer = this.opts.clock.after(Math.min(left, 200), () => stop.abort());
      const onAbort = () => stop.abort();
      this.opts.signal.addEventListener('abort', onAbort, { once: true });
      try {
        await waitForCacheSync(stop.signal, ...syncables);
      } finally {
        timer.cancel();
        this.opts.signal.removeEventListener('abort', onAbort);
      }
    }
    return false;
  }

  private sleep(ms: number): Promise<void> {
    const { signal } = this.opts;
    if (signal.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        timer.cancel();
        signal.removeEventListener('abort', done);
        resolve();
      };
      const timer = this.opts.clock.after(ms, done);
      signal.addEventListener('abort', done, { once: true });
    });
  }

  // ---- attemptToDelete ----

  private async attemptToDeleteWorker(queued: GraphNode): Promise<void> {
    let item = queued;
    const inGraph = this.builder.uidToNode.get(item.identity.uid);
    if (!item.isObserved()) {
      if (!inGraph) {
        this.log.v(5).info('item no longer in the graph, skipping attemptToDeleteItem', { item: item.toString() });
        return;
      }
      if (inGraph.isObserved()) {
        this.log.v(5).info('item no longer virtual in the graph, skipping attemptToDeleteItem on virtual node', {
          item: item.toString(),
        });
        return;
      }
    }
    if (
      inGraph &&
      (inGraph.identity.apiVersion !== item.identity.apiVersion || inGraph.identity.kind !== item.identity.kind)
    ) {
      item = item.clone();
      item.identity.apiVersion = inGraph.identity.apiVersion;
      item.identity.kind = inGraph.identity.kind;
    }
    let outcome: DeleteOutcome;
    try {
      outcome = await this.attemptToDeleteItem(item);
    } catch (err) {
      if (err instanceof NamespacedOwnerOfClusterScopedObjectError) return;
      if (err instanceof RestMappingError)
        this.log.error('error syncing item', { item: item.toString(), err: err.message });
      else this.log.error(`error syncing item ${item.toString()}`, { err: String(err) });
      throw err;
    }
    if (outcome === 'virtualDeleteEnqueued') return;
    if (!item.isObserved()) {
      this.log.v(5).info("item hasn't been observed via informer yet", { item: item.toString() });
      throw new NotYetObservedError(`item ${item.toString()} hasn't been observed via informer yet`);
    }
  }

  /**
   * Deletes the item when no owner of it exists any more; removes references to absent owners when some owner
   * exists; finishes a foreground deletion when no dependent blocks it.
   */
  async attemptToDeleteItem(item: GraphNode): Promise<DeleteOutcome> {
    this.log.v(2).info('Processing item', { item: formatReference(item.identity), virtual: !item.isObserved() });
    // Being deleted (without waiting for dependents) is a one-way trip; its dependents are handled once it is gone.
    if (item.isBeingDeleted() && !item.isDeletingDependents()) return 'done';
    let latest: KubeObject;
    try {
      latest = await this.ops.getObject(item.identity);
    } catch (err) {
      if (!isNotFound(err)) throw err;
      this.log.v(5).info('item not found, generating a virtual delete event', { item: formatReference(item.identity) });
      this.builder.enqueueVirtualDeleteEvent(item.identity);
      return 'virtualDeleteEnqueued';
    }
    if (latest.metadata.uid !== item.identity.uid) {
      this.log.v(5).info("UID doesn't match, item not found, generating a virtual delete event", {
        item: formatReference(item.identity),
      });
      this.builder.enqueueVirtualDeleteEvent(item.identity);
      return 'virtualDeleteEnqueued';
    }
    if (item.isDeletingDependents()) {
      await this.processDeletingDependentsItem(item);
      return 'done';
    }
    const ownerReferences = latest.metadata.ownerReferences ?? [];
    if (ownerReferences.length === 0) {
      this.log.v(2).info("item doesn't have an owner, continue on next item", { item: formatReference(item.identity) });
      return 'done';
    }
    const { solid, dangling, waiting } = await this.classifyReferences(item, ownerReferences);
    this.log.v(5).info("classify item's references", {
      item: formatReference(item.identity),
      solid: solid.map((r) => r.uid),
      dangling: dangling.map((r) => r.uid),
      waitingForDependentsDeletion: waiting.map((r) => r.uid),
    });

    if (solid.length > 0) {
      this.log.v(2).info('item has at least one existing owner, will not garbage collect', {
        item: formatReference(item.identity),
        owner: solid.map((r) => r.uid),
      });
      if (dangling.length === 0 && waiting.length === 0) return 'done';
      // References to owners waiting for their dependents must go too, or those owners would wait forever.
      const uids = [...dangling, ...waiting].map((r) => r.uid);
      this.log.v(2).info('remove dangling references and waiting references for item', {
        item: formatReference(item.identity),
        dangling: dangling.map((r) => r.uid),
        waitingForDependentsDeletion: waiting.map((r) => r.uid),
      });
      await this.ops.patch(item, deleteOwnerRefStrategicMergePatch(item.identity.uid, uids), async () => {
        const meta = await this.ops.getMetadata(item.identity);
        return deleteOwnerRefJsonMergePatch(meta.resourceVersion ?? '', meta.ownerReferences ?? [], uids);
      });
      return 'done';
    }

    let policy: NonNullable<DeleteOptions['propagationPolicy']>;
    if (waiting.length > 0 && item.dependents.size > 0) {
      for (const dep of item.getDependents()) {
        if (!dep.isDeletingDependents()) continue;
        // An owner and a dependent both wait for their dependents: a possible cycle; stop this item from blocking.
        this.log
          .v(2)
          .info(
            'processing item, some of its owners and its dependent have FinalizerDeletingDependents, to prevent potential cycle, its ownerReferences are going to be modified to be non-blocking, then the item is going to be deleted with Foreground',
            { item: formatReference(item.identity), dependent: formatReference(dep.identity) },
          );
        await this.ops.patch(
          item,
          unblockOwnerReferencesStrategicMergePatch(item.identity.uid, item.owners),
          async () => {
            const meta = await this.ops.getMetadata(item.identity);
            return unblockOwnerReferencesJsonMergePatch(meta.resourceVersion ?? '', item.owners);
          },
        );
        break;
      }
      this.log
        .v(2)
        .info(
          'at least one owner of item has FinalizerDeletingDependents, and the item itself has dependents, so it is going to be deleted in Foreground',
          { item: formatReference(item.identity) },
        );
      policy = 'Foreground';
    } else {
      const finalizers = latest.metadata.finalizers ?? [];
      if (finalizers.includes(FINALIZER_ORPHAN_DEPENDENTS)) policy = 'Orphan';
      else if (finalizers.includes(FINALIZER_DELETE_DEPENDENTS)) policy = 'Foreground';
      else policy = 'Background';
      this.log.v(2).info('Deleting item', { item: formatReference(item.identity), propagationPolicy: policy });
    }
    try {
      await this.ops.deleteObject(item.identity, latest.metadata.resourceVersion ?? '', ownerReferences, policy);
    } catch (err) {
      if (!isNotFound(err)) throw err;
      this.builder.enqueueVirtualDeleteEvent(item.identity);
      return 'virtualDeleteEnqueued';
    }
    return 'done';
  }

  /** An owner in foreground deletion: done once no dependent blocks it, else its blocking dependents are pushed. */
  private async processDeletingDependentsItem(item: GraphNode): Promise<void> {
    const blocking = item.blockingDependents();
    if (blocking.length === 0) {
      this.log.v(2).info('remove DeleteDependents finalizer for item', { item: formatReference(item.identity) });
      await this.ops.removeFinalizer(item, FINALIZER_DELETE_DEPENDENTS);
      return;
    }
    for (const dep of blocking) {
      if (dep.isDeletingDependents()) continue;
      this.log.v(2).info('adding dependent to attemptToDelete, because its owner is deletingDependents', {
        item: formatReference(item.identity),
        dependent: formatReference(dep.identity),
      });
      this.attemptToDelete.add(dep);
    }
  }

  /** solid: the owner exists; dangling: it does not; waiting: it exists and waits in foreground deletion. */
  private async classifyReferences(
    item: GraphNode,
    refs: readonly OwnerReference[],
  ): Promise<{ solid: OwnerReference[]; dangling: OwnerReference[]; waiting: OwnerReference[] }> {
    const solid: OwnerReference[] = [];
    const dangling: OwnerReference[] = [];
    const waiting: OwnerReference[] = [];
    for (const ref of refs) {
      const { isDangling, owner } = await this.isDangling(ref, item);
      if (isDangling) {
        dangling.push(ref);
      } else if (
        owner?.metadata.deletionTimestamp &&
        (owner.metadata.finalizers ?? []).includes(FINALIZER_DELETE_DEPENDENTS)
      ) {
        waiting.push(ref);
      } else {
        solid.push(ref);
      }
    }
    return { solid, dangling, waiting };
  }

  /** Whether the owner a reference names is absent (known absent, a 404, or another uid under that name). */
  private async isDangling(ref: OwnerReference, item: GraphNode): Promise<{ isDangling: boolean; owner?: KubeObject }> {
    const clusterKey: ObjectReference = { ...ownerReferenceCoordinates(ref), namespace: '' };
    if (this.builder.absentOwnerCache.has(clusterKey)) {
      this.log.v(5).info("according to the absentOwnerCache, item's owner does not exist", {
        item: formatReference(item.identity),
        owner: ref.uid,
      });
      return { isDangling: true };
    }
    const namespacedKey: ObjectReference = { ...clusterKey, namespace: item.identity.namespace };
    if (this.builder.absentOwnerCache.has(namespacedKey)) {
      this.log.v(5).info("according to the absentOwnerCache, item's owner does not exist in namespace", {
        item: formatReference(item.identity),
        owner: ref.uid,
      });
      return { isDangling: true };
    }
    const mapping = this.mapper.mapping(ref.apiVersion, ref.kind);
    const absentKey = mapping.namespaced ? namespacedKey : clusterKey;
    if (item.identity.namespace === '' && mapping.namespaced) {
      this.log.v(2).info('item is cluster-scoped, but refers to a namespaced owner', {
        item: formatReference(item.identity),
        owner: ref.uid,
      });
      throw new NamespacedOwnerOfClusterScopedObjectError();
    }
    let owner: KubeObject;
    try {
      owner = await this.ops.clientFor(mapping, item.identity.namespace).get(ref.name);
    } catch (err) {
      if (!isNotFound(err)) throw err;
      this.builder.absentOwnerCache.add(absentKey);
      this.log.v(5).info("item's owner is not found", { item: formatReference(item.identity), owner: ref.uid });
      return { isDangling: true };
    }
    if (owner.metadata.uid !== ref.uid) {
      this.log.v(5).info("item's owner is not found, UID mismatch", {
        item: formatReference(item.identity),
        owner: ref.uid,
      });
      this.builder.absentOwnerCache.add(absentKey);
      return { isDangling: true };
    }
    return { isDangling: false, owner };
  }

  // ---- attemptToOrphan ----

  private async attemptToOrphanWorker(owner: GraphNode): Promise<void> {
    try {
      await this.orphanDependents(owner.identity, owner.getDependents());
    } catch (err) {
      this.log.error(`orphanDependents for ${formatReference(owner.identity)} failed with ${String(err)}`);
      throw err;
    }
    try {
      await this.ops.removeFinalizer(owner, FINALIZER_ORPHAN_DEPENDENTS);
    } catch (err) {
      this.log.error(`removeOrphanFinalizer for ${formatReference(owner.identity)} failed with ${String(err)}`);
      throw err;
    }
  }

  /** Removes the owner's reference from every dependent (a dependent already gone is fine). */
  private async orphanDependents(owner: ObjectReference, dependents: readonly GraphNode[]): Promise<void> {
    const errors: string[] = [];
    await Promise.all(
      dependents.map(async (dep) => {
        try {
          await this.ops.patch(dep, deleteOwnerRefStrategicMergePatch(dep.identity.uid, [owner.uid]), async () => {
            const meta = await this.ops.getMetadata(dep.identity);
            return deleteOwnerRefJsonMergePatch(meta.resourceVersion ?? '', meta.ownerReferences ?? [], [owner.uid]);
          });
        } catch (err) {
          if (!isNotFound(err)) errors.push(`orphaning ${formatReference(dep.identity)} failed, ${errorMessage(err)}`);
        }
      }),
    );
    if (errors.length > 0) {
      throw new Error(
        `failed to orphan dependents of owner ${formatReference(owner)}, got errors: ${errors.join(', ')}`,
      );
    }
    this.log.v(5).info('successfully updated all dependents', { owner: formatReference(owner) });
  }
}
