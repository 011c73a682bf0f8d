/**
 * NodeResourcesFit. PreFilter: the pod's effective request (containers, sidecars, init containers, overhead).
 * Filter: the request must fit in allocatable minus what the node's pods request, resource by resource, and the
 * node must have room for one more pod; every shortfall is reported (`Insufficient cpu`, `Too many pods`, …).
 * Score: the configured strategy — LeastAllocated (default; cpu and memory, weight 1 each), MostAllocated, or
 * RequestedToCapacityRatio with a utilisation → score shape.
 *
 * Args (NodeResourcesFitArgs): `ignoredResources` (extended resources not checked), `ignoredResourceGroups`
 * (extended resources with these prefixes before the `/` not checked), `scoringStrategy` ({ type, resources,
 * requestedToCapacityRatio: { shape } }).
 */

import { newNodeInfo } from '../../framework/node-info.js';
import { computePodResourceRequest, isExtendedResourceName, podRequestAmounts } from '../../framework/resources.js';
import {
  type ClusterEventWithHint,
  type CycleState,
  type EnqueueExtensions,
  type FilterPlugin,
  type Node,
  type NodeInfo,
  type PluginFactory,
  type Pod,
  type PreFilterPlugin,
  type PreFilterResult,
  type PreScorePlugin,
  QueueingHint,
  type Resource,
  type ScorePlugin,
  Status,
} from '../../framework/types.js';
import {
  leastAllocatedScorer,
  mostAllocatedScorer,
  ResourceAllocationScorer,
  type ResourceSpec,
  requestedToCapacityRatioScorer,
  resourcesArg,
  type UtilizationShapePoint,
  validateResources,
} from './resource-allocation.js';

export const name = 'NodeResourcesFit';
const PRE_FILTER_STATE_KEY = `PreFilter${name}`;
const PRE_SCORE_STATE_KEY = `PreScore${name}`;

export type ScoringStrategyType = 'LeastAllocated' | 'MostAllocated' | 'RequestedToCapacityRatio';
const STRATEGIES: readonly ScoringStrategyType[] = ['LeastAllocated', 'MostAllocated', 'RequestedToCapacityRatio'];

export interface NodeResourcesFitArgs {
  ignoredResources?: string[];
  ignoredResourceGroups?: string[];
  scoringStrategy?: {
    type?: ScoringStrategyType;
    resources?: ResourceSpec[];
    requestedToCapacityRatio?: { shape?: UtilizationShapePoint[] };
  };
}

/** One shortfall found by the Filter. */
export interface InsufficientResource {
  resourceName: string;
  reason: string;
  requested: number;
  used: number;
  capacity: number;
}

const NO_NAMES: ReadonlySet<string> = new Set();

/** Whether fitsRequest would find no shortfall (the same checks, without building the list). */
function fitsAll(
  podRequest: Resource,
  nodeInfo: NodeInfo,
  ignoredExtendedResources: ReadonlySet<string>,
  ignoredResourceGroups: ReadonlySet<string>,
): boolean {
  const alloc = nodeInfo.allocatable;
  const used = nodeInfo.requested;
  if (nodeInfo.pods.length + 1 > alloc.allowedPodNumber) return false;
  if (podRequest.milliCPU > 0 && podRequest.milliCPU > alloc.milliCPU - used.milliCPU) return false;
  if (podRequest.memory > 0 && podRequest.memory > alloc.memory - used.memory) return false;
  if (podRequest.ephemeralStorage > 0 && podRequest.ephemeralStorage > alloc.ephemeralStorage - used.ephemeralStorage)
    return false;
  if (podRequest.scalarResources.size === 0) return true;
  for (const [rName, rQuant] of podRequest.scalarResources) {
    if (rQuant === 0) continue;
    if (isExtendedResourceName(rName)) {
      const group = rName.split('/')[0] ?? '';
      if (ignoredExtendedResources.has(rName) || ignoredResourceGroups.has(group)) continue;
    }
    if (rQuant > (alloc.scalarResources.get(rName) ?? 0) - (used.scalarResources.get(rName) ?? 0)) return false;
  }
  return true;
}

/**
 * Upstream's fitsRequest: every resource the pod asks for that the node cannot give, and `Too many pods` when
 * the node is at its pod limit.
 */
