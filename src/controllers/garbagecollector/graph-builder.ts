/**
 * The GraphBuilder (upstream's graph_builder.go): one informer handler per deletable resource (a "monitor") feeds
 * add/update/delete events, in order, into one processing loop that keeps the dependency graph (uid → node) and
 * decides what the collector's workers must look at:
 *
 * - a node whose owner is not in the graph gets a virtual node for that owner, which goes to attemptToDelete so the
 *   collector can verify through the API that the owner exists (and if not, send a virtual delete event here);
 * - a node that is deleted sends its dependents to attemptToDelete (their owner is now absent);
 * - an object that starts being deleted with the `orphan` finalizer goes to attemptToOrphan; with
 *   `foregroundDeletion` it and its dependents go to attemptToDelete;
 * - a dependent whose blocking ownerReference goes away (or stops blocking) re-queues that owner, which may now
 *   be free to finish its foreground deletion.
 *
 * Events are processed synchronously as they arrive (one at a time, never interleaved), which gives the single-
 * threaded processing upstream gets from its graphChanges queue.
 */
import type { SharedInformerFactory } from '../../client/cache/factory.js';
import type { ResourceEventHandlerRegistration } from '../../client/cache/processor.js';
import type { SharedIndexInformer } from '../../client/cache/shared-informer.js';
import { DeletedFinalStateUnknown } from '../../client/cache/store.js';
import type { EventRecorder } from '../../client/events/broadcaster.js';
import type { KubeObject, OwnerReference } from '../../client/types.js';
import type { RateLimitingQueue } from '../../client/workqueue/rate-limiting.js';
import type { Logger } from '../../util/logger.js';
import {
  alternateOwnerIdentity,
  formatReference,
  GraphNode,
  type ObjectReference,
  ownerReferenceCoordinates,
  ownerReferenceMatchesCoordinates,
  partitionDependents,
  ReferenceCache,
  sameReference,
} from './graph.js';
import type { DeletableResource } from './resources.js';

export const FINALIZER_ORPHAN_DEPENDENTS = 'orphan';
export const FINALIZER_DELETE_DEPENDENTS = 'foregroundDeletion';

/** Upstream's absentOwnerCache size. */
const ABSENT_OWNER_CACHE_SIZE = 500;

export type GraphEventType = 'add' | 'update' | 'delete';

export interface GraphEvent {
  type: GraphEventType;
  obj: KubeObject;
  oldObj?: KubeObject;
  apiVersion: string;
  kind: string;
  /** Made by the collector after an API lookup, not observed by an informer. */
  virtual?: boolean;
}

interface Monitor {
  resource: DeletableResource;
  informer: SharedIndexInformer;
  registration: ResourceEventHandlerRegistration;
}

export interface GraphBuilderOptions {
  informers: SharedInformerFactory;
  attemptToDelete: RateLimitingQueue<GraphNode>;
  attemptToOrphan: RateLimitingQueue<GraphNode>;
  recorder: EventRecorder;
  logger: Logger;
}

const hasFinalizer = (obj: KubeObject | undefined, finalizer: string) =>
  (obj?.metadata?.finalizers ?? []).includes(finalizer);
const beingDeleted = (obj: KubeObject | undefined) => Boolean(obj?.metadata?.deletionTimestamp);

/** The object is being deleted with the finalizer, and was not (or did not have it) before. */
function deletionStartsWithFinalizer(oldObj: KubeObject | undefined, obj: KubeObject, finalizer: string): boolean {
  if (!beingDeleted(obj) || !hasFinalizer(obj, finalizer)) return false;
  if (oldObj === undefined) return true;
  return !beingDeleted(oldObj) || !hasFinalizer(oldObj, finalizer);
}

function identityFromEvent(event: GraphEvent): ObjectReference {
  const meta = event.obj.metadata ?? {};
  return {
    apiVersion: event.apiVersion,
    kind: event.kind,
    uid: meta.uid ?? '',
    name: meta.name ?? '',
    namespace: meta.namespace ?? '',
  };
}

