/**
 * The DaemonSet controller (upstream's pkg/controller/daemon): one pod per node that should run one. sync(key)
 * builds the revision history, then — once the cache has seen its own earlier creations and deletions — creates pods
 * for nodes that need one (each pinned to its node by required node affinity and placed by the scheduler), deletes
 * pods from nodes that should no longer run one, deletes failed pods (with per-node backoff) so they are replaced,
 * runs the RollingUpdate strategy (OnDelete leaves old pods alone), trims the history, and writes the status.
 * Nodes added, removed, relabelled or retainted wake the DaemonSets whose placement on them changes.
 */

import { LabelSelector } from '../../api/labels.js';
import type { SharedIndexInformer } from '../../client/cache/shared-informer.js';
import {
  DeletedFinalStateUnknown,
  type Indexer,
  metaNamespaceKeyFunc,
  splitMetaNamespaceKey,
} from '../../client/cache/store.js';
import { waitForCacheSync } from '../../client/cache/wait-for-cache-sync.js';
import type { EventRecorder } from '../../client/events/broadcaster.js';
import { isNotFound, type KubeObject } from '../../client/types.js';
import { createRateLimitingQueue, type RateLimitingQueue } from '../../client/workqueue/rate-limiting.js';
import type { Logger } from '../../util/logger.js';
import {
  aggregateMessage,
  ControllerRefManager,
  controlledByOtherKind,
  getControllerOf,
  newControllerRef,
  ownerCanAdopt,
} from '../common/controller-ref.js';
import { ControllerExpectations } from '../common/expectations.js';
import {
  filterPodsByOwner,
  isNamespaceTerminatingError,
  isPodAvailable,
  isPodReady,
  POD_CONTROLLER_UID_INDEX,
  PodControl,
  podControllerUidIndexFunc,
  SLOW_START_INITIAL_BATCH_SIZE,
} from '../common/pods.js';
import type { Controller, ControllerContext } from '../context.js';
import { CONTROLLER_REVISION_HASH_LABEL_KEY } from '../history/hash.js';
import { CONTROLLER_REVISIONS } from '../history/history.js';
import { runWorkers } from '../worker.js';
import { PerKeyBackoff } from './backoff.js';
import { nodeShouldRunDaemonPod, replaceNodeNameAffinity, targetNodeName } from './placement.js';
import { allowsSurge, compareDaemonPods, createPodTemplate, templateGeneration } from './pods.js';
import { DAEMON_SET_KIND, DaemonSetHistory } from './revisions.js';
import { planRollingUpdate } from './rolling.js';
import { countDaemonSet, storeDaemonSetStatus } from './status.js';

export const DAEMON_SET_CONTROLLER_NAME = 'daemonset-controller';
/** Upstream's BurstReplicas for DaemonSets: the most pods one sync creates or deletes. */
export const DAEMON_SET_BURST_REPLICAS = 250;
export const FAILED_DAEMON_POD_REASON = 'FailedDaemonPod';
export const SUCCEEDED_DAEMON_POD_REASON = 'SucceededDaemonPod';
export const SELECTING_ALL_REASON = 'SelectingAll';

const DAEMON_SETS = { group: 'apps', version: 'v1', resource: 'daemonsets' };
const PODS = { group: '', version: 'v1', resource: 'pods' };
const NODES = { group: '', version: 'v1', resource: 'nodes' };
/** The failed-pod backoff: 1 s, doubling up to 15 min. */
const FAILED_POD_BACKOFF_INITIAL_MS = 1_000;
const FAILED_POD_BACKOFF_MAX_MS = 15 * 60_000;

const sameJson = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/** Condition types whose status is True, for telling meaningful node updates from heartbeats. */
function trueConditions(node: KubeObject): string {
  return (node.status?.conditions ?? [])
    .filter((c: { status: string }) => c.status === 'True')
    .map((c: { type: string }) => c.type)
    .sort()
    .join(',');
}

/** shouldIgnoreNodeUpdate: nothing but heartbeats and the resourceVersion changed. */
function shouldIgnoreNodeUpdate(oldNode: KubeObject, curNode: KubeObject): boolean {
  if (trueConditions(oldNode) !== trueConditions(curNode)) return false;
  const strip = (n: KubeObject) => ({
    ...n,
    metadata: { ...n.metadata, resourceVersion: undefined, managedFields: undefined },
    status: { ...(n.status ?? {}), conditions: undefined },
  });
  return sameJson(strip(oldNode), strip(curNode));
}

