/**
 * The scoring shared by NodeResourcesFit and NodeResourcesBalancedAllocation (upstream's resourceAllocationScorer):
 * for each configured resource, the node's allocatable and what would be requested with the pod on it, handed to a
 * strategy function that turns the two lists into a 0..100 score.
 *
 * Requested amounts: Fit's strategies count cpu/memory with the non-zero defaults (100m, 200Mi) for containers that
 * ask nothing, both for the node's pods and the incoming pod; BalancedAllocation counts plain requests. An extended
 * resource the pod does not ask for, or the node does not have, is left out of the score.
 */

import { isScalarResourceName, podRequestList } from '../../framework/resources.js';
import { MAX_NODE_SCORE, type NodeInfo, type Pod, Status } from '../../framework/types.js';

export interface ResourceSpec {
  name: string;
  weight: number;
}

export const DEFAULT_RESOURCES: readonly ResourceSpec[] = [
  { name: 'cpu', weight: 1 },
  { name: 'memory', weight: 1 },
];

/** (requested, allocatable) per resource → score. */
export type Scorer = (requested: number[], allocatable: number[]) => number;

/** How a configured resource is read from a NodeInfo (decided once, not per node). */
const CPU = 0;
const MEMORY = 1;
const EPHEMERAL_STORAGE = 2;
const SCALAR = 3;
const OTHER = 4;
type Kind = typeof CPU | typeof MEMORY | typeof EPHEMERAL_STORAGE | typeof SCALAR | typeof OTHER;

function kindOf(resource: string): Kind {
  switch (resource) {
    case 'cpu':
      return CPU;
    case 'memory':
      return MEMORY;
    case 'ephemeral-storage':
      return EPHEMERAL_STORAGE;
    default:
      return isScalarResourceName(resource) ? SCALAR : OTHER;
  }
}

export class ResourceAllocationScorer {
  private readonly kinds: Kind[];
  /** Reused by score() (it is synchronous and the scorers do not keep the arrays). */
  private readonly requestedScratch: number[];
  private readonly allocatableScratch: number[];
  /** The result score() hands back, reused (the framework reads it at once): no allocation per node. */
  private readonly result = { score: 0, status: Status.success() };

  constructor(
    readonly strategy: string,
    readonly resources: readonly ResourceSpec[],
    private readonly scorer: Scorer,
    /** True: plain requests; false: with the non-zero defaults for cpu and memory. */
    private readonly useRequested: boolean,
  ) {
    this.kinds = resources.map((r) => kindOf(r.name));
    this.requestedScratch = new Array(resources.length).fill(0);
    this.allocatableScratch = new Array(resources.length).fill(0);
  }

  /** The pod's request for each configured resource, in scheduler units. */
  podRequests(pod: Pod): number[] {
    return podRequestList(
      pod,
      this.resources.map((r) => r.name),
      !this.useRequested,
    );
  }

  score(nodeInfo: NodeInfo, podRequests: readonly number[]): { score: number; status: Status } {
    const n = this.resources.length;
    if (n === 0) return { score: 0, status: Status.error('resources not found') };
    const requested = this.requestedScratch;
    const allocatable = this.allocatableScratch;
    const nodeRequested = this.useRequested ? nodeInfo.requested : nodeInfo.nonZeroRequested;
    const alloc = nodeInfo.allocatable;
    for (let i = 0; i < n; i++) {
      const podRequest = podRequests[i] ?? 0;
      let a = 0;
      let r = 0;
      switch (this.kinds[i]) {
        case CPU:
          a = alloc.milliCPU;
          r = nodeRequested.milliCPU + podRequest;
          break;
        case MEMORY:
          a = alloc.memory;
          r = nodeRequested.memory + podRequest;
          break;
        case EPHEMERAL_STORAGE:
          a = alloc.ephemeralStorage;
          r = nodeInfo.requested.ephemeralStorage + podRequest;
          break;
        default: {
          // A scalar resource the pod does not ask for is left out; so is one the node does not have.
          if (podRequest === 0 && this.kinds[i] === SCALAR) break;
          const name = (this.resources[i] as ResourceSpec).name;
          const have = alloc.scalarResources.get(name);
          if (have === undefined) break;
          a = have;
          r = (nodeInfo.requested.scalarResources.get(name) ?? 0) + podRequest;
        }
      }
      if (a === 0) {
        allocatable[i] = 0;
        requested[i] = 0;
      } else {
        allocatable[i] = a;
        requested[i] = r;
      }
    }
    this.result.score = this.scorer(requested, allocatable);
    return this.result;
  }
}

const div = (a: number, b: number) => Math.trunc(a / b);

/** LeastAllocated: the weighted mean of (free after placing the pod / allocatable) × 100. */
export function leastAllocatedScorer(resources: readonly ResourceSpec[]): Scorer {
  const weights = resources.map((r) => r.weight);
  return (requested, allocatable) => {
    let nodeScore = 0;
    let weightSum = 0;
    for (let i = 0; i < requested.length; i++) {
      const req = requested[i] as number;
      const cap = allocatable[i] ?? 0;
      if (cap === 0) continue;
      const weight = weights[i] ?? 0;
      const s = req > cap ? 0 : div((cap - req) * MAX_NODE_SCORE, cap);
      nodeScore += s * weight;
      weightSum += weight;
    }
    return weightSum === 0 ? 0 : div(nodeScore, weightSum);
  };
}

