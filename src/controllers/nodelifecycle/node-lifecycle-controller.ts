/**
 * The node lifecycle controller (upstream's pkg/controller/nodelifecycle, `node-lifecycle-controller`):
 *
 * - Every --node-monitor-period it judges each node's health from its Ready condition and its Lease in
 *   `kube-node-lease` (node-health.ts), turning a silent node's conditions Unknown, recording `RegisteredNode`,
 *   `RemovingNode` and `NodeNotReady` node events, and marking the pods of a node that just stopped being ready
 *   Ready=False (with a `NodeNotReady` pod event).
 * - It keeps the NoExecute taints `node.kubernetes.io/not-ready` (Ready=False) and `node.kubernetes.io/unreachable`
 *   (Ready=Unknown) in line with Ready: nodes to taint go through a rate-limited queue per zone
 *   (--node-eviction-rate; --secondary-node-eviction-rate or nothing when a zone is partially disrupted, as
 *   --unhealthy-zone-threshold and --large-cluster-size-threshold say; no tainting at all while every zone is fully
 *   disrupted); the taints go when Ready is True again. The taint-eviction-controller then evicts the pods.
 * - On every node change it keeps the NoSchedule condition taints (TaintNodesByCondition): not-ready and
 *   unreachable for Ready False/Unknown, memory-pressure, disk-pressure, pid-pressure, network-unavailable for those
 *   conditions True, and unschedulable for `spec.unschedulable`; and the beta os/arch labels.
 * - Pods newly bound to a node that is not ready are marked Ready=False.
 */

import { TAINT_NODE_NOT_READY, TAINT_NODE_UNREACHABLE, type Taint, taintExists } from '../../api/taints.js';
import type { SharedIndexInformer } from '../../client/cache/shared-informer.js';
import { DeletedFinalStateUnknown, type Indexer } from '../../client/cache/store.js';
import { waitForCacheSync } from '../../client/cache/wait-for-cache-sync.js';
import type { EventRecorder } from '../../client/events/broadcaster.js';
import { EVENT_TYPE_NORMAL } from '../../client/events/event.js';
import type { KubeObject } from '../../client/types.js';
import { createRateLimitingQueue, type RateLimitingQueue } from '../../client/workqueue/rate-limiting.js';
import type { TimerHandle } from '../../util/clock.js';
import type { Logger } from '../../util/logger.js';
import { POD_NODE_NAME_INDEX, podNodeNameIndexFunc, podsAssignedToNode } from '../common/pods-by-node.js';
import type { Controller, ControllerContext } from '../context.js';
import { runWorkers } from '../worker.js';
import { labelsToReconcile, noScheduleTaintChanges } from './condition-taints.js';
import {
  getNodeCondition,
  judgeNodeHealth,
  type NodeCondition,
  type NodeHealthData,
  zoneKeyOf,
} from './node-health.js';
import {
  addOrUpdateLabelsOnNode,
  markPodsNotReady,
  recordNodeEvent,
  recordNodeStatusChange,
  removeTaintsOffNode,
  swapNodeControllerTaint,
} from './node-updates.js';
import { Zones } from './zones.js';

export const CONTROLLER_NAME = 'node-lifecycle-controller';
/** How often the NoExecute tainting queues are worked (upstream's NodeEvictionPeriod). */
export const NODE_EVICTION_PERIOD_MS = 100;
/** Tries of one node's health update (upstream's NodeHealthUpdateRetry). */
const NODE_HEALTH_UPDATE_RETRY = 5;
/** Parallel node health checks, node update workers and pod update workers (upstream's sizes). */
const NODE_UPDATE_WORKERS = 8;
const POD_UPDATE_WORKERS = 4;
/** Nodes with this label are left out of zone disruption counts. */
export const LABEL_NODE_DISRUPTION_EXCLUSION = 'node.kubernetes.io/exclude-disruption';
const NODE_LEASE_NAMESPACE = 'kube-node-lease';

