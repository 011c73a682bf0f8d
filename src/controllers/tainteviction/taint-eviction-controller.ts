/**
 * The taint eviction controller (upstream's pkg/controller/tainteviction, `taint-eviction-controller`): deletes
 * pods from nodes with NoExecute taints they do not tolerate.
 *
 * - A pod that does not tolerate every NoExecute taint of its node is deleted at once.
 * - A pod that tolerates them all is deleted after the smallest `tolerationSeconds` of the tolerations used
 *   (counted from when this controller saw the taint or the pod); with no `tolerationSeconds` it stays.
 * - Scheduled deletions are cancelled when the taints go or the pod's tolerations change so that it stays, with a
 *   `TaintManagerEviction` "Cancelling deletion of Pod ns/name" event.
 * - Before deleting, the pod gets the `DisruptionTarget` condition (reason `DeletionByTaintManager`) and a
 *   `TaintManagerEviction` "Marking for deletion Pod ns/name" event is recorded.
 *
 * Node and pod changes are queued by key; the known NoExecute taints of each node are kept in a map, updated
 * before the node's pods are looked at, so a pod seen later is judged against them.
 */

import { getMatchingTolerations, minTolerationTimeMs, type Taint, type Toleration } from '../../api/taints.js';
import type { SharedIndexInformer } from '../../client/cache/shared-informer.js';
import { DeletedFinalStateUnknown, type Indexer } from '../../client/cache/store.js';
import { waitForCacheSync } from '../../client/cache/wait-for-cache-sync.js';
import type { EventRecorder } from '../../client/events/broadcaster.js';
import { EVENT_TYPE_NORMAL } from '../../client/events/event.js';
import { isNotFound, type KubeObject } from '../../client/types.js';
import { createRateLimitingQueue, type RateLimitingQueue } from '../../client/workqueue/rate-limiting.js';
import type { Logger } from '../../util/logger.js';
import { updatePodCondition } from '../common/pod-conditions.js';
import type { PodCondition } from '../common/pods.js';
import { POD_NODE_NAME_INDEX, podNodeNameIndexFunc, podsAssignedToNode } from '../common/pods-by-node.js';
import type { Controller, ControllerContext } from '../context.js';
import { runWorkers } from '../worker.js';
import { TimedWorkerQueue } from './timed-workers.js';

export const CONTROLLER_NAME = 'taint-eviction-controller';
/** How many times a deletion is tried before it is given up (upstream's retries). */
const DELETE_RETRIES = 5;

const NODE_PREFIX = 'node\u0000';
const POD_PREFIX = 'pod\u0000';

const noExecuteTaints = (node: KubeObject | undefined): Taint[] =>
  ((node?.spec?.taints ?? []) as Taint[]).filter((t) => t?.effect === 'NoExecute');

const tolerationsOf = (pod: KubeObject | undefined): Toleration[] => (pod?.spec?.tolerations ?? []) as Toleration[];

const unwrap = (obj: KubeObject | DeletedFinalStateUnknown<KubeObject>) =>
  obj instanceof DeletedFinalStateUnknown ? obj.obj : obj;

export class TaintEvictionController implements Controller {
  readonly queue: RateLimitingQueue<string>;
  readonly evictions: TimedWorkerQueue;
  private readonly podInformer: SharedIndexInformer;
  private readonly nodeInformer: SharedIndexInformer;
  private readonly pods: Indexer;
  private readonly nodes: Indexer;
  private readonly recorder: EventRecorder;
  private readonly log: Logger;
  /** Node name → its NoExecute taints (nodes without any are absent). */
  private readonly taintedNodes = new Map<string, Taint[]>();