/** MostAllocated: the weighted mean of (requested / allocatable) × 100, requested capped at allocatable. */
export function mostAllocatedScorer(resources: readonly ResourceSpec[]): Scorer {
  const weights = resources.map((r) => r.weight);
  return (requested, allocatable) => {
    let nodeScore = 0;
    let weightSum = 0;
    for (let i = 0; i < requested.length; i++) {
      const req = requested[i] as number;
      const cap = allocatable[i] ?? 0;
      if (cap === 0) continue;
      const weight = weights[i] ?? 0;
      const s = div(Math.min(req, cap) * MAX_NODE_SCORE, cap);
      nodeScore += s * weight;
      weightSum += weight;
    }
    return weightSum === 0 ? 0 : div(nodeScore, weightSum);
  };
}

export interface UtilizationShapePoint {
  utilization: number;
  score: number;
}

/** The highest score a RequestedToCapacityRatio shape point may give (upstream's MaxCustomPriorityScore). */
export const MAX_CUSTOM_PRIORITY_SCORE = 10;
const MAX_UTILIZATION = 100;

/** helper.BuildBrokenLinearFunction: piecewise linear through the points, flat before the first and after the last. */
export function brokenLinearFunction(shape: readonly UtilizationShapePoint[]): (p: number) => number {
  return (p) => {
    for (let i = 0; i < shape.length; i++) {
      const cur = shape[i] as UtilizationShapePoint;
      if (p <= cur.utilization) {
        if (i === 0) return cur.score;
        const prev = shape[i - 1] as UtilizationShapePoint;
        return prev.score + div((cur.score - prev.score) * (p - prev.utilization), cur.utilization - prev.utilization);
      }
    }
    return shape[shape.length - 1]?.score ?? 0;
  };
}

/**
 * RequestedToCapacityRatio: each resource's utilisation (0..100, over-capacity counts as 100) is mapped through the
 * shape (scores 0..10 scaled to 0..100); the weighted mean of the positive results, rounded.
 */
export function requestedToCapacityRatioScorer(
  resources: readonly ResourceSpec[],
  shape: readonly UtilizationShapePoint[],
): Scorer {
  const scaled = shape.map((p) => ({
    utilization: p.utilization,
    score: p.score * div(MAX_NODE_SCORE, MAX_CUSTOM_PRIORITY_SCORE),
  }));
  const f = brokenLinearFunction(scaled);
  const resourceScore = (req: number, cap: number) =>
    cap === 0 || req > cap ? f(MAX_UTILIZATION) : f(div(req * MAX_UTILIZATION, cap));
  return (requested, allocatable) => {
    let nodeScore = 0;
    let weightSum = 0;
    requested.forEach((req, i) => {
      const cap = allocatable[i] ?? 0;
      if (cap === 0) return;
      const weight = resources[i]?.weight ?? 0;
      const s = resourceScore(req, cap);
      if (s > 0) {
        nodeScore += s * weight;
        weightSum += weight;
      }
    });
    return weightSum === 0 ? 0 : Math.round(nodeScore / weightSum);
  };
}

/**
 * BalancedAllocation: 100 × (1 − the standard deviation of the requested/allocatable fractions), each fraction
 * capped at 1; with two resources the deviation is |f1 − f2| / 2.
 */
export const balancedResourceScorer: Scorer = (requested, allocatable) => {
  // Two resources (the default) need no list: the deviation is half the difference.
  let count = 0;
  let first = 0;
  let second = 0;
  let total = 0;
  for (let i = 0; i < requested.length; i++) {
    const cap = allocatable[i] ?? 0;
    if (cap === 0) continue;
    const f = Math.min((requested[i] as number) / cap, 1);
    total += f;
    if (count === 0) first = f;
    else if (count === 1) second = f;
    count++;
  }
  let std = 0;
  if (count === 2) {
    std = Math.abs((first - second) / 2);
  } else if (count > 2) {
    const mean = total / count;
    let sum = 0;
    for (let i = 0; i < requested.length; i++) {
      const cap = allocatable[i] ?? 0;
      if (cap === 0) continue;
      const f = Math.min((requested[i] as number) / cap, 1);
      sum += (f - mean) * (f - mean);
    }
    std = Math.sqrt(sum / count);
  }
  return Math.trunc((1 - std) * MAX_NODE_SCORE);
};

/** Reads a `resources: [{ name, weight }]` arg with upstream's defaults (cpu and memory; weight 0 means 1). */
export function resourcesArg(value: unknown): ResourceSpec[] {
  const list = Array.isArray(value) ? (value as { name?: string; weight?: number }[]) : [];
  if (list.length === 0) return DEFAULT_RESOURCES.map((r) => ({ ...r }));
  return list.map((r) => ({ name: String(r?.name ?? ''), weight: Number(r?.weight ?? 0) || 1 }));
}

/** Upstream's validation of resources: weights between 1 and 100. */
export function validateResources(resources: readonly ResourceSpec[], where: string): string[] {
  const errs: string[] = [];
  resources.forEach((r, i) => {
    if (r.weight < 1 || r.weight > 100) {
      errs.push(
        `${where}[${i}].weight: Invalid value: ${r.weight}: resource weight of ${r.name} should be in range [1, 100]`,
      );
    }
  });
  return errs;
}