export const UNREACHABLE_TAINT: Taint = { key: TAINT_NODE_UNREACHABLE, effect: 'NoExecute' };
export const NOT_READY_TAINT: Taint = { key: TAINT_NODE_NOT_READY, effect: 'NoExecute' };

const unwrap = (obj: KubeObject | DeletedFinalStateUnknown<KubeObject>) =>
  obj instanceof DeletedFinalStateUnknown ? obj.obj : obj;

/** Runs fn over items with at most limit calls in flight. */
async function forEachLimited<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < items.length) await fn(items[next++] as T);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
}

export class NodeLifecycleController implements Controller {
  readonly nodeUpdateQueue: RateLimitingQueue<string>;
  readonly podUpdateQueue: RateLimitingQueue<string>;
  private readonly nodeInformer: SharedIndexInformer;
  private readonly podInformer: SharedIndexInformer;
  private readonly leaseInformer: SharedIndexInformer;
  private readonly nodes: Indexer;
  private readonly pods: Indexer;
  private readonly leases: Indexer;
  private readonly recorder: EventRecorder;
  private readonly log: Logger;

  private readonly knownNodes = new Map<string, KubeObject>();
  private readonly nodeHealth = new Map<string, NodeHealthData>();
  private readonly nodesToRetry = new Set<string>();
  readonly zones: Zones;

  constructor(private readonly ctx: ControllerContext) {
    this.log = ctx.logger;
    this.recorder = ctx.recorder('node-controller');
    this.zones = new Zones(ctx.options, ctx.clock, this.log);
    this.nodeUpdateQueue = createRateLimitingQueue<string>({ clock: ctx.clock, name: 'node_lifecycle_controller' });
    this.podUpdateQueue = createRateLimitingQueue<string>({ clock: ctx.clock, name: 'node_lifecycle_controller_pods' });
    this.podInformer = ctx.informers.forGroupVersionResource(
      { group: '', version: 'v1', resource: 'pods' },
      { indexers: { [POD_NODE_NAME_INDEX]: podNodeNameIndexFunc } },
    );
    this.nodeInformer = ctx.informers.forGroupVersionResource({ group: '', version: 'v1', resource: 'nodes' });
    this.leaseInformer = ctx.informers.forGroupVersionResource({
      group: 'coordination.k8s.io',
      version: 'v1',
      resource: 'leases',
    });
    this.nodes = this.nodeInformer.getIndexer();
    this.pods = this.podInformer.getIndexer();
    this.leases = this.leaseInformer.getIndexer();
    this.podInformer.addEventHandler({
      onAdd: (pod) => this.podUpdated(undefined, pod),
      onUpdate: (oldPod, pod) => this.podUpdated(oldPod, pod),
    });
    this.nodeInformer.addEventHandler({
      onAdd: (node) => this.nodeUpdateQueue.add(node.metadata.name ?? ''),
      onUpdate: (_old, node) => this.nodeUpdateQueue.add(node.metadata.name ?? ''),
      onDelete: (node) => this.nodesToRetry.delete(unwrap(node)?.metadata?.name ?? ''),
    });
  }

  private get opts() {
    return this.ctx.options;
  }

  async run(): Promise<void> {
    const { signal } = this.ctx;
    this.log.info('Starting controller', { controller: CONTROLLER_NAME });
    try {
      if (!(await waitForCacheSync(signal, this.leaseInformer, this.nodeInformer, this.podInformer))) return;
      const loops = [
        this.every(NODE_EVICTION_PERIOD_MS, () => this.doNoExecuteTaintingPass()),
        this.every(this.opts.nodeMonitorPeriodMs, () =>
          this.monitorNodeHealth().catch((err) => this.log.error('Error monitoring node health', { err: String(err) })),
        ),
      ];
      await Promise.all([
        runWorkers({
          queue: this.nodeUpdateQueue,
          workers: NODE_UPDATE_WORKERS,
          sync: (name) => this.processNode(name),
          signal,
          logger: this.log,
        }),
        runWorkers({
          queue: this.podUpdateQueue,
          workers: POD_UPDATE_WORKERS,
          sync: (key) => this.processPod(key),
          signal,
          logger: this.log,
        }),
        ...loops,
      ]);
    } finally {
      this.nodeUpdateQueue.shutDown();
      this.podUpdateQueue.shutDown();
      this.log.info('Shutting down controller', { controller: CONTROLLER_NAME });
    }
  }

