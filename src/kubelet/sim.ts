/**
 * SimKubelets: any number of simulated kubelets (runtime `sim`) in one process, named node-1 … node-N, each an API
 * client like a real kubelet — registering its Node, renewing its Lease, reporting node and pod status — and cheap
 * enough for thousands: one pod informer over every bound pod (spec.nodeName != "") indexed by node (upstream's
 * kubelet watches with a field selector on its own node name; one per node would not scale here), one Node
 * informer, one timer wheel, one bound on API calls in flight; an event broadcaster per node that records events.
 * The informers use `client`; each node writes through its own client when `nodeClient` gives one (its identity,
 * system:node:<name>, see identities.ts), else through `client` too. Events go through the client of the node they
 * come from, with the node's event limit.
 *
 * Fault injection: stopNode(name) / startNode(name), or from another process the Node annotation
 * `sim.wheelhouse.dev/stopped: "true"` (wheelhouse node stop), which the kubelets watch and obey (level-triggered:
 * the annotation's presence is the state, not an event).
 */

import { dropManagedFields } from '../client/cache/factory.js';
import { SharedIndexInformer } from '../client/cache/shared-informer.js';
import { DeletedFinalStateUnknown } from '../client/cache/store.js';
import { EventBroadcaster, type EventRecorder } from '../client/events/broadcaster.js';
import { DEFAULT_BURST, DEFAULT_QPS, type KubeClient } from '../client/rest.js';
import type { KubeObject, ListerWatcher, ListOptions } from '../client/types.js';
import { type Clock, realClock } from '../util/clock.js';
import { type Logger, silentLogger } from '../util/logger.js';
import { Limiter } from './limiter.js';
import { simNodeNames } from './node-names.js';
import { type NodeConfig, nodeSpecFor, podCIDRFor } from './nodestatus/node-config.js';
import { type LifecycleConfig, Lifecycles } from './runtimes/sim/lifecycle-config.js';
import type { ContainerLog } from './runtimes/sim/logs.js';
import type { SimPod } from './runtimes/sim/pod-runtime.js';
import type { PodDNSSettings } from './server/pod-dns.js';
import {
  NODE_LEASE_DURATION_SECONDS,
  NODE_LEASE_RENEW_INTERVAL_MS,
  NODE_STATUS_REPORT_FREQUENCY_MS,
  NODE_STATUS_UPDATE_FREQUENCY_MS,
  type SimContext,
  SimNode,
} from './sim-node.js';
import { TimerWheel } from './timer-wheel.js';

export { DEFAULT_NODE_NAME_PREFIX } from './node-names.js';
export { STOPPED_ANNOTATION } from './sim-node.js';

export const DEFAULT_KUBELET_PORT = 10250;
/** Upstream's KubeletConfiguration defaults for eventRecordQPS and eventBurst. */
export const DEFAULT_EVENT_QPS = 50;
export const DEFAULT_EVENT_BURST = 100;
const NODE_NAME_INDEX = 'spec.nodeName';

export interface SimKubeletsOptions {
  /**
   * The client of the shared informers (every bound pod, every Node), and of every node that `nodeClient` gives
   * none: its identity must be allowed to list and watch all pods and nodes.
   */
  client: KubeClient;
  /**
   * Each node's own client (e.g. one authenticated as system:node:<name>): registration, Lease, node and pod
   * status, final pod deletion and the node's events go through it. Called once per node, at construction.
   */
  nodeClient?: (node: string) => KubeClient;
  /** How many nodes (named <namePrefix>1 … <namePrefix>N), or their names. Default 3. */
  nodes?: number | string[];
  namePrefix?: string;
  clock?: Clock;
  logger?: Logger;
  /** Capacity, labels, taints and zones, with node groups. */
  nodeConfig?: NodeConfig;
  /** Which lifecycle pods follow (see runtimes/sim/lifecycle-config.ts). */
  lifecycles?: Lifecycles | LifecycleConfig;
  /** The port advertised in each Node's daemonEndpoints (the kubelet server's; default 10250). */
  kubeletPort?: number;
  /** The cluster DNS given to pods (--cluster-dns, --cluster-domain); kubeadm's 10.96.0.10 and cluster.local. */
  podDNS?: PodDNSSettings;
  /** Record events (Starting, Pulled, Created, Started, Killing, BackOff, …); default true. */
  events?: boolean;
  /**
   * Each node's limit on event writes per second, as upstream's --event-qps (default 50; 0 means client-go's
   * default of 5), and its burst, --event-burst (default 100; 0 means 10).
   */
  eventQps?: number;
  eventBurst?: number;
  /** --node-status-update-frequency (default 10 s). */
  nodeStatusUpdateFrequencyMs?: number;
  /** nodeStatusReportFrequency (default 5 min). */
  nodeStatusReportFrequencyMs?: number;
  /** --node-lease-duration-seconds (default 40; renewed every quarter of it). */
  leaseDurationSeconds?: number;
  /** API calls in flight at once, all nodes together (default 64), and as many again for leases and node status. */
  maxInFlight?: number;
}

