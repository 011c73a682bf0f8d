/**
 * The deployment controller (upstream's pkg/controller/deployment): watches Deployments, ReplicaSets and pods,
 * queues the Deployment a change concerns, and syncs one Deployment at a time: claims its ReplicaSets by
 * selector, then (by priority) only updates the status of one being deleted, scales a paused one or one whose
 * replicas changed, or takes the next step of its rollout strategy.
 */
import { LabelSelector } from '../../api/labels.js';
import type { SharedIndexInformer } from '../../client/cache/shared-informer.js';
import { DeletedFinalStateUnknown, NAMESPACE_INDEX, splitMetaNamespaceKey } from '../../client/cache/store.js';
import { waitForCacheSync } from '../../client/cache/wait-for-cache-sync.js';
import type { EventRecorder } from '../../client/events/broadcaster.js';
import type { KubeObject } from '../../client/types.js';
import { createRateLimitingQueue, type RateLimitingQueue } from '../../client/workqueue/rate-limiting.js';
import {
  ClaimError,
  CONTROLLER_UID_INDEX,
  ControllerRefManager,
  controllerUidIndexFunc,
  getControllerOf,
  ownerCanAdopt,
  POD_CONTROLLER_UID_INDEX,
  podControllerUidIndexFunc,
} from '../common/index.js';
import type { Controller, ControllerContext } from '../context.js';
import { runWorkers } from '../worker.js';
import type { SyncDeps } from './deps.js';
import { DEPLOYMENT_KIND } from './new-replica-set.js';
import { type PodMap, rolloutRecreate } from './recreate.js';
import { rolloutRolling } from './rolling.js';
import { checkPausedConditions, isScalingEvent, syncScaling, syncStatusOnly } from './sync.js';
import type { Deployment, ReplicaSet } from './util/types.js';

const DEPLOYMENTS = { group: 'apps', version: 'v1', resource: 'deployments' };
const REPLICA_SETS = { group: 'apps', version: 'v1', resource: 'replicasets' };
const PODS = { group: '', version: 'v1', resource: 'pods' };

/** Upstream's maxRetries: a Deployment failing this often is dropped until its next change. */
const MAX_RETRIES = 15;

type Tombstone<T> = T | DeletedFinalStateUnknown<T>;
const unwrap = <T>(obj: Tombstone<T>): T => (obj instanceof DeletedFinalStateUnknown ? obj.obj : obj);
const keyOf = (obj: KubeObject) => `${obj.metadata.namespace ?? ''}/${obj.metadata.name ?? ''}`;

/** A selector that selects everything (empty) or nothing (unparsable) counts as no selector for matching. */
function selectorOf(d: Deployment): LabelSelector | undefined {
  try {
    const s = LabelSelector.fromObject(d.spec.selector);
    return s.isEmpty() ? undefined : s;
  } catch {
    return undefined;
  }
}

function selectsEverything(d: Deployment): boolean {
  const s = d.spec.selector;
  return !s || (Object.keys(s.matchLabels ?? {}).length === 0 && (s.matchExpressions ?? []).length === 0);
}

export class DeploymentController implements Controller {
  private readonly queue: RateLimitingQueue<string>;
  private readonly dInformer: SharedIndexInformer<Deployment>;
  private readonly rsInformer: SharedIndexInformer<ReplicaSet>;
  private readonly podInformer: SharedIndexInformer<KubeObject>;
  private readonly recorder: EventRecorder;
  private readonly deps: SyncDeps;