  /**
   * Runs fn now and then periodMs after each run finished (wait.Until), on the controller's clock, until the
   * signal aborts; resolves when it has stopped.
   */
  private every(periodMs: number, fn: () => Promise<void>): Promise<void> {
    const { signal, clock } = this.ctx;
    return new Promise<void>((resolve) => {
      let running: Promise<void> | undefined;
      let timer: TimerHandle | undefined;
      const tick = () => {
        timer = undefined;
        if (signal.aborted) return;
        running = fn()
          .catch((err) => this.log.error('periodic work failed', { err: String(err) }))
          .finally(() => {
            running = undefined;
            if (!signal.aborted) timer = clock.after(periodMs, tick);
          });
      };
      const stop = () => {
        timer?.cancel();
        void (running ?? Promise.resolve()).then(() => {
          timer?.cancel();
          resolve();
        });
      };
      if (signal.aborted) return stop();
      signal.addEventListener('abort', stop, { once: true });
      tick();
    });
  }

  // Event handlers.

  private podUpdated(oldPod: KubeObject | undefined, pod: KubeObject): void {
    const nodeName = pod.spec?.nodeName;
    if (!nodeName || (oldPod && oldPod.spec?.nodeName === nodeName)) return;
    this.podUpdateQueue.add(`${pod.metadata.namespace ?? ''}/${pod.metadata.name ?? ''}`);
  }

  // Node updates: NoSchedule condition taints and labels.

  private async processNode(nodeName: string): Promise<void> {
    let failure: unknown;
    try {
      await this.doNoScheduleTaintingPass(nodeName);
    } catch (err) {
      this.log.error('Failed to taint NoSchedule on node, requeue it', { node: nodeName, err: String(err) });
      failure = err;
    }
    try {
      await this.reconcileNodeLabels(nodeName);
    } catch (err) {
      this.log.error('Failed to reconcile labels for node, requeue it', { node: nodeName, err: String(err) });
      failure ??= err;
    }
    // Unlike upstream (which drops it), a failed node is retried with backoff.
    if (failure !== undefined) throw failure;
  }

  async doNoScheduleTaintingPass(nodeName: string): Promise<void> {
    const node = this.nodes.getByKey(nodeName);
    if (!node) return;
    const { toAdd, toRemove } = noScheduleTaintChanges(node);
    if (toAdd.length === 0 && toRemove.length === 0) return;
    if (!(await swapNodeControllerTaint(this.ctx.client, this.log, this.ctx.clock.now(), toAdd, toRemove, node))) {
      throw new Error(`failed to swap taints of node ${nodeName}`);
    }
  }

  private async reconcileNodeLabels(nodeName: string): Promise<void> {
    const node = this.nodes.getByKey(nodeName);
    if (!node) return;
    const update = labelsToReconcile(node);
    if (Object.keys(update).length === 0) return;
    await addOrUpdateLabelsOnNode(this.ctx.client, nodeName, update);
  }

  // Pods newly bound to a node that is not ready.