export class DaemonSetController implements Controller {
  readonly queue: RateLimitingQueue<string>;
  readonly expectations: ControllerExpectations;
  private readonly dsInformer: SharedIndexInformer;
  private readonly podInformer: SharedIndexInformer;
  private readonly nodeInformer: SharedIndexInformer;
  private readonly historyInformer: SharedIndexInformer;
  private readonly dsIndexer: Indexer;
  private readonly podIndexer: Indexer;
  private readonly nodeIndexer: Indexer;
  private readonly podControl: PodControl;
  private readonly recorder: EventRecorder;
  private readonly history: DaemonSetHistory;
  private readonly failedPodsBackoff = new PerKeyBackoff(FAILED_POD_BACKOFF_INITIAL_MS, FAILED_POD_BACKOFF_MAX_MS);
  private readonly log: Logger;
  private readonly burstReplicas: number;

  constructor(
    private readonly ctx: ControllerContext,
    opts: { burstReplicas?: number } = {},
  ) {
    this.log = ctx.logger;
    this.burstReplicas = opts.burstReplicas ?? DAEMON_SET_BURST_REPLICAS;
    this.queue = createRateLimitingQueue<string>({ clock: ctx.clock, name: 'daemonset' });
    this.expectations = new ControllerExpectations(ctx.clock);
    this.recorder = ctx.recorder(DAEMON_SET_CONTROLLER_NAME);
    this.podControl = new PodControl(ctx.client.pods(), this.recorder, this.log);
    this.dsInformer = ctx.informers.forGroupVersionResource(DAEMON_SETS);
    this.podInformer = ctx.informers.forGroupVersionResource(PODS, {
      indexers: { [POD_CONTROLLER_UID_INDEX]: podControllerUidIndexFunc },
    });
    this.nodeInformer = ctx.informers.forGroupVersionResource(NODES);
    this.historyInformer = ctx.informers.forGroupVersionResource(CONTROLLER_REVISIONS);
    this.dsIndexer = this.dsInformer.getIndexer();
    this.podIndexer = this.podInformer.getIndexer();
    this.nodeIndexer = this.nodeInformer.getIndexer();
    this.history = new DaemonSetHistory(ctx.client, this.historyInformer.getIndexer(), this.log);

    this.dsInformer.addEventHandler({
      onAdd: (ds) => this.enqueue(ds),
      onUpdate: (oldDs, curDs) => {
        if (oldDs.metadata.uid !== curDs.metadata.uid) this.deleteDaemonSet(oldDs);
        this.enqueue(curDs);
      },
      onDelete: (ds) => this.deleteDaemonSet(ds),
    });
    this.historyInformer.addEventHandler({
      onAdd: (h) => this.addHistory(h),
      onUpdate: (oldH, curH) => this.updateHistory(oldH, curH),
      onDelete: (h) => this.deleteHistory(h),
    });
    this.podInformer.addEventHandler({
      onAdd: (pod) => this.addPod(pod),
      onUpdate: (oldPod, curPod) => this.updatePod(oldPod, curPod),
      onDelete: (pod) => this.deletePod(pod),
    });
    this.nodeInformer.addEventHandler({
      onAdd: (node) => this.addNode(node),
      onUpdate: (oldNode, curNode) => this.updateNode(oldNode, curNode),
    });
  }

  async run(): Promise<void> {
    const { signal } = this.ctx;
    this.log.info('Starting daemon sets controller');
    const gc = this.ctx.clock.every(60_000, () => this.failedPodsBackoff.gc(this.ctx.clock.now()));
    try {
      const synced = await waitForCacheSync(
        signal,
        this.dsInformer,
        this.podInformer,
        this.nodeInformer,
        this.historyInformer,
      );
      if (!synced) return;
      await runWorkers({
        queue: this.queue,
        workers: this.ctx.options.concurrentDaemonsetSyncs,
        sync: (key) => this.sync(key),
        signal,
        logger: this.log,
      });
    } finally {
      gc.cancel();
      this.queue.shutDown();
      this.log.info('Shutting down daemon sets controller');
    }
  }