  constructor(private readonly ctx: ControllerContext) {
    this.log = ctx.logger;
    this.recorder = ctx.recorder(CONTROLLER_NAME);
    this.queue = createRateLimitingQueue<string>({ clock: ctx.clock, name: 'noexec_taint' });
    this.evictions = new TimedWorkerQueue((key, fireAt) => this.deletePod(key, fireAt), ctx.clock, this.log);
    this.podInformer = ctx.informers.forGroupVersionResource(
      { group: '', version: 'v1', resource: 'pods' },
      { indexers: { [POD_NODE_NAME_INDEX]: podNodeNameIndexFunc } },
    );
    this.nodeInformer = ctx.informers.forGroupVersionResource({ group: '', version: 'v1', resource: 'nodes' });
    this.pods = this.podInformer.getIndexer();
    this.nodes = this.nodeInformer.getIndexer();
    this.podInformer.addEventHandler({
      onAdd: (pod) => this.podUpdated(undefined, pod),
      onUpdate: (oldPod, pod) => this.podUpdated(oldPod, pod),
      onDelete: (pod) => this.podUpdated(unwrap(pod), undefined),
    });
    this.nodeInformer.addEventHandler({
      onAdd: (node) => this.nodeUpdated(undefined, node),
      onUpdate: (oldNode, node) => this.nodeUpdated(oldNode, node),
      onDelete: (node) => this.nodeUpdated(unwrap(node), undefined),
    });
  }

  async run(): Promise<void> {
    const { signal } = this.ctx;
    this.log.info('Starting controller', { controller: CONTROLLER_NAME });
    try {
      if (!(await waitForCacheSync(signal, this.podInformer, this.nodeInformer))) return;
      await runWorkers({
        queue: this.queue,
        // The handlers only read caches and schedule work, without awaiting anything: one worker suffices.
        workers: 1,
        sync: async (key) => this.handle(key),
        signal,
        logger: this.log,
      });
    } finally {
      this.queue.shutDown();
      await this.evictions.cancelAndWait();
      this.log.info('Shutting down controller', { controller: CONTROLLER_NAME });
    }
  }

  // Event handlers: queue what changed.

  private podUpdated(oldPod: KubeObject | undefined, newPod: KubeObject | undefined): void {
    const pod = newPod ?? oldPod;
    if (!pod?.metadata) return;
    if (
      oldPod &&
      newPod &&
      oldPod.spec?.nodeName === newPod.spec?.nodeName &&
      JSON.stringify(tolerationsOf(oldPod)) === JSON.stringify(tolerationsOf(newPod))
    ) {
      return;
    }
    const nodeName = String(pod.spec?.nodeName ?? '');
    this.queue.add(`${POD_PREFIX}${pod.metadata.namespace ?? ''}/${pod.metadata.name ?? ''}\u0000${nodeName}`);
  }

  private nodeUpdated(oldNode: KubeObject | undefined, newNode: KubeObject | undefined): void {
    const node = newNode ?? oldNode;
    if (!node?.metadata) return;
    if (oldNode && newNode && JSON.stringify(noExecuteTaints(oldNode)) === JSON.stringify(noExecuteTaints(newNode))) {
      return;
    }
    this.queue.add(`${NODE_PREFIX}${node.metadata.name ?? ''}`);
  }

  private handle(key: string): void {
    if (key.startsWith(NODE_PREFIX)) {
      this.handleNodeUpdate(key.slice(NODE_PREFIX.length));
      return;
    }
    const [podKey = '', nodeName = ''] = key.slice(POD_PREFIX.length).split('\u0000');
    this.handlePodUpdate(podKey, nodeName);
  }

  // Handlers.

  private cancelWorkWithEvent(podKey: string): void {
    if (this.evictions.cancelWork(podKey)) this.emitEvent(podKey, 'Cancelling deletion of Pod %s');
  }

  private processPodOnNode(podKey: string, nodeName: string, tolerations: Toleration[], taints: Taint[], now: number) {
    if (taints.length === 0) this.cancelWorkWithEvent(podKey);
    const used = getMatchingTolerations(taints, tolerations);
    if (!used) {
      this.log.v(2).info('Not all taints are tolerated after update for pod on node', { pod: podKey, node: nodeName });
      // Deleted right away: whatever was scheduled goes.
      this.cancelWorkWithEvent(podKey);
      this.evictions.addWork(podKey, now, now);
      return;
    }
    const minToleration = minTolerationTimeMs(used);
    if (minToleration < 0) {
      this.log.v(4).info('Current tolerations for pod tolerate forever, cancelling any scheduled deletion', {
        pod: podKey,
      });
      this.cancelWorkWithEvent(podKey);
      return;
    }
    let startTime = now;
    const triggerTime = startTime + minToleration;
    const scheduled = this.evictions.getWorker(podKey);
    if (scheduled) {
      startTime = scheduled.createdAt;
      // The deletion already scheduled is due sooner: keep it.
      if (startTime + minToleration < triggerTime) return;
      this.cancelWorkWithEvent(podKey);
    }
    this.evictions.addWork(podKey, startTime, triggerTime);
  }