  private async processPod(key: string): Promise<void> {
    const pod = this.pods.getByKey(key);
    if (!pod) return;
    const nodeName: string = pod.spec?.nodeName ?? '';
    const health = this.nodeHealth.get(nodeName);
    // Not seen by the monitor yet (or deleted): the next pass handles it.
    if (!health) return;
    if (!this.nodes.getByKey(nodeName)) throw new Error(`node "${nodeName}" not found`);
    const ready = getNodeCondition(health.status, 'Ready');
    if (!ready || ready.status === 'True') return;
    await markPodsNotReady(this.ctx.client, this.recorder, this.log, [pod], nodeName, this.ctx.clock.now());
  }

  // NoExecute tainting, rate limited per zone.

  async doNoExecuteTaintingPass(): Promise<void> {
    for (const tainter of [...this.zones.tainters.values()]) {
      await tainter.try(async (value) => {
        const node = this.nodes.getByKey(value.value);
        if (!node) {
          this.log.info('Node no longer present in nodeLister', { node: value.value });
          return { done: true };
        }
        const ready = getNodeCondition(node.status, 'Ready');
        if (!ready) {
          this.log.info('Failed to get NodeCondition from the node status', { node: value.value });
          return { done: false, retryAfterMs: 50 };
        }
        // not-ready and unreachable mirror Ready, so they never go together.
        let add: Taint;
        let opposite: Taint;
        if (ready.status === 'False') {
          add = NOT_READY_TAINT;
          opposite = UNREACHABLE_TAINT;
        } else if (ready.status === 'Unknown') {
          add = UNREACHABLE_TAINT;
          opposite = NOT_READY_TAINT;
        } else {
          this.log.v(4).info("Node was in a taint queue, but it's ready now. Ignoring taint request", {
            node: value.value,
          });
          return { done: true };
        }
        const ok = await swapNodeControllerTaint(
          this.ctx.client,
          this.log,
          this.ctx.clock.now(),
          [add],
          [opposite],
          node,
        );
        return { done: ok, retryAfterMs: 0 };
      });
    }
  }

  private markNodeForTainting(node: KubeObject, status: 'False' | 'Unknown'): boolean {
    const tainter = this.zones.tainterFor(zoneKeyOf(node));
    const name = node.metadata.name ?? '';
    const taints = (node.spec?.taints ?? []) as Taint[];
    if (status === 'False' && !taintExists(taints, NOT_READY_TAINT)) tainter.remove(name);
    if (status === 'Unknown' && !taintExists(taints, UNREACHABLE_TAINT)) tainter.remove(name);
    return tainter.add(name, node.metadata.uid ?? '');
  }

  /** Removes both NoExecute taints and forgets the node in its zone's queue; true when it was queued. */
  private async markNodeAsReachable(node: KubeObject): Promise<boolean> {
    const name = node.metadata.name ?? '';
    try {
      await removeTaintsOffNode(this.ctx.client, name, node, [UNREACHABLE_TAINT]);
    } catch (err) {
      this.log.error('Failed to remove unreachable taint from node', { node: name, err: String(err) });
      throw err;
    }
    try {
      await removeTaintsOffNode(this.ctx.client, name, node, [NOT_READY_TAINT]);
    } catch (err) {
      this.log.error('Failed to remove not-ready taint from node', { node: name, err: String(err) });
      throw err;
    }
    return this.zones.tainterFor(zoneKeyOf(node)).remove(name);
  }

