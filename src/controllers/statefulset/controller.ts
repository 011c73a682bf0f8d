/**
 * The statefulset controller (upstream's pkg/controller/statefulset): watches StatefulSets, their pods, claims and
 * ControllerRevisions, queues the set a change concerns, and syncs one set at a time: adopts orphan revisions its
 * selector matches, claims its pods (those its selector matches and whose name makes them members), and hands
 * them to StatefulSetControl (control.ts). A set with minReadySeconds is looked at again when its pods may have
 * become available.
 */
import { LabelSelector } from '../../api/labels.js';
import type { SharedIndexInformer } from '../../client/cache/shared-informer.js';
import {
  DeletedFinalStateUnknown,
  type Indexer,
  metaNamespaceKeyFunc,
  NAMESPACE_INDEX,
} from '../../client/cache/store.js';
import { waitForCacheSync } from '../../client/cache/wait-for-cache-sync.js';
import type { KubeObject } from '../../client/types.js';
import { createRateLimitingQueue, type RateLimitingQueue } from '../../client/workqueue/rate-limiting.js';
import {
  ClaimError,
  ControllerRefManager,
  controlledByOtherKind,
  getControllerOf,
  ownerCanAdopt,
} from '../common/controller-ref.js';
import { filterPodsByOwner, isPodReady, POD_CONTROLLER_UID_INDEX, podControllerUidIndexFunc } from '../common/pods.js';
import type { Controller, ControllerContext } from '../context.js';
import { CONTROLLER_REVISIONS, ControllerHistory } from '../history/index.js';
import { runWorkers } from '../worker.js';
import { StatefulSetControl } from './control.js';
import { isMemberOf } from './identity.js';
import { StatefulPodControl } from './pod-control.js';
import { type Pod, STATEFUL_SET_KIND, type StatefulSet } from './types.js';

const STATEFUL_SETS = { group: 'apps', version: 'v1', resource: 'statefulsets' };
const PODS = { group: '', version: 'v1', resource: 'pods' };
const CLAIMS = { group: '', version: 'v1', resource: 'persistentvolumeclaims' };

type Tombstone<T> = T | DeletedFinalStateUnknown<T>;
const unwrap = <T>(obj: Tombstone<T>): T => (obj instanceof DeletedFinalStateUnknown ? obj.obj : obj);

export class StatefulSetController implements Controller {
  readonly queue: RateLimitingQueue<string>;
  private readonly setInformer: SharedIndexInformer<StatefulSet>;
  private readonly podInformer: SharedIndexInformer<Pod>;
  private readonly claimInformer: SharedIndexInformer;
  private readonly revisionInformer: SharedIndexInformer;
  private readonly history: ControllerHistory;
  readonly control: StatefulSetControl;

  constructor(private readonly ctx: ControllerContext) {
    this.queue = createRateLimitingQueue<string>({ clock: ctx.clock, name: 'statefulset' });
    this.setInformer = ctx.informers.forGroupVersionResource<StatefulSet>(STATEFUL_SETS);
    this.podInformer = ctx.informers.forGroupVersionResource<Pod>(PODS, {
      indexers: { [POD_CONTROLLER_UID_INDEX]: podControllerUidIndexFunc },
    });
    this.claimInformer = ctx.informers.forGroupVersionResource(CLAIMS);
    this.revisionInformer = ctx.informers.forGroupVersionResource(CONTROLLER_REVISIONS);
    const recorder = ctx.recorder('statefulset-controller');
    this.history = new ControllerHistory(ctx.client.controllerRevisions(), this.revisionInformer.getIndexer());
    const podControl = new StatefulPodControl(
      ctx.client.pods(),
      ctx.client.resource(CLAIMS),
      this.podInformer.getIndexer(),
      this.claimInformer.getIndexer(),
      recorder,
    );
    this.control = new StatefulSetControl({
      podControl,
      history: this.history,
      setClient: ctx.client.statefulSets(),
      setIndexer: this.setInformer.getIndexer() as unknown as Indexer,
      clock: ctx.clock,
      logger: ctx.logger,
    });
    this.setInformer.addEventHandler({
      onAdd: (set) => this.enqueue(set),
      onUpdate: (_old, cur) => this.enqueue(cur),
      onDelete: (set) => this.enqueue(unwrap(set)),
    });
    this.podInformer.addEventHandler({
      onAdd: (pod) => this.addPod(pod),
      onUpdate: (old, cur) => this.updatePod(old, cur),
      onDelete: (pod) => this.deletePod(unwrap(pod)),
    });
  }

  async run(): Promise<void> {
    const { signal, logger } = this.ctx;
    logger.info('Starting stateful set controller');
    try {
      const synced = await waitForCacheSync(
        signal,
        this.podInformer,
        this.setInformer,
        this.claimInformer,
        this.revisionInformer,
      );
      if (!synced) return;
      await runWorkers({
        queue: this.queue,
        workers: this.ctx.options.concurrentStatefulsetSyncs,
        sync: (key) => this.sync(key),
        signal,
        logger,
      });
    } finally {
      this.queue.shutDown();
      logger.info('Shutting down statefulset controller');
    }
  }

  private enqueue(set: KubeObject, afterMs?: number): void {
    const key = metaNamespaceKeyFunc(set);
    if (afterMs === undefined) this.queue.add(key);
    else this.queue.addAfter(key, afterMs);
  }

  // Pod events, mapped to the sets they concern.