/** Where a pod runs, for the kubelet server (logs, exec). */
export interface SimPodRef {
  pod: KubeObject;
  node: string;
  containers: string[];
}

export class SimKubelets {
  private readonly client: KubeClient;
  private readonly clock: Clock;
  private readonly log: Logger;
  private readonly wheel: TimerWheel;
  private readonly nodes = new Map<string, SimNode>();
  private readonly podIndex = new Map<string, { sim: SimPod; node: SimNode }>();
  private readonly podInformer: SharedIndexInformer;
  private readonly nodeInformer: SharedIndexInformer;
  /** One per node that recorded an event. */
  private readonly broadcasters: EventBroadcaster[] = [];
  /** Whether the nodes record events. */
  private readonly events: boolean;
  private readonly recorders = new Map<string, EventRecorder>();
  private readonly ctx: SimContext;
  private started: Promise<void> | undefined;
  private closed = false;

  constructor(opts: SimKubeletsOptions) {
    this.client = opts.client;
    this.clock = opts.clock ?? realClock;
    this.log = (opts.logger ?? silentLogger).child('kubelet');
    this.wheel = new TimerWheel(this.clock, (err) => this.log.error('Timer failed', { err: String(err) }));
    const lifecycles = opts.lifecycles instanceof Lifecycles ? opts.lifecycles : new Lifecycles(opts.lifecycles ?? {});
    const names = simNodeNames(opts);
    this.events = opts.events !== false;
    const self = this;
    this.ctx = {
      clock: this.clock,
      wheel: this.wheel,
      limiter: new Limiter(opts.maxInFlight ?? 64),
      heartbeats: new Limiter(opts.maxInFlight ?? 64),
      logger: this.log,
      lifecycles,
      kubeletPort: opts.kubeletPort ?? DEFAULT_KUBELET_PORT,
      nodeStatusUpdateFrequencyMs: opts.nodeStatusUpdateFrequencyMs ?? NODE_STATUS_UPDATE_FREQUENCY_MS,
      nodeStatusReportFrequencyMs: opts.nodeStatusReportFrequencyMs ?? NODE_STATUS_REPORT_FREQUENCY_MS,
      leaseDurationSeconds: opts.leaseDurationSeconds ?? NODE_LEASE_DURATION_SECONDS,
      leaseRenewIntervalMs:
        opts.leaseDurationSeconds !== undefined ? (opts.leaseDurationSeconds * 1000) / 4 : NODE_LEASE_RENEW_INTERVAL_MS,
      eventRateLimit: {
        qps: opts.eventQps === 0 ? DEFAULT_QPS : (opts.eventQps ?? DEFAULT_EVENT_QPS),
        burst: opts.eventBurst === 0 ? DEFAULT_BURST : (opts.eventBurst ?? DEFAULT_EVENT_BURST),
      },
      recorder: (node) => this.recorderFor(node),
      nodeFromCache: (name) => this.nodeInformer.getStore().getByKey(name),
      podsFromCache: (node) => this.podInformer.getIndexer().byIndex(NODE_NAME_INDEX, node),
      indexPod: (sim, node) => {
        const key = `${sim.pod.metadata.namespace}/${sim.pod.metadata.name}`;
        if (node) this.podIndex.set(key, { sim, node });
        else if (this.podIndex.get(key)?.sim === sim) this.podIndex.delete(key);
      },
      get closed() {
        return self.closed;
      },
    };
    names.forEach((name, i) => {
      const client = opts.nodeClient?.(name) ?? this.client;
      this.nodes.set(name, new SimNode(this.ctx, nodeSpecFor(name, i + 1, opts.nodeConfig), client));
    });
    this.podInformer = new SharedIndexInformer(boundPods(this.client.pods()), {
      name: 'pods',
      logger: this.log,
      indexers: { [NODE_NAME_INDEX]: (pod) => [pod.spec?.nodeName ?? ''] },
      transform: dropManagedFields,
    });
    this.nodeInformer = new SharedIndexInformer(this.client.nodes(), {
      name: 'nodes',
      logger: this.log,
      transform: dropManagedFields,
    });
    this.podInformer.addEventHandler({
      onAdd: (pod) => this.nodeOf(pod)?.syncPod(pod),
      onUpdate: (_old, pod) => this.nodeOf(pod)?.syncPod(pod),
      onDelete: (obj) => {
        const pod = obj instanceof DeletedFinalStateUnknown ? obj.obj : obj;
        this.nodeOf(pod)?.podDeleted(pod);
      },
    });
    this.nodeInformer.addEventHandler({
      onAdd: (node) => this.nodes.get(node.metadata.name ?? '')?.observeNode(node),
      onUpdate: (_old, node) => this.nodes.get(node.metadata.name ?? '')?.observeNode(node),
      onDelete: (obj) => {
        const node = obj instanceof DeletedFinalStateUnknown ? obj.obj : obj;
        this.nodes.get(node.metadata.name ?? '')?.observeNode(undefined);
      },
    });
  }