  private async processTaintBaseEviction(node: KubeObject, observedReady: NodeCondition): Promise<void> {
    const taints = (node.spec?.taints ?? []) as Taint[];
    const name = node.metadata.name ?? '';
    const now = this.ctx.clock.now();
    switch (observedReady.status) {
      case 'False':
        // Already tainted unreachable: swap at once rather than through the queue.
        if (taintExists(taints, UNREACHABLE_TAINT)) {
          if (
            !(await swapNodeControllerTaint(
              this.ctx.client,
              this.log,
              now,
              [NOT_READY_TAINT],
              [UNREACHABLE_TAINT],
              node,
            ))
          ) {
            this.log.error(
              'Failed to instantly swap UnreachableTaint to NotReadyTaint. Will try again in the next cycle',
            );
          }
        } else if (this.markNodeForTainting(node, 'False')) {
          this.log.v(2).info('Node is NotReady. Adding it to the Taint queue', { node: name, timeStamp: now });
        }
        break;
      case 'Unknown':
        if (taintExists(taints, NOT_READY_TAINT)) {
          if (
            !(await swapNodeControllerTaint(
              this.ctx.client,
              this.log,
              now,
              [UNREACHABLE_TAINT],
              [NOT_READY_TAINT],
              node,
            ))
          ) {
            this.log.error(
              'Failed to instantly swap NotReadyTaint to UnreachableTaint. Will try again in the next cycle',
            );
          }
        } else if (this.markNodeForTainting(node, 'Unknown')) {
          this.log.v(2).info('Node is unresponsive. Adding it to the Taint queue', { node: name, timeStamp: now });
        }
        break;
      case 'True': {
        try {
          if (await this.markNodeAsReachable(node)) {
            this.log.v(2).info('Node is healthy again, removed all taints', { node: name });
          }
        } catch {
          this.log.error('Failed to remove taints from node. Will retry in next iteration', { node: name });
        }
        break;
      }
    }
  }

  // The monitor.

  /** Judges one node and writes its status when it must go Unknown; answers the Ready conditions. */
  private async tryUpdateNodeHealth(node: KubeObject) {
    const name = node.metadata.name ?? '';
    const lease = this.leases.getByKey(`${NODE_LEASE_NAMESPACE}/${name}`);
    const verdict = judgeNodeHealth(node, this.nodeHealth.get(name), lease, this.ctx.clock.now(), {
      monitorGracePeriodMs: this.opts.nodeMonitorGracePeriodMs,
      startupGracePeriodMs: this.opts.nodeStartupGracePeriodMs,
    });
    this.nodeHealth.set(name, verdict.health);
    if (verdict.needsWrite) {
      for (const c of (node.status?.conditions ?? []) as NodeCondition[]) {
        if (c.status === 'Unknown' && c.reason === 'NodeStatusUnknown') {
          this.log.v(2).info("Node hasn't been updated", { node: name, nodeConditionType: c.type });
        }
      }
      await this.ctx.client.nodes().updateStatus({ ...node, apiVersion: 'v1', kind: 'Node' });
      if (verdict.healthAfterWrite) this.nodeHealth.set(name, verdict.healthAfterWrite);
    }
    return verdict;
  }