  private handlePodUpdate(podKey: string, nodeName: string): void {
    const pod = this.pods.getByKey(podKey);
    if (!pod) {
      this.log.v(4).info('Noticed pod deletion', { pod: podKey });
      this.cancelWorkWithEvent(podKey);
      return;
    }
    // Only the item of the pod's current node is acted on.
    if ((pod.spec?.nodeName ?? '') !== nodeName) return;
    this.log.v(4).info('Noticed pod update', { pod: podKey });
    if (nodeName === '') return;
    const taints = this.taintedNodes.get(nodeName);
    // Not tainted (or gone): whatever was scheduled was cancelled when the taints went.
    if (!taints) return;
    this.processPodOnNode(podKey, nodeName, tolerationsOf(pod), taints, this.ctx.clock.now());
  }

  private handleNodeUpdate(nodeName: string): void {
    const node = this.nodes.getByKey(nodeName);
    if (!node) {
      this.log.v(4).info('Noticed node deletion', { node: nodeName });
      this.taintedNodes.delete(nodeName);
      return;
    }
    this.log.v(4).info('Noticed node update', { node: nodeName });
    const taints = noExecuteTaints(node);
    if (taints.length === 0) this.taintedNodes.delete(nodeName);
    else this.taintedNodes.set(nodeName, taints);
    const pods = podsAssignedToNode(this.pods, nodeName);
    if (pods.length === 0) return;
    const keyOf = (p: KubeObject) => `${p.metadata.namespace ?? ''}/${p.metadata.name ?? ''}`;
    if (taints.length === 0) {
      this.log.v(4).info('All taints were removed from the node. Cancelling all evictions...', { node: nodeName });
      for (const pod of pods) this.cancelWorkWithEvent(keyOf(pod));
      return;
    }
    const now = this.ctx.clock.now();
    for (const pod of pods) this.processPodOnNode(keyOf(pod), nodeName, tolerationsOf(pod), taints, now);
  }

  // The deletion.

  private emitEvent(podKey: string, messageFmt: string): void {
    const [namespace = '', name = ''] = podKey.split('/');
    this.recorder.eventf(
      { apiVersion: 'v1', kind: 'Pod', name, namespace },
      EVENT_TYPE_NORMAL,
      'TaintManagerEviction',
      messageFmt,
      podKey,
    );
  }

  private async deletePod(podKey: string, _fireAt: number): Promise<void> {
    this.log.info('Deleting pod', { controller: CONTROLLER_NAME, pod: podKey });
    this.emitEvent(podKey, 'Marking for deletion Pod %s');
    let lastErr: unknown;
    for (let i = 0; i < DELETE_RETRIES; i++) {
      if (this.ctx.signal.aborted) return;
      try {
        await this.addConditionAndDeletePod(podKey);
        return;
      } catch (err) {
        // Gone already: nothing left to do.
        if (isNotFound(err)) return;
        lastErr = err;
      }
    }
    throw lastErr;
  }

  private async addConditionAndDeletePod(podKey: string): Promise<void> {
    const [namespace = '', name = ''] = podKey.split('/');
    const pods = this.ctx.client.pods(namespace);
    const pod = await pods.get(name);
    const conditions: PodCondition[] = structuredClone(pod.status?.conditions ?? []);
    const updated = updatePodCondition(
      conditions,
      {
        type: 'DisruptionTarget',
        status: 'True',
        reason: 'DeletionByTaintManager',
        message: 'Taint manager: deleting due to NoExecute taint',
      },
      this.ctx.clock.now(),
    );
    if (updated) {
      const cond = conditions.find((c) => c.type === 'DisruptionTarget');
      await pods.patch(
        name,
        'strategic',
        { metadata: { uid: pod.metadata.uid }, status: { conditions: [cond] } },
        { subresource: 'status' },
      );
    }
    await pods.delete(name);
  }
}