  /**
   * Starts the informers, registers every node (taking over Nodes that exist) and starts their loops. Resolves
   * once every node is registered.
   */
  start(): Promise<void> {
    this.started ??= (async () => {
      this.podInformer.run();
      this.nodeInformer.run();
      await Promise.all([this.podInformer.whenSynced(), this.nodeInformer.whenSynced()]);
      if (this.closed) return;
      this.assignPodCIDRs();
      const count = this.nodes.size;
      const period = this.ctx.nodeStatusUpdateFrequencyMs;
      let i = 0;
      await Promise.all(
        [...this.nodes.values()].map((node) => {
          // Spread the nodes' heartbeats over the interval rather than all at once.
          const offset = Math.floor((i++ * period) / count);
          return node.start(offset);
        }),
      );
      this.log.info('Simulated kubelets started', { nodes: count });
    })();
    return this.started;
  }

  /**
   * Gives each new node of this process a pod CIDR no other Node has: its own (10.244.<i>.0/24 for the i-th node of
   * the process) unless a Node of another kubelet process holds it, else the first one free. Upstream's controller
   * manager hands them out (node IPAM); here each process looks at the Nodes it sees when it starts, so two processes
   * started at the same moment may still pick the same one. A Node that exists keeps its own.
   */
  private assignPodCIDRs(): void {
    const store = this.nodeInformer.getStore();
    const used = new Set<string>();
    for (const n of store.list()) if (typeof n.spec?.podCIDR === 'string') used.add(n.spec.podCIDR);
    let next = 1;
    for (const node of this.nodes.values()) {
      if (store.getByKey(node.spec.name)?.spec?.podCIDR) continue;
      if (used.has(node.spec.podCIDR)) {
        while (used.has(podCIDRFor(next))) next++;
        node.spec.podCIDR = podCIDRFor(next);
      }
      used.add(node.spec.podCIDR);
    }
  }