  constructor(private readonly ctx: ControllerContext) {
    this.queue = createRateLimitingQueue<string>({ clock: ctx.clock, name: 'deployment' });
    this.recorder = ctx.recorder('deployment-controller');
    this.dInformer = ctx.informers.forGroupVersionResource<Deployment>(DEPLOYMENTS);
    this.rsInformer = ctx.informers.forGroupVersionResource<ReplicaSet>(REPLICA_SETS, {
      indexers: { [CONTROLLER_UID_INDEX]: controllerUidIndexFunc },
    });
    this.podInformer = ctx.informers.forGroupVersionResource(PODS, {
      indexers: { [POD_CONTROLLER_UID_INDEX]: podControllerUidIndexFunc },
    });
    this.dInformer.addEventHandler({
      onAdd: (d) => this.enqueue(d),
      onUpdate: (_old, cur) => this.enqueue(cur),
      onDelete: (d) => this.enqueue(unwrap(d)),
    });
    this.rsInformer.addEventHandler({
      onAdd: (rs) => this.addReplicaSet(rs),
      onUpdate: (old, cur) => this.updateReplicaSet(old, cur),
      onDelete: (rs) => this.deleteReplicaSet(unwrap(rs)),
    });
    this.podInformer.addEventHandler({ onDelete: (pod) => this.deletePod(unwrap(pod)) });
    this.deps = {
      client: ctx.client,
      recorder: this.recorder,
      clock: ctx.clock,
      logger: ctx.logger,
      cachedReplicaSet: (ns, name) => this.rsInformer.getIndexer().getByKey(`${ns}/${name}`),
      enqueueAfter: (d, ms) => this.queue.addAfter(keyOf(d), ms),
      enqueueRateLimited: (d) => this.queue.addRateLimited(keyOf(d)),
    };
  }

  async run(): Promise<void> {
    const { signal, logger } = this.ctx;
    logger.info('Starting controller', { controller: 'deployment' });
    if (!(await waitForCacheSync(signal, this.dInformer, this.rsInformer, this.podInformer))) {
      this.queue.shutDown();
      return;
    }
    await runWorkers({
      queue: this.queue,
      workers: this.ctx.options.concurrentDeploymentSyncs,
      sync: (key) => this.syncDeployment(key),
      signal,
      logger,
      maxRetries: MAX_RETRIES,
    });
    logger.info('Shutting down controller', { controller: 'deployment' });
  }

  private enqueue(d: Deployment): void {
    this.queue.add(keyOf(d));
  }

  // ReplicaSet and pod events, mapped to the Deployments they concern.

  /** resolveControllerRef: the Deployment a controllerRef names, if it is the one cached under that uid. */
  private resolveControllerRef(
    namespace: string,
    ref: { kind: string; name: string; uid: string },
  ): Deployment | undefined {
    if (ref.kind !== 'Deployment') return undefined;
    const d = this.dInformer.getIndexer().getByKey(`${namespace}/${ref.name}`);
    return d && d.metadata.uid === ref.uid ? d : undefined;
  }

  /** getDeploymentsForReplicaSet: the Deployments whose selector matches an orphan ReplicaSet's labels. */
  private deploymentsForReplicaSet(rs: ReplicaSet): Deployment[] {
    const ns = rs.metadata.namespace ?? '';
    return this.dInformer
      .getIndexer()
      .byIndex(NAMESPACE_INDEX, ns)
      .filter((d) => selectorOf(d)?.matches(rs.metadata.labels) ?? false);
  }

  private addReplicaSet(rs: ReplicaSet): void {
    if (rs.metadata.deletionTimestamp) {
      this.deleteReplicaSet(rs);
      return;
    }
    const ref = getControllerOf(rs);
    if (ref) {
      const d = this.resolveControllerRef(rs.metadata.namespace ?? '', ref);
      if (d) this.enqueue(d);
      return;
    }
    // An orphan: the Deployments that may adopt it.
    for (const d of this.deploymentsForReplicaSet(rs)) this.enqueue(d);
  }

  private updateReplicaSet(old: ReplicaSet, cur: ReplicaSet): void {
    if (old.metadata.resourceVersion === cur.metadata.resourceVersion) return;
    const ns = cur.metadata.namespace ?? '';
    const curRef = getControllerOf(cur);
    const oldRef = getControllerOf(old);
    const refChanged = curRef?.uid !== oldRef?.uid;
    if (refChanged && oldRef) {
      const d = this.resolveControllerRef(ns, oldRef);
      if (d) this.enqueue(d);
    }
    if (curRef) {
      const d = this.resolveControllerRef(ns, curRef);
      if (d) this.enqueue(d);
      return;
    }
    const labelsChanged = JSON.stringify(old.metadata.labels ?? {}) !== JSON.stringify(cur.metadata.labels ?? {});
    if (labelsChanged || refChanged) {
      for (const d of this.deploymentsForReplicaSet(cur)) this.enqueue(d);
    }
  }

  private deleteReplicaSet(rs: ReplicaSet): void {
    const ref = getControllerOf(rs);
    if (!ref) return;
    const d = this.resolveControllerRef(rs.metadata.namespace ?? '', ref);
    if (d) this.enqueue(d);
  }