  // Event handlers: they only enqueue keys and record what was observed.

  private enqueue(ds: KubeObject, afterMs?: number): void {
    const key = metaNamespaceKeyFunc(ds);
    if (afterMs === undefined) this.queue.add(key);
    else this.queue.addAfter(key, afterMs);
  }

  private deleteDaemonSet(obj: KubeObject | DeletedFinalStateUnknown<KubeObject>): void {
    const key = metaNamespaceKeyFunc(obj);
    this.expectations.deleteExpectations(key);
    this.queue.add(key);
  }

  private resolveControllerRef(namespace: string, ref: { kind: string; name: string; uid: string }) {
    if (ref.kind !== DAEMON_SET_KIND.kind) return undefined;
    const ds = this.dsIndexer.getByKey(`${namespace}/${ref.name}`);
    return ds && ds.metadata.uid === ref.uid ? ds : undefined;
  }

  /** The DaemonSets whose selector matches an orphan's labels. */
  private matchingDaemonSets(obj: KubeObject): KubeObject[] {
    return this.dsIndexer.byIndex('namespace', obj.metadata.namespace ?? '').filter((ds) => {
      try {
        const selector = LabelSelector.fromObject(ds.spec?.selector);
        return !selector.isEmpty() && selector.matches(obj.metadata.labels);
      } catch {
        return false;
      }
    });
  }

  private addHistory(h: KubeObject): void {
    if (h.metadata.deletionTimestamp) {
      this.deleteHistory(h);
      return;
    }
    const ref = getControllerOf(h);
    if (ref) {
      const ds = this.resolveControllerRef(h.metadata.namespace ?? '', ref);
      if (ds) this.log.v(4).info('Observed a ControllerRevision', { controllerRevision: h.metadata.name });
      return;
    }
    for (const ds of this.matchingDaemonSets(h)) this.enqueue(ds);
  }

  private updateHistory(oldH: KubeObject, curH: KubeObject): void {
    if (oldH.metadata.resourceVersion === curH.metadata.resourceVersion) return;
    const curRef = getControllerOf(curH);
    const oldRef = getControllerOf(oldH);
    const refChanged = !sameJson(curRef, oldRef);
    if (refChanged && oldRef) {
      const ds = this.resolveControllerRef(oldH.metadata.namespace ?? '', oldRef);
      if (ds) this.enqueue(ds);
    }
    if (curRef) {
      const ds = this.resolveControllerRef(curH.metadata.namespace ?? '', curRef);
      if (ds) this.enqueue(ds);
      return;
    }
    if (refChanged || !sameJson(oldH.metadata.labels, curH.metadata.labels)) {
      for (const ds of this.matchingDaemonSets(curH)) this.enqueue(ds);
    }
  }

  private deleteHistory(obj: KubeObject | DeletedFinalStateUnknown<KubeObject>): void {
    const h = obj instanceof DeletedFinalStateUnknown ? obj.obj : obj;
    if (!h?.metadata) return;
    const ref = getControllerOf(h);
    const ds = ref && this.resolveControllerRef(h.metadata.namespace ?? '', ref);
    if (ds) this.enqueue(ds);
  }

  private addPod(pod: KubeObject): void {
    if (pod.metadata.deletionTimestamp) {
      this.deletePod(pod);
      return;
    }
    const ref = getControllerOf(pod);
    if (ref) {
      const ds = this.resolveControllerRef(pod.metadata.namespace ?? '', ref);
      if (!ds) return;
      this.expectations.creationObserved(metaNamespaceKeyFunc(ds));
      this.enqueue(ds);
      return;
    }
    for (const ds of this.matchingDaemonSets(pod)) this.enqueue(ds);
  }