  /** One pass over every node (upstream's monitorNodeHealth). */
  async monitorNodeHealth(): Promise<void> {
    const nodes = this.nodes.list();
    const { added, deleted, newZoneRepresentatives } = this.classifyNodes(nodes);
    for (const node of newZoneRepresentatives) this.zones.addZone(zoneKeyOf(node));
    for (const node of added) {
      const name = node.metadata.name ?? '';
      this.log.v(1).info('Controller observed a new Node', { node: name });
      recordNodeEvent(
        this.recorder,
        name,
        node.metadata.uid ?? '',
        EVENT_TYPE_NORMAL,
        'RegisteredNode',
        `Registered Node ${name} in Controller`,
      );
      this.knownNodes.set(name, node);
      this.zones.addZone(zoneKeyOf(node));
      await this.markNodeAsReachable(node).catch(() => {});
    }
    for (const node of deleted) {
      const name = node.metadata.name ?? '';
      this.log.v(1).info('Controller observed a Node deletion', { node: name });
      recordNodeEvent(
        this.recorder,
        name,
        node.metadata.uid ?? '',
        EVENT_TYPE_NORMAL,
        'RemovingNode',
        `Removing Node ${name} from Controller`,
      );
      this.knownNodes.delete(name);
      this.nodeHealth.delete(name);
    }

    const zoneConditions = new Map<string, (NodeCondition | undefined)[]>();
    await forEachLimited(nodes, NODE_UPDATE_WORKERS, async (cached) => {
      let node = structuredClone(cached);
      const name = node.metadata.name ?? '';
      let verdict: Awaited<ReturnType<NodeLifecycleController['tryUpdateNodeHealth']>> | undefined;
      for (let attempt = 0; attempt < NODE_HEALTH_UPDATE_RETRY && !verdict; attempt++) {
        try {
          verdict = await this.tryUpdateNodeHealth(node);
        } catch (err) {
          this.log.error('Error updating node', { node: name, err: String(err) });
          try {
            node = await this.ctx.client.nodes().get(name);
          } catch {
            this.log.error('Failed while getting a Node to retry updating node health. Probably Node was deleted', {
              node: name,
            });
            break;
          }
        }
      }
      if (!verdict) {
        this.log.error('Update health of Node from Controller error, Skipping - no pods will be evicted', {
          node: name,
        });
        return;
      }
      const { observedReady, currentReady } = verdict;
      if (node.metadata.labels?.[LABEL_NODE_DISRUPTION_EXCLUSION] === undefined) {
        const zone = zoneKeyOf(node);
        const list = zoneConditions.get(zone);
        if (list) list.push(currentReady);
        else zoneConditions.set(zone, [currentReady]);
      }
      if (currentReady) {
        const pods = podsAssignedToNode(this.pods, name);
        await this.processTaintBaseEviction(node, observedReady);
        const needsRetry = this.nodesToRetry.has(name);
        const wentNotReady = currentReady.status !== 'True' && observedReady.status === 'True';
        if (wentNotReady) recordNodeStatusChange(this.recorder, node, 'NodeNotReady');
        if (wentNotReady || (needsRetry && observedReady.status !== 'True')) {
          try {
            await markPodsNotReady(this.ctx.client, this.recorder, this.log, pods, name, this.ctx.clock.now());
          } catch (err) {
            this.log.error(`unable to mark all pods NotReady on node ${name}: ${String(err)}; queuing for retry`);
            this.nodesToRetry.add(name);
            return;
          }
        }
      }
      this.nodesToRetry.delete(name);
    });
    await this.handleDisruption(zoneConditions, nodes);
  }

  private classifyNodes(nodes: KubeObject[]) {
    const added: KubeObject[] = [];
    const deleted: KubeObject[] = [];
    const newZoneRepresentatives: KubeObject[] = [];
    const present = new Set<string>();
    for (const node of nodes) {
      const name = node.metadata.name ?? '';
      present.add(name);
      if (!this.knownNodes.has(name)) added.push(node);
      else if (!this.zones.states.has(zoneKeyOf(node))) newZoneRepresentatives.push(node);
    }
    for (const [name, node] of this.knownNodes) if (!present.has(name)) deleted.push(node);
    return { added, deleted, newZoneRepresentatives };
  }

  /** Updates the zones from this pass and acts on the nodes when the whole cluster enters or leaves disruption. */
  private async handleDisruption(
    zoneConditions: Map<string, (NodeCondition | undefined)[]>,
    nodes: KubeObject[],
  ): Promise<void> {
    const transition = this.zones.update(zoneConditions);
    if (transition === 'enteredFullDisruption') {
      // Every node is not ready: more likely the control plane's problem than the nodes'. Untaint them all.
      for (const node of nodes) {
        await this.markNodeAsReachable(node).catch(() =>
          this.log.error('Failed to remove taints from Node', { node: node.metadata.name }),
        );
      }
    } else if (transition === 'exitedFullDisruption') {
      // Give every node a fresh grace period from now.
      const now = this.ctx.clock.now();
      for (const node of nodes) {
        const name = node.metadata.name ?? '';
        const health = this.nodeHealth.get(name);
        if (health) this.nodeHealth.set(name, { ...health, probeTimestamp: now, readyTransitionTimestamp: now });
      }
    }
  }
}