/** Owner references added, removed, or changed (same uid, other fields), comparing by uid. */
export function referencesDiffs(
  oldRefs: readonly OwnerReference[],
  newRefs: readonly OwnerReference[],
): {
  added: OwnerReference[];
  removed: OwnerReference[];
  changed: { oldRef: OwnerReference; newRef: OwnerReference }[];
} {
  const oldByUid = new Map(oldRefs.map((ref) => [ref.uid, ref] as const));
  const added: OwnerReference[] = [];
  const changed: { oldRef: OwnerReference; newRef: OwnerReference }[] = [];
  const remaining = new Set(oldByUid.keys());
  for (const ref of newRefs) {
    const old = oldByUid.get(ref.uid);
    if (old && remaining.has(ref.uid)) {
      if (!sameOwnerReference(old, ref)) changed.push({ oldRef: old, newRef: ref });
      remaining.delete(ref.uid);
    } else {
      added.push(ref);
    }
  }
  const removed = [...remaining].map((uid) => oldByUid.get(uid) as OwnerReference);
  return { added, removed, changed };
}

function sameOwnerReference(a: OwnerReference, b: OwnerReference): boolean {
  return (
    ownerReferenceMatchesCoordinates(a, b) &&
    (a.controller ?? null) === (b.controller ?? null) &&
    (a.blockOwnerDeletion ?? null) === (b.blockOwnerDeletion ?? null)
  );
}

export class GraphBuilder {
  readonly uidToNode = new Map<string, GraphNode>();
  readonly absentOwnerCache = new ReferenceCache(ABSENT_OWNER_CACHE_SIZE);
  private readonly monitors = new Map<string, Monitor>();
  private readonly pending: GraphEvent[] = [];
  private processing = false;
  private running = false;
  private stopped = false;
  private readonly log: Logger;

  constructor(private readonly opts: GraphBuilderOptions) {
    this.log = opts.logger;
  }

  /**
   * Makes the monitors match resources: handlers are added to the shared informers of new resources and removed
   * from those of resources no longer served. Once running, new informers are started.
   */
  syncMonitors(resources: ReadonlyMap<string, DeletableResource>): void {
    if (this.stopped) return;
    let added = 0;
    let kept = 0;
    for (const [key, resource] of resources) {
      if (this.monitors.has(key)) {
        kept++;
        continue;
      }
      const informer = this.opts.informers.forGroupVersionResource(resource.gvr);
      const kind = { apiVersion: resource.apiVersion, kind: resource.kind };
      const registration = informer.addEventHandler(
        {
          onAdd: (obj) => this.enqueue({ type: 'add', obj, ...kind }),
          onUpdate: (oldObj, newObj) => this.enqueue({ type: 'update', obj: newObj, oldObj, ...kind }),
          onDelete: (obj) => {
            const last = obj instanceof DeletedFinalStateUnknown ? obj.obj : obj;
            this.enqueue({ type: 'delete', obj: last, ...kind });
          },
        },
        { resyncPeriod: 0 },
      );
      this.monitors.set(key, { resource, informer, registration });
      added++;
    }
    let removed = 0;
    for (const [key, monitor] of this.monitors) {
      if (resources.has(key)) continue;
      monitor.informer.removeEventHandler(monitor.registration);
      this.monitors.delete(key);
      removed++;
    }
    this.log.v(4).info('synced monitors', { added, kept, removed });
    if (this.running && added > 0) this.opts.informers.start();
  }

  /** Starts the informers of the monitors (and those added later). */
  start(): void {
    if (this.stopped) return;
    this.running = true;
    this.opts.informers.start();
  }

  /** Stops listening to every informer and drops later events. */
  stop(): void {
    this.stopped = true;
    this.running = false;
    for (const monitor of this.monitors.values()) monitor.informer.removeEventHandler(monitor.registration);
    this.monitors.clear();
    this.pending.length = 0;
  }

  /** Whether there are monitors and every one has delivered its informer's initial list. */
  isSynced(): boolean {
    if (this.monitors.size === 0) return false;
    for (const monitor of this.monitors.values()) if (!monitor.registration.hasSynced()) return false;
    return true;
  }