  private updatePod(oldPod: KubeObject, curPod: KubeObject): void {
    if (oldPod.metadata.resourceVersion === curPod.metadata.resourceVersion) return;
    if (controlledByOtherKind(oldPod, curPod, DAEMON_SET_KIND.kind)) return;
    if (curPod.metadata.deletionTimestamp) {
      this.deletePod(curPod);
      return;
    }
    const curRef = getControllerOf(curPod);
    const oldRef = getControllerOf(oldPod);
    const refChanged = !sameJson(curRef, oldRef);
    if (refChanged && oldRef) {
      const ds = this.resolveControllerRef(oldPod.metadata.namespace ?? '', oldRef);
      if (ds) this.enqueue(ds);
    }
    if (curRef) {
      const ds = this.resolveControllerRef(curPod.metadata.namespace ?? '', curRef);
      if (!ds) return;
      this.enqueue(ds);
      const minReady: number = ds.spec?.minReadySeconds ?? 0;
      // Come back when the pod has been ready long enough to count as available (a second of slack, as upstream).
      if (!isPodReady(oldPod) && isPodReady(curPod) && minReady > 0) this.enqueue(ds, minReady * 1000 + 1000);
      return;
    }
    if (refChanged || !sameJson(oldPod.metadata.labels, curPod.metadata.labels)) {
      for (const ds of this.matchingDaemonSets(curPod)) this.enqueue(ds);
    }
  }

  private deletePod(obj: KubeObject | DeletedFinalStateUnknown<KubeObject>): void {
    const pod = obj instanceof DeletedFinalStateUnknown ? obj.obj : obj;
    if (!pod?.metadata) return;
    const ref = getControllerOf(pod);
    const ds = ref && this.resolveControllerRef(pod.metadata.namespace ?? '', ref);
    if (!ds) return;
    this.expectations.deletionObserved(metaNamespaceKeyFunc(ds));
    this.enqueue(ds);
  }

  private addNode(node: KubeObject): void {
    for (const ds of this.dsIndexer.list()) {
      if (nodeShouldRunDaemonPod(node, ds)[0]) this.enqueue(ds);
    }
  }

  private updateNode(oldNode: KubeObject, curNode: KubeObject): void {
    if (shouldIgnoreNodeUpdate(oldNode, curNode)) return;
    for (const ds of this.dsIndexer.list()) {
      const [oldRun, oldContinue] = nodeShouldRunDaemonPod(oldNode, ds);
      const [curRun, curContinue] = nodeShouldRunDaemonPod(curNode, ds);
      if (oldRun !== curRun || oldContinue !== curContinue) this.enqueue(ds);
    }
  }

  // The sync.

  /** Reconciles one DaemonSet by key. Throws to be retried with backoff. */
  async sync(key: string): Promise<void> {
    const start = this.ctx.clock.now();
    try {
      await this.syncDaemonSet(key);
    } finally {
      this.log.v(4).info('Finished syncing daemon set', { daemonset: key, durationMs: this.ctx.clock.now() - start });
    }
  }

  private async syncDaemonSet(key: string): Promise<void> {
    splitMetaNamespaceKey(key);
    const ds = this.dsIndexer.getByKey(key);
    if (!ds) {
      this.log.v(3).info('Daemon set has been deleted', { daemonset: key });
      this.expectations.deleteExpectations(key);
      return;
    }
    const nodes = this.nodeIndexer.list();
    const selector = ds.spec?.selector;
    if (selector && Object.keys(selector).length === 0) {
      this.recorder.event(
        this.subject(ds),
        'Warning',
        SELECTING_ALL_REASON,
        'This daemon set is selecting all pods. A non-empty selector is required.',
      );
      return;
    }
    // A DaemonSet being deleted has history and pods going away in no set order: its status cannot be trusted.
    if (ds.metadata.deletionTimestamp) return;

    let cur: Awaited<ReturnType<DaemonSetHistory['construct']>>;
    try {
      cur = await this.history.construct(ds, (hash) => this.relabelPods(ds, hash));
    } catch (err) {
      throw new Error(`failed to construct revisions of DaemonSet: ${message(err)}`);
    }
    const [current, old] = cur;
    const hash = current.metadata.labels?.[CONTROLLER_REVISION_HASH_LABEL_KEY] ?? '';

    if (!this.expectations.satisfiedExpectations(key)) {
      await this.updateStatus(ds, nodes, hash, false);
      return;
    }
    let updateError: unknown;
    try {
      await this.updateDaemonSet(ds, nodes, hash, key, old);
    } catch (err) {
      updateError = err;
    }
    try {
      await this.updateStatus(ds, nodes, hash, true);
    } catch (err) {
      if (updateError === undefined) throw err;
      this.log.error('Failed to update status', { daemonset: key, err: message(err) });
    }
    if (updateError !== undefined) throw updateError;
  }

