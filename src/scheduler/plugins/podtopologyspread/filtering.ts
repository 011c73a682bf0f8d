/**
 * PodTopologySpread's PreFilter and Filter for hard (`DoNotSchedule`) constraints (upstream's
 * podtopologyspread/filtering.go, in our words). PreFilter counts, per constraint and topology value, the pods
 * the constraint's selector matches on the nodes the constraint counts (nodes with every constraint's topology
 * key, passing its node inclusion policies), and keeps the two smallest domains ("critical paths"). Filter admits
 * a node when `matching pods in its domain + (1 if the pod matches itself) − global minimum ≤ maxSkew` for every
 * constraint, the global minimum being 0 while fewer domains than `minDomains` exist.
 */

import type { LabelSet } from '../../../api/labels.js';
import { type CycleState, type Node, type NodeInfo, type Pod, Status } from '../../framework/types.js';
import {
  countPodsMatchSelector,
  matchNodeInclusionPolicies,
  nodeLabelsMatchSpreadConstraints,
  requiredNodeAffinityOf,
  type TopologySpreadConstraint,
} from './common.js';

export const NAME = 'PodTopologySpread';
export const PRE_FILTER_STATE_KEY = `PreFilter${NAME}`;

export const ERR_REASON_CONSTRAINTS_NOT_MATCH = "node(s) didn't match pod topology spread constraints";
export const ERR_REASON_NODE_LABEL_NOT_MATCH = `${ERR_REASON_CONSTRAINTS_NOT_MATCH} (missing required label)`;

const MAX_INT32 = 2 ** 31 - 1;

/** The two domains with the fewest matching pods: [0] always holds the minimum. */
export class CriticalPaths {
  readonly paths: [{ value: string; num: number }, { value: string; num: number }] = [
    { value: '', num: MAX_INT32 },
    { value: '', num: MAX_INT32 },
  ];

  update(value: string, num: number): void {
    const p = this.paths;
    const existing = value === p[0].value ? p[0] : value === p[1].value ? p[1] : undefined;
    if (existing) {
      existing.num = num;
      if (p[0].num > p[1].num) {
        const first = p[0];
        p[0] = p[1];
        p[1] = first;
      }
      return;
    }
    if (num < p[0].num) {
      p[1] = p[0];
      p[0] = { value, num };
    } else if (num < p[1].num) {
      p[1] = { value, num };
    }
  }

  clone(): CriticalPaths {
    const c = new CriticalPaths();
    c.paths[0] = { ...this.paths[0] };
    c.paths[1] = { ...this.paths[1] };
    return c;
  }
}

export class PreFilterState {
  constructor(
    readonly constraints: TopologySpreadConstraint[],
    readonly criticalPaths: CriticalPaths[] = [],
    /** Per constraint: topology value → matching pods. */
    readonly tpValueToMatchNum: Map<string, number>[] = [],
  ) {}

  /** The global minimum for the skew, 0 while there are fewer domains than minDomains. */
  minMatchNum(i: number, minDomains: number): number {
    const domains = this.tpValueToMatchNum[i]?.size ?? 0;
    if (domains < minDomains) return 0;
    return this.criticalPaths[i]?.paths[0].num ?? 0;
  }

  clone(): PreFilterState {
    return new PreFilterState(
      this.constraints,
      this.criticalPaths.map((p) => p.clone()),
      this.tpValueToMatchNum.map((m) => new Map(m)),
    );
  }

  /** Counts a pod in (delta 1) or out (delta −1) as if it ran on node, for preemption's what-ifs. */
  updateWithPod(updatedPod: Pod, preemptor: Pod, node: Node | undefined, delta: number): void {
    if (!node || (updatedPod.metadata?.namespace ?? '') !== (preemptor.metadata?.namespace ?? '')) return;
    if (!nodeLabelsMatchSpreadConstraints(node.metadata?.labels, this.constraints)) return;
    const required = requiredNodeAffinityOf(preemptor);
    this.constraints.forEach((c, i) => {
      if (!c.selector.matches(updatedPod.metadata?.labels)) return;
      if (!matchNodeInclusionPolicies(c, preemptor, node, required)) return;
      const value = node.metadata?.labels?.[c.topologyKey] ?? '';
      const counts = this.tpValueToMatchNum[i];
      if (!counts) return;
      const next = (counts.get(value) ?? 0) + delta;
      counts.set(value, next);
      this.criticalPaths[i]?.update(value, next);
    });
  }
}

/** Upstream's calPreFilterState over all nodes. */
export function calPreFilterState(
  pod: Pod,
  constraints: TopologySpreadConstraint[],
  allNodes: readonly NodeInfo[],
): PreFilterState {
  const s = new PreFilterState(
    constraints,
    constraints.map(() => new CriticalPaths()),
    constraints.map(() => new Map<string, number>()),
  );
  if (constraints.length === 0) return s;
  const required = requiredNodeAffinityOf(pod);
  const ns = pod.metadata?.namespace ?? '';
  for (const ni of allNodes) {
    const node = ni.node;
    if (!nodeLabelsMatchSpreadConstraints(node.metadata?.labels, constraints)) continue;
    constraints.forEach((c, i) => {
      if (!matchNodeInclusionPolicies(c, pod, node, required)) return;
      const value = node.metadata?.labels?.[c.topologyKey] ?? '';
      const counts = s.tpValueToMatchNum[i] as Map<string, number>;
      counts.set(value, (counts.get(value) ?? 0) + countPodsMatchSelector(ni.pods, c.selector, ns));
    });
  }
  constraints.forEach((_, i) => {
    for (const [value, num] of s.tpValueToMatchNum[i] ?? []) s.criticalPaths[i]?.update(value, num);
  });
  return s;
}

export function readPreFilterState(state: CycleState): PreFilterState | undefined {
  const s = state.read<PreFilterState>(PRE_FILTER_STATE_KEY);
  return s instanceof PreFilterState ? s : undefined;
}

export function filter(state: CycleState, pod: Pod, nodeInfo: NodeInfo): Status {
  const s = readPreFilterState(state);
  if (!s) return Status.error(`reading "${PRE_FILTER_STATE_KEY}" from cycleState: not found`);
  if (s.constraints.length === 0) return Status.success();
  const labels = nodeInfo.node.metadata?.labels ?? {};
  const podLabels = (pod.metadata?.labels ?? {}) as LabelSet;
  for (let i = 0; i < s.constraints.length; i++) {
    const c = s.constraints[i] as TopologySpreadConstraint;
    if (!Object.hasOwn(labels, c.topologyKey)) return Status.unresolvable(ERR_REASON_NODE_LABEL_NOT_MATCH);
    const value = labels[c.topologyKey] ?? '';
    const minMatchNum = s.minMatchNum(i, c.minDomains);
    const selfMatch = c.selector.matches(podLabels) ? 1 : 0;
    const matchNum = s.tpValueToMatchNum[i]?.get(value) ?? 0;
    if (matchNum + selfMatch - minMatchNum > c.maxSkew) return Status.unschedulable(ERR_REASON_CONSTRAINTS_NOT_MATCH);
  }
  return Status.success();
}