  /** The handler registrations of the monitors, to wait for. */
  syncables(): ResourceEventHandlerRegistration[] {
    return [...this.monitors.values()].map((m) => m.registration);
  }

  /** Whether the resource has a monitor that has synced. */
  isResourceSynced(key: string): boolean {
    return this.monitors.get(key)?.registration.hasSynced() ?? false;
  }

  /** Keys of the resources monitored now. */
  monitoredResources(): string[] {
    return [...this.monitors.keys()];
  }

  /** The monitor's cached copy of an object, if the resource is monitored and has it. */
  cachedObject(resourceKeyValue: string, namespace: string, name: string): KubeObject | undefined {
    const monitor = this.monitors.get(resourceKeyValue);
    if (!monitor) return undefined;
    return monitor.informer.getIndexer().getByKey(namespace ? `${namespace}/${name}` : name);
  }

  /** Tells the graph that the API says identity does not exist (a 404, or another uid under that name). */
  enqueueVirtualDeleteEvent(identity: ObjectReference): void {
    this.enqueue({
      type: 'delete',
      virtual: true,
      apiVersion: identity.apiVersion,
      kind: identity.kind,
      obj: {
        apiVersion: identity.apiVersion,
        kind: identity.kind,
        metadata: {
          uid: identity.uid,
          name: identity.name,
          ...(identity.namespace ? { namespace: identity.namespace } : {}),
        },
      },
    });
  }

  enqueue(event: GraphEvent): void {
    if (this.stopped) return;
    this.pending.push(event);
    if (this.processing) return;
    this.processing = true;
    try {
      for (let next = this.pending.shift(); next; next = this.pending.shift()) {
        try {
          this.processGraphChange(next);
        } catch (err) {
          this.log.error('failed to process a graph change', { err: String(err) });
        }
      }
    } finally {
      this.processing = false;
    }
  }

