/**
 * The scheduling framework's shared shapes (upstream's pkg/scheduler/framework): statuses, the per-node view
 * (NodeInfo), the per-cycle state, and one small interface per extension point. The scheduler core
 * (src/scheduler/) runs plugins through these; every plugin (src/scheduler/plugins/<name>/) implements some of them.
 * Plugins reach the cluster only through the Handle (the snapshot of the scheduler's cache, the API client).
 */

import type { SharedInformerFactory } from '../../client/cache/factory.js';
import type { EventRecorder } from '../../client/events/broadcaster.js';
import type { KubeClient } from '../../client/rest.js';
import type { KubeObject } from '../../client/types.js';
import type { Clock } from '../../util/clock.js';
import type { Logger } from '../../util/logger.js';

// biome-ignore lint/suspicious/noExplicitAny: pods and nodes are plain API objects
export type Pod = KubeObject & { spec: any; status?: any };
// biome-ignore lint/suspicious/noExplicitAny: pods and nodes are plain API objects
export type Node = KubeObject & { spec?: any; status?: any };

/** Upstream's status codes. */
export enum Code {
  Success = 0,
  Error = 1,
  /** The pod does not fit now; preemption (PostFilter) may help. */
  Unschedulable = 2,
  /** The pod does not fit and preemption would not help on this node. */
  UnschedulableAndUnresolvable = 3,
  /** Permit: wait. */
  Wait = 4,
  /** The plugin has nothing to do for this pod (PreFilter/PreScore); its Filter/Score are skipped. */
  Skip = 5,
  /** PreEnqueue/Permit: the pod waits for something external. */
  Pending = 6,
}

/** A plugin's verdict: a code, the reasons (user-facing strings upstream prints), and which plugin said it. */
export class Status {
  constructor(
    readonly code: Code = Code.Success,
    readonly reasons: readonly string[] = [],
    public plugin = '',
    readonly error?: Error,
  ) {}
  static success(): Status {
    return SUCCESS;
  }
  static unschedulable(...reasons: string[]): Status {
    return new Status(Code.Unschedulable, reasons);
  }
  static unresolvable(...reasons: string[]): Status {
    return new Status(Code.UnschedulableAndUnresolvable, reasons);
  }
  static error(err: Error | string): Status {
    const e = typeof err === 'string' ? new Error(err) : err;
    return new Status(Code.Error, [e.message], '', e);
  }
  static skip(): Status {
    return new Status(Code.Skip);
  }
  isSuccess(): boolean {
    return this.code === Code.Success;
  }
  isRejected(): boolean {
    return (
      this.code === Code.Unschedulable || this.code === Code.UnschedulableAndUnresolvable || this.code === Code.Pending
    );
  }
  isSkip(): boolean {
    return this.code === Code.Skip;
  }
  /** The reasons joined as upstream's Status.Message(). */
  message(): string {
    return this.reasons.join(', ');
  }
  withPlugin(plugin: string): Status {
    this.plugin = plugin;
    return this;
  }
}
const SUCCESS = new Status();

export const MAX_NODE_SCORE = 100;
export const MIN_NODE_SCORE = 0;

/** Resource amounts in upstream's units: milliCPU, bytes, and counts for the rest (scalar resources by name). */
export interface Resource {
  milliCPU: number;
  memory: number;
  ephemeralStorage: number;
  allowedPodNumber: number;
  scalarResources: Map<string, number>;
}

/** A pod as the scheduler's cache holds it, with its parsed affinity terms (computed once). */
export interface PodInfo {
  pod: Pod;
  /** Parsed required/preferred (anti-)affinity terms; left to the InterPodAffinity plugin's helpers to fill. */
  // biome-ignore lint/suspicious/noExplicitAny: plugin-owned caches
  cache: Map<string, any>;
}

/** Host ports in use on a node: ip → protocol/port set. */
export type HostPortInfo = Map<string, Set<string>>;

/** One node as a scheduling cycle sees it: the node, the pods on it (incl. assumed ones) and aggregates. */
export interface NodeInfo {
  node: Node;
  pods: PodInfo[];
  podsWithAffinity: PodInfo[];
  podsWithRequiredAntiAffinity: PodInfo[];
  usedPorts: HostPortInfo;
  /** Sum of the pods' requests (upstream's computePodResourceRequest). */
  requested: Resource;
  /** Like requested, with upstream's non-zero defaults (100m CPU, 200Mi memory) for containers asking nothing. */
  nonZeroRequested: Resource;
  allocatable: Resource;
  /** Image name → { size, number of nodes that have it } (for ImageLocality). */
  imageStates: Map<string, { size: number; numNodes: number }>;
  /** Bumped on every change, so snapshots copy only changed nodes. */
  generation: number;
}