export function fitsRequest(
  podRequest: Resource,
  nodeInfo: NodeInfo,
  ignoredExtendedResources: ReadonlySet<string> = NO_NAMES,
  ignoredResourceGroups: ReadonlySet<string> = NO_NAMES,
): InsufficientResource[] {
  // Most nodes fit: answer those without allocating, and list the shortfalls only for the others.
  if (fitsAll(podRequest, nodeInfo, ignoredExtendedResources, ignoredResourceGroups)) return [];
  const out: InsufficientResource[] = [];
  const alloc = nodeInfo.allocatable;
  const used = nodeInfo.requested;
  if (nodeInfo.pods.length + 1 > alloc.allowedPodNumber) {
    out.push({
      resourceName: 'pods',
      reason: 'Too many pods',
      requested: 1,
      used: nodeInfo.pods.length,
      capacity: alloc.allowedPodNumber,
    });
  }
  if (
    podRequest.milliCPU === 0 &&
    podRequest.memory === 0 &&
    podRequest.ephemeralStorage === 0 &&
    podRequest.scalarResources.size === 0
  ) {
    return out;
  }
  if (podRequest.milliCPU > 0 && podRequest.milliCPU > alloc.milliCPU - used.milliCPU) {
    out.push({
      resourceName: 'cpu',
      reason: 'Insufficient cpu',
      requested: podRequest.milliCPU,
      used: used.milliCPU,
      capacity: alloc.milliCPU,
    });
  }
  if (podRequest.memory > 0 && podRequest.memory > alloc.memory - used.memory) {
    out.push({
      resourceName: 'memory',
      reason: 'Insufficient memory',
      requested: podRequest.memory,
      used: used.memory,
      capacity: alloc.memory,
    });
  }
  if (podRequest.ephemeralStorage > 0 && podRequest.ephemeralStorage > alloc.ephemeralStorage - used.ephemeralStorage) {
    out.push({
      resourceName: 'ephemeral-storage',
      reason: 'Insufficient ephemeral-storage',
      requested: podRequest.ephemeralStorage,
      used: used.ephemeralStorage,
      capacity: alloc.ephemeralStorage,
    });
  }
  for (const [rName, rQuant] of podRequest.scalarResources) {
    if (rQuant === 0) continue;
    if (isExtendedResourceName(rName)) {
      const group = rName.split('/')[0] ?? '';
      if (ignoredExtendedResources.has(rName) || ignoredResourceGroups.has(group)) continue;
    }
    const allocated = alloc.scalarResources.get(rName) ?? 0;
    const inUse = used.scalarResources.get(rName) ?? 0;
    if (rQuant > allocated - inUse) {
      out.push({
        resourceName: rName,
        reason: `Insufficient ${rName}`,
        requested: rQuant,
        used: inUse,
        capacity: allocated,
      });
    }
  }
  return out;
}

/** The pod's shortfalls on a node (upstream's exported Fits). */
export function fits(pod: Pod, nodeInfo: NodeInfo): InsufficientResource[] {
  return fitsRequest(computePodResourceRequest(pod), nodeInfo);
}

function parseArgs(args: NodeResourcesFitArgs): {
  ignored: Set<string>;
  groups: Set<string>;
  scorer: ResourceAllocationScorer;
} {
  const strategy = args.scoringStrategy;
  const type: unknown = strategy ? strategy.type : 'LeastAllocated';
  if (!STRATEGIES.includes(type as ScoringStrategyType)) {
    throw new Error(
      `scoringStrategy.type: Unsupported value: "${String(type ?? '')}": supported values: ${STRATEGIES.map((s) => `"${s}"`).join(', ')}`,
    );
  }
  const resources = resourcesArg(strategy?.resources);
  const errs = validateResources(resources, 'scoringStrategy.resources');
  let scorer: ResourceAllocationScorer;
  if (type === 'MostAllocated') {
    scorer = new ResourceAllocationScorer(type, resources, mostAllocatedScorer(resources), false);
  } else if (type === 'RequestedToCapacityRatio') {
    const shape = (strategy?.requestedToCapacityRatio?.shape ?? []).map((p) => ({
      utilization: Number(p.utilization ?? 0),
      score: Number(p.score ?? 0),
    }));
    errs.push(...validateShape(shape));
    scorer = new ResourceAllocationScorer(type, resources, requestedToCapacityRatioScorer(resources, shape), false);
  } else {
    scorer = new ResourceAllocationScorer('LeastAllocated', resources, leastAllocatedScorer(resources), false);
  }
  if (errs.length > 0) throw new Error(errs.join(', '));
  return { ignored: new Set(args.ignoredResources ?? []), groups: new Set(args.ignoredResourceGroups ?? []), scorer };
}

function validateShape(shape: UtilizationShapePoint[]): string[] {
  const where = 'scoringStrategy.requestedToCapacityRatio.shape';
  if (shape.length === 0) return [`${where}: Required value: at least one point must be specified`];
  const errs: string[] = [];
  shape.forEach((p, i) => {
    if (p.utilization < 0 || p.utilization > 100) {
      errs.push(`${where}[${i}].utilization: Invalid value: ${p.utilization}: not in valid range [0, 100]`);
    } else if (i > 0 && p.utilization <= (shape[i - 1]?.utilization ?? 0)) {
      errs.push(
        `${where}[${i}].utilization: Invalid value: ${p.utilization}: utilization values must be sorted in increasing order`,
      );
    }
    if (p.score < 0 || p.score > 10) {
      errs.push(`${where}[${i}].score: Invalid value: ${p.score}: not in valid range [0, 10]`);
    }
  });
  return errs;
}