  private processGraphChange(event: GraphEvent): void {
    const uid = event.obj.metadata?.uid;
    if (!uid) return;
    this.log.v(5).info('GraphBuilder process object', {
      apiVersion: event.apiVersion,
      kind: event.kind,
      object: `${event.obj.metadata.namespace ? `${event.obj.metadata.namespace}/` : ''}${event.obj.metadata.name ?? ''}`,
      uid,
      eventType: event.type,
      virtual: event.virtual === true,
    });
    let existing = this.uidToNode.get(uid);
    if (existing && !event.virtual && !existing.isObserved()) {
      // An informer reports the object a virtual node stood for.
      const observed = identityFromEvent(event);
      if (!sameReference(observed, existing.identity)) {
        // Dependents that named the owner differently may have been kept alive by a wrong reference.
        const { nonmatching } = partitionDependents(existing.getDependents(), observed);
        for (const dep of nonmatching) {
          if (observed.namespace !== '' && dep.identity.namespace !== observed.namespace) {
            this.log.v(2).info('item references an owner but does not match namespaces', {
              item: formatReference(dep.identity),
              owner: formatReference(observed),
            });
            this.reportInvalidNamespaceOwnerRef(dep, observed.uid);
          }
          this.opts.attemptToDelete.add(dep);
        }
        this.log.v(2).info('replacing virtual item with observed item', {
          virtual: formatReference(existing.identity),
          observed: formatReference(observed),
        });
        existing = existing.clone();
        existing.identity = observed;
        this.uidToNode.set(uid, existing);
      }
      existing.markObserved();
    }

    if ((event.type === 'add' || event.type === 'update') && !existing) {
      const node = new GraphNode(identityFromEvent(event), { owners: event.obj.metadata.ownerReferences ?? [] });
      node.beingDeleted = beingDeleted(event.obj);
      node.deletingDependents = node.beingDeleted && hasFinalizer(event.obj, FINALIZER_DELETE_DEPENDENTS);
      this.insertNode(node);
      this.processTransitions(event.oldObj, event.obj, node);
      return;
    }

    if ((event.type === 'add' || event.type === 'update') && existing) {
      if (
        !event.virtual &&
        (existing.identity.apiVersion !== event.apiVersion || existing.identity.kind !== event.kind)
      ) {
        const before = existing;
        existing = existing.clone();
        existing.identity.apiVersion = event.apiVersion;
        existing.identity.kind = event.kind;
        this.uidToNode.set(uid, existing);
        for (const owner of existing.owners)
          this.uidToNode.get(owner.uid)?.replaceDependentIfItExists(before, existing);
      }
      const { added, removed, changed } = referencesDiffs(existing.owners, event.obj.metadata.ownerReferences ?? []);
      if (added.length > 0 || removed.length > 0 || changed.length > 0) {
        this.addUnblockedOwnersToDeleteQueue(removed, changed);
        existing.owners = event.obj.metadata.ownerReferences ?? [];
        this.addDependentToOwners(existing, added);
        this.removeDependentFromOwners(existing, removed);
      }
      if (beingDeleted(event.obj)) existing.markBeingDeleted();
      this.processTransitions(event.oldObj, event.obj, existing);
      return;
    }

    // A delete.
    if (!existing) {
      this.log.v(5).info("item doesn't exist in the graph, this shouldn't happen", { item: uid });
      return;
    }
    let removeExisting = true;
    if (event.virtual) {
      const deleted = identityFromEvent(event);
      if (existing.virtual) {
        // We are not sure of a virtual node's coordinates: dependents may name its uid differently.
        const { matching, nonmatching } = partitionDependents(existing.getDependents(), deleted);
        if (nonmatching.length > 0) {
          removeExisting = false;
          if (matching.length > 0) {
            this.absentOwnerCache.add(deleted);
            for (const dep of matching) this.opts.attemptToDelete.add(dep);
          }
          if (sameReference(existing.identity, deleted)) {
            const replacement = alternateOwnerIdentity(nonmatching, deleted);
            if (replacement) {
              const node = existing.clone();
              node.identity = replacement;
              this.uidToNode.set(uid, node);
              this.opts.attemptToDelete.addRateLimited(node);
            }
          }
        }
      } else if (!sameReference(existing.identity, deleted)) {
        // An observed object disagrees with the coordinates found absent: keep it, but collect what named those.
        removeExisting = false;
        const { matching } = partitionDependents(existing.getDependents(), deleted);
        if (matching.length > 0) {
          this.absentOwnerCache.add(deleted);
          for (const dep of matching) this.opts.attemptToDelete.add(dep);
        }
      }
    }
    if (!removeExisting) return;
    this.removeNode(existing);
    if (existing.dependents.size > 0) this.absentOwnerCache.add(identityFromEvent(event));
    for (const dep of existing.dependents) this.opts.attemptToDelete.add(dep);
    for (const owner of existing.owners) {
      const ownerNode = this.uidToNode.get(owner.uid);
      // The owner may be waiting (foreground deletion) for this dependent to go.
      if (ownerNode?.isDeletingDependents()) this.opts.attemptToDelete.add(ownerNode);
    }
  }

  private insertNode(node: GraphNode): void {
    this.uidToNode.set(node.identity.uid, node);
    this.addDependentToOwners(node, node.owners);
  }

  private removeNode(node: GraphNode): void {
    this.uidToNode.delete(node.identity.uid);
    this.removeDependentFromOwners(node, node.owners);
  }

  private removeDependentFromOwners(node: GraphNode, owners: readonly OwnerReference[]): void {
    for (const owner of owners) this.uidToNode.get(owner.uid)?.dependents.delete(node);
  }