/** Per-cycle state plugins write in PreFilter/PreScore and read in Filter/Score. */
export class CycleState {
  private readonly data = new Map<string, unknown>();
  /** Set by the core: whether Score plugins were skipped etc. */
  readonly skipFilterPlugins = new Set<string>();
  readonly skipScorePlugins = new Set<string>();
  read<T>(key: string): T | undefined {
    return this.data.get(key) as T | undefined;
  }
  write(key: string, value: unknown): void {
    this.data.set(key, value);
  }
  delete(key: string): void {
    this.data.delete(key);
  }
  /** A copy for a preemption dry run (values that plugins change must be cloned by them through `clone()`). */
  clone(): CycleState {
    const c = new CycleState();
    for (const [k, v] of this.data) {
      const cloneable = v as { clone?: () => unknown } | undefined;
      c.data.set(k, typeof cloneable?.clone === 'function' ? cloneable.clone() : v);
    }
    for (const p of this.skipFilterPlugins) c.skipFilterPlugins.add(p);
    for (const p of this.skipScorePlugins) c.skipScorePlugins.add(p);
    return c;
  }
}

/** The nodes and pods of one scheduling cycle (upstream's Snapshot / SharedLister). */
export interface SnapshotLister {
  nodeInfos(): {
    list(): NodeInfo[];
    havePodsWithAffinityList(): NodeInfo[];
    havePodsWithRequiredAntiAffinityList(): NodeInfo[];
    get(nodeName: string): NodeInfo | undefined;
  };
}

/** A node's score from one plugin. */
export interface NodeScore {
  name: string;
  score: number;
}

/** PreFilter may narrow the nodes to evaluate (e.g. NodeName, NodeAffinity on the hostname label). */
export interface PreFilterResult {
  /** undefined means all nodes. */
  nodeNames?: Set<string>;
}

/** Per node, the status Filter gave (for FailedScheduling and PostFilter). */
export type NodeToStatus = Map<string, Status>;

/** What the core gives plugins. */
export interface Handle {
  client: KubeClient;
  snapshot(): SnapshotLister;
  clock: Clock;
  logger: Logger;
  recorder: EventRecorder;
  /** Pods nominated to run on a node (preemptors waiting for victims to go), for Filter with nominated pods. */
  nominatedPodsForNode(nodeName: string): PodInfo[];
  /** Runs every Filter plugin of the profile on one node (used by preemption's dry runs). */
  runFilterPlugins(state: CycleState, pod: Pod, nodeInfo: NodeInfo): Status;
  /** Runs every PreFilter plugin's AddPod/RemovePod extension (preemption's what-if). */
  runPreFilterExtensionAddPod(state: CycleState, podToSchedule: Pod, podInfoToAdd: PodInfo, nodeInfo: NodeInfo): Status;
  runPreFilterExtensionRemovePod(
    state: CycleState,
    podToSchedule: Pod,
    podInfoToRemove: PodInfo,
    nodeInfo: NodeInfo,
  ): Status;
  /** The profile's scheduler name. */
  profileName: string;
  /**
   * The scheduler's shared informer factory (upstream's SharedInformerFactory()). Plugins ask it for informers when
   * they are built (InterPodAffinity: namespaces; PodTopologySpread: services, replicationcontrollers, replicasets,
   * statefulsets; DefaultPreemption: poddisruptionbudgets, pods); the core starts it and waits for the caches to
   * sync after building its profiles, as upstream does. Optional so that unit tests may leave it out.
   */
  informers?: SharedInformerFactory;
}

export interface Plugin {
  /** Upstream's plugin name, e.g. `NodeResourcesFit`. */
  readonly name: string;
}