  /** A Recreate Deployment waits for its old pods to be gone: the last one's deletion queues it. */
  private deletePod(pod: KubeObject): void {
    const ref = getControllerOf(pod);
    if (ref?.kind !== 'ReplicaSet') return;
    const ns = pod.metadata.namespace ?? '';
    const rs = this.rsInformer.getIndexer().getByKey(`${ns}/${ref.name}`);
    if (!rs || rs.metadata.uid !== ref.uid) return;
    const rsRef = getControllerOf(rs);
    const d = rsRef ? this.resolveControllerRef(ns, rsRef) : undefined;
    if (d?.spec.strategy?.type !== 'Recreate') return;
    const owned = this.rsInformer.getIndexer().byIndex(CONTROLLER_UID_INDEX, d.metadata.uid ?? '');
    const pods = this.podMapFor(owned);
    let count = 0;
    for (const list of pods.values()) count += list.length;
    if (count === 0) this.enqueue(d);
  }

  // The sync.

  /** getReplicaSetsForDeployment: the ReplicaSets it controls, after adopting matching orphans and releasing others. */
  private async replicaSetsFor(d: Deployment): Promise<ReplicaSet[]> {
    const ns = d.metadata.namespace ?? '';
    const indexer = this.rsInformer.getIndexer();
    const owned = indexer.byIndex(CONTROLLER_UID_INDEX, d.metadata.uid ?? '');
    const orphans = indexer.byIndex(NAMESPACE_INDEX, ns).filter((rs) => !getControllerOf(rs));
    const selector = LabelSelector.fromObject(d.spec.selector);
    const manager = new ControllerRefManager<ReplicaSet>({
      owner: d,
      ownerKind: DEPLOYMENT_KIND,
      selector,
      children: this.ctx.client.replicaSets(),
      canAdopt: ownerCanAdopt(this.ctx.client.deployments(), d, DEPLOYMENT_KIND),
    });
    return manager.claim([...owned, ...orphans]);
  }

  /** getPodMapForDeployment: the pods of each ReplicaSet, by the ReplicaSet's uid. */
  private podMapFor(sets: readonly ReplicaSet[]): PodMap {
    const indexer = this.podInformer.getIndexer();
    const map: PodMap = new Map();
    for (const rs of sets) {
      const uid = rs.metadata.uid ?? '';
      map.set(uid, indexer.byIndex(POD_CONTROLLER_UID_INDEX, uid));
    }
    return map;
  }

  async syncDeployment(key: string): Promise<void> {
    const { namespace, name } = splitMetaNamespaceKey(key);
    const cached = this.dInformer.getIndexer().getByKey(key);
    if (!cached) {
      this.ctx.logger.v(2).info('Deployment has been deleted', { deployment: `${namespace}/${name}` });
      return;
    }
    const d = structuredClone(cached);
    const deps = this.deps;

    if (selectsEverything(d)) {
      this.recorder.event(
        d,
        'Warning',
        'SelectingAll',
        'This deployment is selecting all pods. A non-empty selector is required.',
      );
      if ((d.status?.observedGeneration ?? 0) < (d.metadata.generation ?? 0)) {
        d.status = { ...d.status, observedGeneration: d.metadata.generation ?? 0 };
        await this.ctx.client.deployments(namespace).updateStatus(d);
      }
      return;
    }

    let rsList: ReplicaSet[];
    try {
      rsList = await this.replicaSetsFor(d);
    } catch (err) {
      if (err instanceof ClaimError) throw new Error(err.message);
      throw err;
    }
    if (d.metadata.deletionTimestamp) return syncStatusOnly(deps, d, rsList);

    await checkPausedConditions(deps, d);
    if (d.spec.paused) return syncScaling(deps, d, rsList);

    if (await isScalingEvent(deps, d, rsList)) return syncScaling(deps, d, rsList);

    switch (d.spec.strategy?.type) {
      case 'Recreate':
        // Only Recreate reads the pods (upstream lists them on every sync; a set of 30,000 made that the cost).
        return rolloutRecreate(deps, d, rsList, this.podMapFor(rsList));
      case 'RollingUpdate':
        return rolloutRolling(deps, d, rsList);
    }
    throw new Error(`unexpected deployment strategy type: ${d.spec.strategy?.type}`);
  }
}