  private resolveControllerRef(namespace: string, ref: { kind: string; name: string; uid: string }) {
    if (ref.kind !== STATEFUL_SET_KIND.kind) return undefined;
    const set = this.setInformer.getIndexer().getByKey(`${namespace}/${ref.name}`);
    return set && set.metadata.uid === ref.uid ? set : undefined;
  }

  /** The sets whose selector matches an orphan pod. */
  private setsForPod(pod: Pod): StatefulSet[] {
    const sets = this.setInformer
      .getIndexer()
      .byIndex(NAMESPACE_INDEX, pod.metadata.namespace ?? '')
      .filter((set) => {
        try {
          const selector = LabelSelector.fromObject(set.spec.selector);
          return !selector.isEmpty() && selector.matches(pod.metadata.labels);
        } catch {
          return false;
        }
      });
    if (sets.length > 1) {
      this.ctx.logger.error('user error: more than one StatefulSet is selecting pods with labels', {
        labels: pod.metadata.labels,
        sets: sets.map((s) => s.metadata.name),
      });
    }
    return sets;
  }

  private addPod(pod: Pod): void {
    if (pod.metadata.deletionTimestamp) {
      this.deletePod(pod);
      return;
    }
    const ref = getControllerOf(pod);
    if (ref) {
      const set = this.resolveControllerRef(pod.metadata.namespace ?? '', ref);
      if (set) this.enqueue(set);
      return;
    }
    for (const set of this.setsForPod(pod)) this.enqueue(set);
  }

  private updatePod(old: Pod, cur: Pod): void {
    if (old.metadata.resourceVersion === cur.metadata.resourceVersion) return;
    if (controlledByOtherKind(old, cur, STATEFUL_SET_KIND.kind)) return;
    const ns = cur.metadata.namespace ?? '';
    const labelsChanged = JSON.stringify(old.metadata.labels ?? {}) !== JSON.stringify(cur.metadata.labels ?? {});
    const curRef = getControllerOf(cur);
    const oldRef = getControllerOf(old);
    const refChanged = JSON.stringify(curRef ?? null) !== JSON.stringify(oldRef ?? null);
    if (refChanged && oldRef) {
      const set = this.resolveControllerRef(ns, oldRef);
      if (set) this.enqueue(set);
    }
    if (curRef) {
      const set = this.resolveControllerRef(ns, curRef);
      if (!set) return;
      this.enqueue(set);
      // Look again once the newly ready pod has been ready for minReadySeconds (plus a second of clock skew).
      const minReadySeconds = set.spec.minReadySeconds ?? 0;
      if (!isPodReady(old) && isPodReady(cur) && minReadySeconds > 0) {
        this.enqueue(set, minReadySeconds * 1000 + 1000);
      }
      return;
    }
    if (labelsChanged || refChanged) for (const set of this.setsForPod(cur)) this.enqueue(set);
  }

  private deletePod(pod: Pod): void {
    if (!pod?.metadata) return;
    const ref = getControllerOf(pod);
    if (!ref) return;
    const set = this.resolveControllerRef(pod.metadata.namespace ?? '', ref);
    if (set) this.enqueue(set);
  }

  // The sync.

  async sync(key: string): Promise<void> {
    const cached = this.setInformer.getIndexer().getByKey(key);
    if (!cached) {
      this.ctx.logger.info('StatefulSet has been deleted', { key });
      return;
    }
    let selector: LabelSelector;
    try {
      selector = LabelSelector.fromObject(cached.spec.selector);
    } catch (err) {
      // Not transient: do not retry.
      this.ctx.logger.error(`error converting StatefulSet ${key} selector`, { err: String(err) });
      return;
    }
    await this.adoptOrphanRevisions(cached);
    const pods = await this.podsFor(cached, selector);
    const status = await this.control.updateStatefulSet(cached, pods);
    // Once more after minReadySeconds, so availableReplicas catches up on its own.
    const minReadySeconds = cached.spec.minReadySeconds ?? 0;
    if (minReadySeconds > 0 && status.availableReplicas !== (cached.spec.replicas ?? 1)) {
      this.enqueue(cached, minReadySeconds * 1000);
    }
  }

  private canAdopt(set: StatefulSet) {
    return ownerCanAdopt(this.ctx.client.statefulSets(), set, STATEFUL_SET_KIND);
  }

  private async adoptOrphanRevisions(set: StatefulSet): Promise<void> {
    const orphans = this.control.listRevisions(set).filter((r) => !getControllerOf(r));
    if (orphans.length === 0) return;
    try {
      await this.canAdopt(set)();
    } catch (err) {
      throw new Error(`can't adopt ControllerRevisions: ${err instanceof Error ? err.message : String(err)}`);
    }
    for (const revision of orphans) await this.history.adopt(set, STATEFUL_SET_KIND, revision);
  }

  /** The pods the set controls after adopting matching orphans named as its members and releasing the rest. */
  private async podsFor(set: StatefulSet, selector: LabelSelector): Promise<Pod[]> {
    const manager = new ControllerRefManager<Pod>({
      owner: set,
      ownerKind: STATEFUL_SET_KIND,
      selector,
      children: this.ctx.client.pods(),
      canAdopt: this.canAdopt(set),
    });
    try {
      return await manager.claim(filterPodsByOwner(this.podInformer.getIndexer(), set), (pod) => isMemberOf(set, pod));
    } catch (err) {
      if (err instanceof ClaimError) throw new Error(err.message);
      throw err;
    }
  }
}