  private subject(ds: KubeObject): KubeObject {
    return { ...ds, apiVersion: DAEMON_SET_KIND.apiVersion, kind: DAEMON_SET_KIND.kind };
  }

  /** The pods ds controls (adopting and releasing as needed), by the node each is for. */
  private async nodeToDaemonPods(ds: KubeObject): Promise<Map<string, KubeObject[]>> {
    const selector = LabelSelector.fromObject(ds.spec?.selector);
    const manager = new ControllerRefManager({
      owner: ds,
      ownerKind: DAEMON_SET_KIND,
      selector,
      children: this.ctx.client.pods(),
      canAdopt: ownerCanAdopt(this.ctx.client.daemonSets(), ds, DAEMON_SET_KIND),
    });
    // A pod this DaemonSet controls whose labels still match stays claimed without any API call (claim would say so
    // too); only orphans and pods to release go through claim, so a sync over thousands of pods stays synchronous.
    const uid = ds.metadata.uid;
    const owned: KubeObject[] = [];
    const others: KubeObject[] = [];
    for (const pod of filterPodsByOwner(this.podIndexer, ds)) {
      if (getControllerOf(pod)?.uid === uid && selector.matches(pod.metadata.labels)) owned.push(pod);
      else others.push(pod);
    }
    const pods = others.length === 0 ? owned : owned.concat(await manager.claim(others));
    const out = new Map<string, KubeObject[]>();
    for (const pod of pods) {
      const node = targetNodeName(pod);
      if (node === undefined) {
        this.log.v(4).info('Failed to get target node name of Pod in DaemonSet', { pod: pod.metadata.name });
        continue;
      }
      const list = out.get(node);
      if (list) list.push(pod);
      else out.set(node, [pod]);
    }
    return out;
  }

  private async relabelPods(ds: KubeObject, hash: string): Promise<void> {
    for (const pods of (await this.nodeToDaemonPods(ds)).values()) {
      for (const pod of pods) {
        if (pod.metadata.labels?.[CONTROLLER_REVISION_HASH_LABEL_KEY] === hash) continue;
        const toUpdate = structuredClone(pod);
        toUpdate.metadata.labels = { ...(toUpdate.metadata.labels ?? {}), [CONTROLLER_REVISION_HASH_LABEL_KEY]: hash };
        await this.ctx.client.pods(pod.metadata.namespace ?? '').update(toUpdate);
      }
    }
  }

  private async updateDaemonSet(
    ds: KubeObject,
    nodes: KubeObject[],
    hash: string,
    key: string,
    old: Awaited<ReturnType<DaemonSetHistory['construct']>>[1],
  ): Promise<void> {
    await this.manage(ds, nodes, hash);
    if (this.expectations.satisfiedExpectations(key) && ds.spec?.updateStrategy?.type === 'RollingUpdate') {
      const nodeToDaemonPods = await this.nodeToDaemonPods(ds);
      const plan = planRollingUpdate(ds, nodes, nodeToDaemonPods, hash, this.ctx.clock.now());
      await this.syncNodes(ds, plan.podsToDelete, plan.nodesToCreate, hash);
    }
    // Only a history longer than its limit needs the pods' revisions (to keep the ones still in use).
    if (old.length <= (ds.spec?.revisionHistoryLimit ?? 10)) return;
    const live = new Set<string>();
    for (const pods of (await this.nodeToDaemonPods(ds)).values()) {
      for (const pod of pods) {
        const h = pod.metadata.labels?.[CONTROLLER_REVISION_HASH_LABEL_KEY];
        if (h) live.add(h);
      }
    }
    try {
      await this.history.cleanup(ds, old, live);
    } catch (err) {
      throw new Error(`failed to clean up revisions of DaemonSet: ${message(err)}`);
    }
  }