  /** Stops every kubelet: timers, informers, events (flushed). Nodes and pods stay as they are in the API. */
  async stop(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const node of this.nodes.values()) node.shutdown();
    this.wheel.stop();
    await Promise.all([this.podInformer.stop(), this.nodeInformer.stop()]);
    await Promise.all(this.broadcasters.map((b) => b.shutdown()));
  }

  /** The names of the simulated nodes, in order. */
  nodeNames(): string[] {
    return [...this.nodes.keys()];
  }

  /** Fault injection: the node stops renewing its lease and reporting status, and stops taking new pods. */
  stopNode(name: string): void {
    this.mustGet(name).setManualStop(true);
  }

  /** Undoes stopNode (the annotation, if set, still keeps the node stopped). */
  startNode(name: string): void {
    this.mustGet(name).setManualStop(false);
  }

  /** The client node `name` acts through (its own identity, when nodeClient gave one); `client` for other names. */
  clientOf(name: string): KubeClient {
    return this.nodes.get(name)?.client ?? this.client;
  }

  /** Whether the node is stopped (by stopNode or by the annotation). */
  isStopped(name: string): boolean {
    return this.mustGet(name).stopped;
  }

  /** A pod running on one of these nodes. */
  podFor(namespace: string, name: string): SimPodRef | undefined {
    const entry = this.podIndex.get(`${namespace}/${name}`);
    if (!entry) return undefined;
    return { pod: entry.sim.pod, node: entry.node.name, containers: entry.sim.containerNames() };
  }

  /**
   * The log of a container of a pod on one of these nodes (container: default the first regular container;
   * previous: the run before the last restart), or undefined.
   */
  logsFor(
    namespace: string,
    pod: string,
    container?: string,
    opts: { previous?: boolean } = {},
  ): ContainerLog | undefined {
    const entry = this.podIndex.get(`${namespace}/${pod}`);
    if (!entry) return undefined;
    const name = container ?? entry.sim.containerNames()[0];
    if (name === undefined) return undefined;
    return entry.sim.logOf(name, opts.previous === true);
  }

  // The kubelet server's PodRuntime (server/types.ts).

  /** The pod a kubelet of this process runs under that name (spec and latest status seen), or undefined. */
  pod(namespace: string, name: string): KubeObject | undefined {
    return this.podIndex.get(`${namespace}/${name}`)?.sim.pod;
  }

  /** The log of a container's current run, or of its previous run; undefined when there is none. */
  containerLog(namespace: string, name: string, container: string, previous: boolean): ContainerLog | undefined {
    return this.podIndex.get(`${namespace}/${name}`)?.sim.logOf(container, previous);
  }

  private mustGet(name: string): SimNode {
    const node = this.nodes.get(name);
    if (!node) throw new Error(`node "${name}" is not one of the simulated nodes`);
    return node;
  }

  private nodeOf(pod: KubeObject): SimNode | undefined {
    const name = pod.spec?.nodeName;
    return typeof name === 'string' ? this.nodes.get(name) : undefined;
  }

  /**
   * The node's event recorder, over a broadcaster of its own made at its first event: as upstream's kubelets, a
   * node whose event limit holds its events back holds back no other node's.
   */
  private recorderFor(node: string): EventRecorder | undefined {
    if (!this.events || this.closed) return undefined;
    let recorder = this.recorders.get(node);
    if (!recorder) {
      const sink = this.nodes.get(node)?.events ?? this.client.events();
      const broadcaster = new EventBroadcaster({ sink, clock: this.clock, logger: this.log });
      this.broadcasters.push(broadcaster);
      recorder = broadcaster.newRecorder({ component: 'kubelet', host: node });
      this.recorders.set(node, recorder);
    }
    return recorder;
  }
}

/** Lists and watches only pods bound to a node. */
function boundPods(pods: ListerWatcher): ListerWatcher {
  const tweak = (opts: ListOptions = {}): ListOptions => {
    const selector = opts.fieldSelector ? `${opts.fieldSelector},spec.nodeName!=` : 'spec.nodeName!=';
    return { ...opts, fieldSelector: selector };
  };
  return { list: (opts) => pods.list(tweak(opts)), watch: (opts) => pods.watch(tweak(opts)) };
}
