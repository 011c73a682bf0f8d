/**
 * PodTopologySpread's PreFilter and Filter for hard (`DoNotSchedule`) constraints (upstream's
 * podtopologyspread/filtering.go, in our words). PreFilter counts, per constraint and topology value, the pods
 * the constraint's selector matches on the nodes the constraint counts (nodes with every constraint's topology
 * key, passing its node inclusion policies), and keeps the two smallest domains ("critical paths"). Filter admits
 * a node when `matching pods in its domain + (1 if the pod matches itself) − global minimum ≤ maxSkew` for every
 * constraint, the global minimum being 0 while fewer domains than `minDomains` exist.
 */

import type { LabelSet } from '../../../api/labels.js';
import type { SnapshotChangeFeed } from '../../cache/snapshot.js';
import { type CycleState, type Node, type NodeInfo, type Pod, Status } from '../../framework/types.js';
import {
  matchNodeInclusionPolicies,
  nodeLabelsMatchSpreadConstraints,
  nodePodCounter,
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
  feed?: SnapshotChangeFeed,
): PreFilterState {
  const s = new PreFilterState(
    constraints,
    constraints.map(() => new CriticalPaths()),
    constraints.map(() => new Map<string, number>()),
  );
  if (constraints.length === 0) return s;
  const ns = pod.metadata?.namespace ?? '';
  const totals =
    feed && nodeInclusionIsLabelsOnly(pod, constraints) ? keptTotals(ns, constraints, allNodes, feed) : undefined;
  if (totals) {
    constraints.forEach((_, i) => {
      const counts = s.tpValueToMatchNum[i] as Map<string, number>;
      for (const [value, t] of totals[i] ?? []) counts.set(value, t.count);
    });
  } else {
    const required = requiredNodeAffinityOf(pod);
    const counters = constraints.map((c) => nodePodCounter(c.selector, ns));
    for (const ni of allNodes) {
      const node = ni.node;
      if (!nodeLabelsMatchSpreadConstraints(node.metadata?.labels, constraints)) continue;
      for (let i = 0; i < constraints.length; i++) {
        const c = constraints[i] as TopologySpreadConstraint;
        if (!matchNodeInclusionPolicies(c, pod, node, required)) continue;
        const value = node.metadata?.labels?.[c.topologyKey] ?? '';
        const counts = s.tpValueToMatchNum[i] as Map<string, number>;
        counts.set(value, (counts.get(value) ?? 0) + (counters[i] as (ni: NodeInfo) => number)(ni));
      }
    }
  }
  constraints.forEach((_, i) => {
    for (const [value, num] of s.tpValueToMatchNum[i] ?? []) s.criticalPaths[i]?.update(value, num);
  });
  return s;
}

/**
 * Whether the nodes a constraint counts depend on their labels only: the pod has no nodeSelector or required node
 * affinity (or every constraint ignores them), and every constraint ignores taints.
 */
function nodeInclusionIsLabelsOnly(pod: Pod, constraints: readonly TopologySpreadConstraint[]): boolean {
  if (constraints.some((c) => c.nodeTaintsPolicy === 'Honor')) return false;
  if (constraints.every((c) => c.nodeAffinityPolicy === 'Ignore')) return true;
  const selector = pod.spec?.nodeSelector;
  if (selector != null && Object.keys(selector).length > 0) return false;
  return pod.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution == null;
}

/** One node's part in the totals: its value for each constraint (undefined: not counted) and its counts. */
interface NodePart {
  values: (string | undefined)[];
  counts: number[];
}

/** One domain's total for a constraint, and how many nodes are in it. */
interface DomainTotal {
  count: number;
  nodes: number;
}

/**
 * The per-constraint totals over every node, kept from cycle to cycle for one (namespace, constraints) and brought
 * up to date from the snapshot's change feed: only the nodes refreshed since the last cycle are counted again. The
 * domains keep the order in which a walk over the node list first meets them (when a node's domain changes, the
 * totals are rebuilt by such a walk).
 */
interface KeptTotals {
  feed: SnapshotChangeFeed;
  list: readonly NodeInfo[];
  mark: number;
  parts: Map<NodeInfo, NodePart>;
  totals: Map<string, DomainTotal>[];
}

