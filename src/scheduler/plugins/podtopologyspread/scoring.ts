/**
 * PodTopologySpread's PreScore, Score and NormalizeScore for soft (`ScheduleAnyway`) constraints (upstream's
 * podtopologyspread/scoring.go, in our words). Each constraint weighs a domain's matching pods by
 * log(number of domains + 2) and adds maxSkew − 1; a node's raw score is the sum over constraints (fewer
 * matching pods is better), and normalisation maps it to `100 × (max + min − score) / max`. Nodes missing a
 * topology key score 0 (with system-default constraints only the keys a node has count).
 */

import {
  type CycleState,
  MAX_NODE_SCORE,
  type NodeInfo,
  type NodeScore,
  type Pod,
  Status,
} from '../../framework/types.js';
import {
  countPodsMatchSelector,
  LABEL_HOSTNAME,
  matchNodeInclusionPolicies,
  nodeLabelsMatchSpreadConstraints,
  nodePodCounter,
  requiredNodeAffinityOf,
  type TopologySpreadConstraint,
} from './common.js';
import { NAME } from './filtering.js';

export const PRE_SCORE_STATE_KEY = `PreScore${NAME}`;
const INVALID_SCORE = -1;

export class PreScoreState {
  constructor(
    readonly constraints: TopologySpreadConstraint[],
    /** Nodes lacking a required topology key: they score 0. */
    readonly ignoredNodes = new Set<string>(),
    /** Per constraint: topology value → matching pods (not kept for the hostname key: counted per node). */
    readonly topologyValueToPodCounts: Map<string, number>[] = [],
    readonly topologyNormalizingWeight: number[] = [],
  ) {}

  /** Per constraint: the node's matching pods (countPodsMatchSelector, remembered per node between cycles). */
  counters: ((ni: NodeInfo) => number)[] = [];
}

export function topologyNormalizingWeight(size: number): number {
  return Math.log(size + 2);
}

export function scoreForCount(count: number, maxSkew: number, weight: number): number {
  return count * weight + (maxSkew - 1);
}

const nameOf = (ni: NodeInfo) => ni.node.metadata?.name ?? '';

/**
 * Builds the state: `constraints` are the pod's soft constraints (or the defaults); `requireAllTopologies` is
 * false only for system-default constraints, so that nodes without a zone still spread by hostname.
 */
export function preScore(
  state: CycleState,
  pod: Pod,
  constraints: TopologySpreadConstraint[],
  requireAllTopologies: boolean,
  filteredNodes: readonly NodeInfo[],
  allNodes: readonly NodeInfo[],
): Status {
  if (allNodes.length === 0) return Status.skip();
  if (constraints.length === 0) return Status.skip();
  const s = new PreScoreState(constraints);
  for (let i = 0; i < constraints.length; i++) s.topologyValueToPodCounts.push(new Map());
  const topoSize = constraints.map(() => 0);
  for (const ni of filteredNodes) {
    const labels = ni.node.metadata?.labels ?? {};
    if (requireAllTopologies && !nodeLabelsMatchSpreadConstraints(labels, constraints)) {
      s.ignoredNodes.add(nameOf(ni));
      continue;
    }
    constraints.forEach((c, i) => {
      if (c.topologyKey === LABEL_HOSTNAME) return;
      const value = labels[c.topologyKey] ?? '';
      const counts = s.topologyValueToPodCounts[i] as Map<string, number>;
      if (!counts.has(value)) {
        counts.set(value, 0);
        topoSize[i] = (topoSize[i] ?? 0) + 1;
      }
    });
  }
  constraints.forEach((c, i) => {
    const size = c.topologyKey === LABEL_HOSTNAME ? filteredNodes.length - s.ignoredNodes.size : (topoSize[i] ?? 0);
    s.topologyNormalizingWeight.push(topologyNormalizingWeight(size));
  });

  const required = requiredNodeAffinityOf(pod);
  const ns = pod.metadata?.namespace ?? '';
  s.counters = constraints.map((c) => nodePodCounter(c.selector, ns));
  for (const ni of allNodes) {
    const node = ni.node;
    const labels = node.metadata?.labels ?? {};
    if (requireAllTopologies && !nodeLabelsMatchSpreadConstraints(labels, constraints)) continue;
    for (let i = 0; i < constraints.length; i++) {
      const c = constraints[i] as TopologySpreadConstraint;
      const counts = s.topologyValueToPodCounts[i] as Map<string, number>;
      // Only domains of candidate nodes are counted (the hostname key never is: Score counts it per node).
      if (c.topologyKey === LABEL_HOSTNAME) continue;
      const value = labels[c.topologyKey] ?? '';
      if (!counts.has(value)) continue;
      if (!matchNodeInclusionPolicies(c, pod, node, required)) continue;
      counts.set(value, (counts.get(value) ?? 0) + (s.counters[i] as (ni: NodeInfo) => number)(ni));
    }
  }
  state.write(PRE_SCORE_STATE_KEY, s);
  return Status.success();
}

function readPreScoreState(state: CycleState): PreScoreState | undefined {
  const s = state.read<PreScoreState>(PRE_SCORE_STATE_KEY);
  return s instanceof PreScoreState ? s : undefined;
}

/** The result score() hands back on success, reused (the framework reads it at once). */
const result = { score: 0, status: Status.success() };

export function score(state: CycleState, pod: Pod, nodeInfo: NodeInfo): { score: number; status: Status } {
  const s = readPreScoreState(state);
  if (!s) {
    return { score: 0, status: Status.error(`reading "${PRE_SCORE_STATE_KEY}" from cycleState: not found`) };
  }
  if (s.ignoredNodes.has(nameOf(nodeInfo))) {
    result.score = 0;
    return result;
  }
  const labels = nodeInfo.node.metadata?.labels ?? {};
  const ns = pod.metadata?.namespace ?? '';
  let total = 0;
  s.constraints.forEach((c, i) => {
    if (!Object.hasOwn(labels, c.topologyKey)) return;
    const count =
      c.topologyKey === LABEL_HOSTNAME
        ? (s.counters[i]?.(nodeInfo) ?? countPodsMatchSelector(nodeInfo.pods, c.selector, ns))
        : (s.topologyValueToPodCounts[i]?.get(labels[c.topologyKey] ?? '') ?? 0);
    total += scoreForCount(count, c.maxSkew, s.topologyNormalizingWeight[i] ?? 0);
  });
  result.score = Math.round(total);
  return result;
}

export function normalizeScore(state: CycleState, scores: NodeScore[]): Status {
  const s = readPreScoreState(state);
  if (!s) return Status.error(`reading "${PRE_SCORE_STATE_KEY}" from cycleState: not found`);
  let min = Number.POSITIVE_INFINITY;
  let max = 0;
  for (const ns of scores) {
    if (s.ignoredNodes.has(ns.name)) {
      ns.score = INVALID_SCORE;
      continue;
    }
    if (ns.score < min) min = ns.score;
    if (ns.score > max) max = ns.score;
  }
  for (const ns of scores) {
    if (ns.score === INVALID_SCORE) {
      ns.score = 0;
      continue;
    }
    if (max === 0) {
      ns.score = MAX_NODE_SCORE;
      continue;
    }
    ns.score = Math.trunc((MAX_NODE_SCORE * (max + min - ns.score)) / max);
  }
  return Status.success();
}