  /**
   * Adds node to its owners' dependents, making virtual nodes (queued for verification) for owners not in the
   * graph; queues node itself when a reference to a known owner looks wrong (other coordinates or namespace).
   */
  private addDependentToOwners(node: GraphNode, owners: readonly OwnerReference[]): void {
    let potentiallyInvalid = false;
    for (const owner of owners) {
      let ownerNode = this.uidToNode.get(owner.uid);
      const known = ownerNode !== undefined;
      if (!ownerNode) {
        ownerNode = new GraphNode(
          { ...ownerReferenceCoordinates(owner), namespace: node.identity.namespace },
          { virtual: true },
        );
        this.log.v(5).info('add virtual item', { identity: formatReference(ownerNode.identity) });
        this.uidToNode.set(owner.uid, ownerNode);
      }
      ownerNode.dependents.add(node);
      if (!known) {
        this.opts.attemptToDelete.add(ownerNode);
        continue;
      }
      if (potentiallyInvalid) continue;
      const ownerNamespaced = ownerNode.identity.namespace !== '';
      if (ownerNamespaced && ownerNode.identity.namespace !== node.identity.namespace) {
        if (ownerNode.isObserved()) {
          this.log.v(2).info('item references an owner but does not match namespaces', {
            item: formatReference(node.identity),
            owner: formatReference(ownerNode.identity),
          });
          this.reportInvalidNamespaceOwnerRef(node, owner.uid);
        }
        potentiallyInvalid = true;
      } else if (!ownerReferenceMatchesCoordinates(owner, ownerNode.identity)) {
        if (ownerNode.isObserved()) {
          this.log.v(2).info('item references an owner with coordinates that do not match the observed identity', {
            item: formatReference(node.identity),
            owner: formatReference(ownerNode.identity),
          });
        }
        potentiallyInvalid = true;
      } else if (
        !ownerNamespaced &&
        ownerNode.identity.namespace !== node.identity.namespace &&
        !ownerNode.isObserved()
      ) {
        // A virtual cluster-scoped owner named from another namespace may really be a missing namespaced owner.
        potentiallyInvalid = true;
      }
    }
    if (potentiallyInvalid) this.opts.attemptToDelete.add(node);
  }

  private reportInvalidNamespaceOwnerRef(node: GraphNode, ownerUid: string): void {
    const ref = node.owners.find((owner) => owner.uid === ownerUid);
    if (!ref) return;
    const invalid: ObjectReference = { ...ownerReferenceCoordinates(ref), namespace: node.identity.namespace };
    this.opts.recorder.eventf(
      {
        apiVersion: node.identity.apiVersion,
        kind: node.identity.kind,
        name: node.identity.name,
        uid: node.identity.uid,
        ...(node.identity.namespace ? { namespace: node.identity.namespace } : {}),
      },
      'Warning',
      'OwnerRefInvalidNamespace',
      'ownerRef %s does not exist in namespace %q',
      formatReference(invalid),
      node.identity.namespace,
    );
  }

  /** An owner waiting for its blocking dependents may be free once a blocking reference is removed or unblocked. */
  private addUnblockedOwnersToDeleteQueue(
    removed: readonly OwnerReference[],
    changed: readonly { oldRef: OwnerReference; newRef: OwnerReference }[],
  ): void {
    for (const ref of removed) {
      if (ref.blockOwnerDeletion !== true) continue;
      const owner = this.uidToNode.get(ref.uid);
      if (owner) this.opts.attemptToDelete.add(owner);
      else this.log.v(5).info('cannot find uid in uidToNode', { uid: ref.uid });
    }
    for (const { oldRef, newRef } of changed) {
      if (oldRef.blockOwnerDeletion !== true || newRef.blockOwnerDeletion === true) continue;
      const owner = this.uidToNode.get(newRef.uid);
      if (owner) this.opts.attemptToDelete.add(owner);
      else this.log.v(5).info('cannot find uid in uidToNode', { uid: newRef.uid });
    }
  }

  private processTransitions(oldObj: KubeObject | undefined, obj: KubeObject, node: GraphNode): void {
    if (deletionStartsWithFinalizer(oldObj, obj, FINALIZER_ORPHAN_DEPENDENTS)) {
      this.log.v(5).info('add item to attemptToOrphan', { item: formatReference(node.identity) });
      this.opts.attemptToOrphan.add(node);
      return;
    }
    if (deletionStartsWithFinalizer(oldObj, obj, FINALIZER_DELETE_DEPENDENTS)) {
      this.log.v(2).info("add item to attemptToDelete, because it's waiting for its dependents to be deleted", {
        item: formatReference(node.identity),
      });
      node.markDeletingDependents();
      for (const dep of node.dependents) this.opts.attemptToDelete.add(dep);
      this.opts.attemptToDelete.add(node);
    }
  }
}