  /** Works out, node by node, which pods to create and delete, and does it. */
  private async manage(ds: KubeObject, nodes: KubeObject[], hash: string): Promise<void> {
    let nodeToDaemonPods: Map<string, KubeObject[]>;
    try {
      nodeToDaemonPods = await this.nodeToDaemonPods(ds);
    } catch (err) {
      throw new Error(`couldn't get node to daemon pod mapping for daemon set "${ds.metadata.name}": ${message(err)}`);
    }
    const nodesNeedingPods: string[] = [];
    const podsToDelete: string[] = [];
    for (const node of nodes) this.podsShouldBeOnNode(node, nodeToDaemonPods, ds, hash, nodesNeedingPods, podsToDelete);
    // Unbound pods for nodes that no longer exist: never scheduled, so pod GC would not collect them.
    const existing = new Set(nodes.map((n) => n.metadata.name ?? ''));
    for (const [nodeName, pods] of nodeToDaemonPods) {
      if (existing.has(nodeName)) continue;
      for (const pod of pods) if (!pod.spec?.nodeName) podsToDelete.push(pod.metadata.name ?? '');
    }
    await this.syncNodes(ds, podsToDelete, nodesNeedingPods, hash);
  }

  private podsShouldBeOnNode(
    node: KubeObject,
    nodeToDaemonPods: Map<string, KubeObject[]>,
    ds: KubeObject,
    hash: string,
    nodesNeedingPods: string[],
    podsToDelete: string[],
  ): void {
    const nodeName = node.metadata.name ?? '';
    const [shouldRun, shouldContinueRunning] = nodeShouldRunDaemonPod(node, ds);
    const daemonPods = nodeToDaemonPods.get(nodeName);
    if (shouldRun && !daemonPods) {
      nodesNeedingPods.push(nodeName);
      return;
    }
    if (shouldContinueRunning) {
      const running: KubeObject[] = [];
      const namespace = ds.metadata.namespace ?? '';
      for (const pod of daemonPods ?? []) {
        if (pod.metadata.deletionTimestamp) continue;
        const phase = pod.status?.phase;
        if (phase === 'Failed') {
          // Kubelets may keep rejecting the pod: back off per node rather than fight in a hot loop.
          const backoffKey = `${ds.metadata.uid}/${ds.status?.observedGeneration ?? 0}/${nodeName}`;
          const now = this.ctx.clock.now();
          if (this.failedPodsBackoff.isInBackOffSinceUpdate(backoffKey, now)) {
            const delay = this.failedPodsBackoff.get(backoffKey);
            this.log.v(4).info('Deleting failed pod on node has been limited by backoff', {
              pod: pod.metadata.name,
              node: nodeName,
              currentDelayMs: delay,
            });
            this.enqueue(ds, delay);
            continue;
          }
          this.failedPodsBackoff.next(backoffKey, now);
          this.recorder.event(
            this.subject(ds),
            'Warning',
            FAILED_DAEMON_POD_REASON,
            `Found failed daemon pod ${namespace}/${pod.metadata.name} on node ${nodeName}, will try to kill it`,
          );
          podsToDelete.push(pod.metadata.name ?? '');
        } else if (phase === 'Succeeded') {
          this.recorder.event(
            this.subject(ds),
            'Normal',
            SUCCEEDED_DAEMON_POD_REASON,
            `Found succeeded daemon pod ${namespace}/${pod.metadata.name} on node ${nodeName}, will try to delete it`,
          );
          podsToDelete.push(pod.metadata.name ?? '');
        } else {
          running.push(pod);
        }
      }
      running.sort(compareDaemonPods);
      if (!allowsSurge(ds)) {
        // One pod per node: all but the oldest go.
        for (const pod of running.slice(1)) podsToDelete.push(pod.metadata.name ?? '');
        return;
      }
      if (running.length <= 1) {
        if (running.length === 0 && shouldRun) nodesNeedingPods.push(nodeName);
        return;
      }
      // Surging: keep the oldest new pod and the oldest old pod; the old one goes when it is not ready or when
      // the new one is available.
      let oldestNew: KubeObject | undefined;
      let oldestOld: KubeObject | undefined;
      for (const pod of running) {
        if (pod.metadata.labels?.[CONTROLLER_REVISION_HASH_LABEL_KEY] === hash) {
          if (!oldestNew) {
            oldestNew = pod;
            continue;
          }
        } else if (!oldestOld) {
          oldestOld = pod;
          continue;
        }
        podsToDelete.push(pod.metadata.name ?? '');
      }
      if (oldestNew && oldestOld) {
        const minReady: number = ds.spec?.minReadySeconds ?? 0;
        if (!isPodReady(oldestOld) || isPodAvailable(oldestNew, minReady, this.ctx.clock.now())) {
          podsToDelete.push(oldestOld.metadata.name ?? '');
        }
      }
      return;
    }
    if (daemonPods) {
      for (const pod of daemonPods) if (!pod.metadata.deletionTimestamp) podsToDelete.push(pod.metadata.name ?? '');
    }
  }