const MAX_KEPT_TOTALS = 32;
const keptTotalsByKey = new Map<string, KeptTotals>();

function keptTotalsKey(ns: string, constraints: readonly TopologySpreadConstraint[]): string {
  return [ns, ...constraints.map((c) => `${c.topologyKey}\u0001${c.selector.selectable}\u0001${c.selector}`)].join(
    '\u0000',
  );
}

function nodePart(
  ni: NodeInfo,
  constraints: readonly TopologySpreadConstraint[],
  counters: ((ni: NodeInfo) => number)[],
): NodePart {
  const labels = ni.node.metadata?.labels;
  const counted = nodeLabelsMatchSpreadConstraints(labels, constraints);
  const values: (string | undefined)[] = [];
  const counts: number[] = [];
  for (let i = 0; i < constraints.length; i++) {
    const c = constraints[i] as TopologySpreadConstraint;
    values.push(counted ? (labels?.[c.topologyKey] ?? '') : undefined);
    counts.push(counted ? (counters[i] as (ni: NodeInfo) => number)(ni) : 0);
  }
  return { values, counts };
}

function sameValues(a: NodePart, b: NodePart): boolean {
  for (let i = 0; i < a.values.length; i++) if (a.values[i] !== b.values[i]) return false;
  return true;
}

function keptTotals(
  ns: string,
  constraints: readonly TopologySpreadConstraint[],
  allNodes: readonly NodeInfo[],
  feed: SnapshotChangeFeed,
): Map<string, DomainTotal>[] {
  const key = keptTotalsKey(ns, constraints);
  const counters = constraints.map((c) => nodePodCounter(c.selector, ns));
  const kept = keptTotalsByKey.get(key);
  if (kept && kept.feed === feed && kept.list === allNodes) {
    const changed = kept.mark === feed.changeMark() ? [] : feed.changedSince(kept.mark);
    if (changed && updateKeptTotals(kept, changed, constraints, counters)) {
      kept.mark = feed.changeMark();
      keptTotalsByKey.delete(key);
      keptTotalsByKey.set(key, kept);
      return kept.totals;
    }
  }
  // A walk over every node, in the list's order.
  const fresh: KeptTotals = {
    feed,
    list: allNodes,
    mark: feed.changeMark(),
    parts: new Map(),
    totals: constraints.map(() => new Map()),
  };
  for (const ni of allNodes) {
    const part = nodePart(ni, constraints, counters);
    fresh.parts.set(ni, part);
    addPart(fresh.totals, part, 1);
  }
  keptTotalsByKey.delete(key);
  if (keptTotalsByKey.size >= MAX_KEPT_TOTALS) {
    const oldest = keptTotalsByKey.keys().next().value;
    if (oldest !== undefined) keptTotalsByKey.delete(oldest);
  }
  keptTotalsByKey.set(key, fresh);
  return fresh.totals;
}

function addPart(totals: Map<string, DomainTotal>[], part: NodePart, sign: 1 | -1): void {
  for (let i = 0; i < part.values.length; i++) {
    const value = part.values[i];
    if (value === undefined) continue;
    const byValue = totals[i] as Map<string, DomainTotal>;
    let t = byValue.get(value);
    if (!t) {
      t = { count: 0, nodes: 0 };
      byValue.set(value, t);
    }
    t.count += sign * (part.counts[i] ?? 0);
    t.nodes += sign;
  }
}

/** Recounts the changed nodes; false when a node's domains changed (the totals must be walked again). */
function updateKeptTotals(
  kept: KeptTotals,
  changed: readonly NodeInfo[],
  constraints: readonly TopologySpreadConstraint[],
  counters: ((ni: NodeInfo) => number)[],
): boolean {
  const seen = new Set<NodeInfo>();
  for (const ni of changed) {
    if (seen.has(ni)) continue;
    seen.add(ni);
    const old = kept.parts.get(ni);
    if (!old) return false;
    const part = nodePart(ni, constraints, counters);
    if (!sameValues(old, part)) return false;
    addPart(kept.totals, old, -1);
    addPart(kept.totals, part, 1);
    kept.parts.set(ni, part);
  }
  return true;
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