export interface PreEnqueuePlugin extends Plugin {
  preEnqueue(pod: Pod): Status;
}
export interface QueueSortPlugin extends Plugin {
  less(a: QueuedPodInfo, b: QueuedPodInfo): boolean;
}
/** AddPod/RemovePod keep PreFilter state right when preemption removes victims or adds nominated pods. */
export interface PreFilterExtensions {
  addPod(state: CycleState, podToSchedule: Pod, podInfoToAdd: PodInfo, nodeInfo: NodeInfo): Status;
  removePod(state: CycleState, podToSchedule: Pod, podInfoToRemove: PodInfo, nodeInfo: NodeInfo): Status;
}
export interface PreFilterPlugin extends Plugin {
  preFilter(state: CycleState, pod: Pod, nodes: NodeInfo[]): { result?: PreFilterResult; status: Status };
  preFilterExtensions?(): PreFilterExtensions | undefined;
}
export interface FilterPlugin extends Plugin {
  filter(state: CycleState, pod: Pod, nodeInfo: NodeInfo): Status;
}
export interface PostFilterPlugin extends Plugin {
  postFilter(
    state: CycleState,
    pod: Pod,
    filteredNodeStatusMap: NodeToStatus,
  ): Promise<{ nominatedNodeName?: string; status: Status }>;
}
export interface PreScorePlugin extends Plugin {
  preScore(state: CycleState, pod: Pod, nodes: NodeInfo[]): Status;
}
export interface ScorePlugin extends Plugin {
  score(state: CycleState, pod: Pod, nodeInfo: NodeInfo): { score: number; status: Status };
  /** Brings raw scores into [0, 100] (upstream's ScoreExtensions.NormalizeScore). */
  normalizeScore?(state: CycleState, pod: Pod, scores: NodeScore[]): Status;
}
export interface ReservePlugin extends Plugin {
  reserve(state: CycleState, pod: Pod, nodeName: string): Promise<Status> | Status;
  unreserve(state: CycleState, pod: Pod, nodeName: string): Promise<void> | void;
}
export interface PermitPlugin extends Plugin {
  permit(state: CycleState, pod: Pod, nodeName: string): { status: Status; timeoutMs: number };
}
export interface PreBindPlugin extends Plugin {
  preBind(state: CycleState, pod: Pod, nodeName: string): Promise<Status>;
}
export interface BindPlugin extends Plugin {
  /** Skip: let the next bind plugin do it. */
  bind(state: CycleState, pod: Pod, nodeName: string): Promise<Status>;
}
export interface PostBindPlugin extends Plugin {
  postBind(state: CycleState, pod: Pod, nodeName: string): void;
}

/** Cluster events that may make an unschedulable pod schedulable (upstream's ClusterEvent). */
export type EventResource =
  | 'Pod'
  | 'Node'
  | 'PersistentVolume'
  | 'PersistentVolumeClaim'
  | 'StorageClass'
  | 'CSINode'
  | '*';
export type ActionType =
  | 'Add'
  | 'Delete'
  | 'UpdateNodeAllocatable'
  | 'UpdateNodeLabel'
  | 'UpdateNodeTaint'
  | 'UpdateNodeCondition'
  | 'UpdateNodeAnnotation'
  | 'UpdatePodLabel'
  | 'UpdatePodScaleDown'
  | 'UpdatePodTolerations'
  | 'UpdatePodSchedulingGatesEliminated'
  | 'UpdatePodGeneratedResourceClaim'
  | 'Update'
  | 'All';
export interface ClusterEvent {
  resource: EventResource;
  actions: ActionType[];
}
export enum QueueingHint {
  Skip = 0,
  Queue = 1,
}
/** A plugin's interest in an event, with an optional hint function deciding whether it helps a given pod. */
export interface ClusterEventWithHint {
  event: ClusterEvent;
  hint?: (pod: Pod, oldObj: KubeObject | undefined, newObj: KubeObject | undefined) => QueueingHint;
}
export interface EnqueueExtensions {
  eventsToRegister(): ClusterEventWithHint[];
}

/** A pod waiting in the scheduling queue. */
export interface QueuedPodInfo {
  podInfo: PodInfo;
  /** When it was first added to the queue, and when this attempt was enqueued (ms). */
  initialAttemptTimestamp: number;
  timestamp: number;
  attempts: number;
  /** The plugins that rejected it last time (to match cluster events). */
  unschedulablePlugins: Set<string>;
  pendingPlugins: Set<string>;
  gated: boolean;
}

/** Builds a plugin of a profile from its args (upstream's PluginFactory). */
export type PluginFactory = (args: Record<string, unknown> | undefined, handle: Handle) => Plugin;