export class Fit implements PreFilterPlugin, FilterPlugin, PreScorePlugin, ScorePlugin, EnqueueExtensions {
  readonly name = name;
  private readonly ignored: Set<string>;
  private readonly groups: Set<string>;
  readonly scorer: ResourceAllocationScorer;

  constructor(args: NodeResourcesFitArgs = {}) {
    const parsed = parseArgs(args);
    this.ignored = parsed.ignored;
    this.groups = parsed.groups;
    this.scorer = parsed.scorer;
  }

  preFilter(state: CycleState, pod: Pod): { result?: PreFilterResult; status: Status } {
    state.write(PRE_FILTER_STATE_KEY, computePodResourceRequest(pod));
    return { status: Status.success() };
  }

  filter(state: CycleState, pod: Pod, nodeInfo: NodeInfo): Status {
    const request = state.read<Resource>(PRE_FILTER_STATE_KEY) ?? computePodResourceRequest(pod);
    if (fitsAll(request, nodeInfo, this.ignored, this.groups)) return Status.success();
    const insufficient = fitsRequest(request, nodeInfo, this.ignored, this.groups);
    if (insufficient.length === 0) return Status.success();
    return Status.unschedulable(...insufficient.map((r) => r.reason));
  }

  preScore(state: CycleState, pod: Pod): Status {
    state.write(PRE_SCORE_STATE_KEY, this.scorer.podRequests(pod));
    return Status.success();
  }

  score(state: CycleState, pod: Pod, nodeInfo: NodeInfo): { score: number; status: Status } {
    const requests = state.read<number[]>(PRE_SCORE_STATE_KEY) ?? this.scorer.podRequests(pod);
    return this.scorer.score(nodeInfo, requests);
  }

  eventsToRegister(): ClusterEventWithHint[] {
    return [
      // In-place resize is on by default in v1.33: a pod scaling down frees resources too.
      {
        event: { resource: 'Pod', actions: ['Delete', 'UpdatePodScaleDown'] },
        hint: (pod, oldObj, newObj) => isSchedulableAfterPodEvent(pod, oldObj as Pod, newObj as Pod),
      },
      {
        event: { resource: 'Node', actions: ['Add', 'UpdateNodeAllocatable'] },
        hint: (pod, oldObj, newObj) => isSchedulableAfterNodeChange(pod, oldObj as Node, newObj as Node),
      },
    ];
  }
}

/** A deleted pod that was bound (or nominated) may free room; so may a bound pod asking for less of what we need. */
function isSchedulableAfterPodEvent(pod: Pod, original: Pod | undefined, modified: Pod | undefined): QueueingHint {
  if (!modified) {
    if (!original?.spec?.nodeName && !original?.status?.nominatedNodeName) return QueueingHint.Skip;
    return QueueingHint.Queue;
  }
  if (!modified.spec?.nodeName || !original) return QueueingHint.Skip;
  const before = podRequestAmounts(original, false);
  const after = podRequestAmounts(modified, false);
  for (const [rName, amount] of podRequestAmounts(pod, false)) {
    if (amount === 0n) continue;
    if ((before.get(rName) ?? 0n) > (after.get(rName) ?? 0n)) return QueueingHint.Queue;
  }
  return QueueingHint.Skip;
}

/** A node that could hold the pod when empty, and is new or grew in something the pod asks for. */
function isSchedulableAfterNodeChange(pod: Pod, original: Node | undefined, modified: Node | undefined): QueueingHint {
  if (!modified) return QueueingHint.Skip;
  if (fits(pod, newNodeInfo(modified)).length > 0) return QueueingHint.Skip;
  if (!original) return QueueingHint.Queue;
  const request = computePodResourceRequest(pod);
  const before = newNodeInfo(original).allocatable;
  const after = newNodeInfo(modified).allocatable;
  if (after.allowedPodNumber > before.allowedPodNumber) return QueueingHint.Queue;
  const grew =
    (request.milliCPU > 0 && after.milliCPU > before.milliCPU) ||
    (request.memory > 0 && after.memory > before.memory) ||
    (request.ephemeralStorage > 0 && after.ephemeralStorage > before.ephemeralStorage) ||
    [...request.scalarResources].some(
      ([rName, q]) => q > 0 && (after.scalarResources.get(rName) ?? 0) > (before.scalarResources.get(rName) ?? 0),
    );
  return grew ? QueueingHint.Queue : QueueingHint.Skip;
}

export const factory: PluginFactory = (args) => new Fit((args ?? {}) as NodeResourcesFitArgs);