  /** Deletes the given pods and creates pods for the given nodes, at most burstReplicas of each. */
  private async syncNodes(ds: KubeObject, podsToDelete: string[], nodesNeedingPods: string[], hash: string) {
    const key = metaNamespaceKeyFunc(ds);
    const createDiff = Math.min(nodesNeedingPods.length, this.burstReplicas);
    const deleteDiff = Math.min(podsToDelete.length, this.burstReplicas);
    this.expectations.setExpectations(key, createDiff, deleteDiff);
    const errors: unknown[] = [];
    const namespace = ds.metadata.namespace ?? '';
    const subject = this.subject(ds);
    const ref = newControllerRef(ds, DAEMON_SET_KIND);
    const template = createPodTemplate(ds, templateGeneration(ds), hash);

    let pos = 0;
    for (let batch = Math.min(createDiff, SLOW_START_INITIAL_BATCH_SIZE); pos < createDiff; ) {
      const errorsBefore = errors.length;
      const slice = nodesNeedingPods.slice(pos, pos + batch);
      await Promise.all(
        slice.map(async (nodeName) => {
          const podTemplate = structuredClone(template);
          podTemplate.spec.affinity = replaceNodeNameAffinity(podTemplate.spec.affinity, nodeName);
          try {
            await this.podControl.createPods(namespace, podTemplate, subject, ref);
          } catch (err) {
            if (isNamespaceTerminatingError(err)) return;
            this.log.v(2).info('Failed creation, decrementing expectations for daemon set', { daemonset: key });
            this.expectations.creationObserved(key);
            errors.push(err);
          }
        }),
      );
      pos += batch;
      const skipped = createDiff - pos;
      if (errors.length > errorsBefore && skipped > 0) {
        this.log.v(2).info('Slow-start failure. Skipping creation pods, decrementing expectations for daemon set', {
          skippedPods: skipped,
          daemonset: key,
        });
        this.expectations.lowerExpectations(key, skipped, 0);
        break;
      }
      batch = Math.min(2 * batch, createDiff - pos);
    }

    await Promise.all(
      podsToDelete.slice(0, deleteDiff).map(async (name) => {
        try {
          await this.podControl.deletePod(namespace, name, subject);
        } catch (err) {
          this.expectations.deletionObserved(key);
          if (!isNotFound(err)) {
            this.log.v(2).info('Failed deletion, decremented expectations for daemon set', { daemonset: key });
            errors.push(err);
          }
        }
      }),
    );
    if (errors.length > 0) throw new Error(aggregateMessage(errors));
  }

  private async updateStatus(ds: KubeObject, nodes: KubeObject[], hash: string, updateObservedGeneration: boolean) {
    let nodeToDaemonPods: Map<string, KubeObject[]>;
    try {
      nodeToDaemonPods = await this.nodeToDaemonPods(ds);
    } catch (err) {
      throw new Error(`couldn't get node to daemon pod mapping for daemon set "${ds.metadata.name}": ${message(err)}`);
    }
    const counts = countDaemonSet(ds, nodes, nodeToDaemonPods, hash, this.ctx.clock.now());
    try {
      await storeDaemonSetStatus(this.ctx.client.daemonSets(), ds, counts, updateObservedGeneration);
    } catch (err) {
      throw new Error(
        `error storing status for daemon set ${ds.metadata.namespace}/${ds.metadata.name}: ${message(err)}`,
      );
    }
    const minReady: number = ds.spec?.minReadySeconds ?? 0;
    // A last line of defence against clock skew: look again after minReadySeconds.
    if (minReady > 0 && counts.numberReady !== counts.numberAvailable) this.enqueue(ds, minReady * 1000);
  }
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
