/**
 * Topology spread constraints as PodTopologySpread evaluates them (upstream's podtopologyspread/common.go, in
 * our words): a pod's constraints of one `whenUnsatisfiable` kind with their selectors (matchLabelKeys folded in
 * from the pod's labels), `minDomains` (default 1), `nodeAffinityPolicy` (default Honor) and `nodeTaintsPolicy`
 * (default Ignore); which nodes a constraint counts; how many matching pods a node holds.
 */

import { LabelSelector, type LabelSelectorObject, type LabelSet } from '../../../api/labels.js';
import { RequiredNodeAffinity } from '../../../api/node-selector.js';
import { doNotScheduleTaints, findMatchingUntoleratedTaint } from '../../../api/taints.js';
import type { Node, NodeInfo, Pod, PodInfo } from '../../framework/types.js';

export const LABEL_HOSTNAME = 'kubernetes.io/hostname';
export const LABEL_TOPOLOGY_ZONE = 'topology.kubernetes.io/zone';

export type UnsatisfiableConstraintAction = 'DoNotSchedule' | 'ScheduleAnyway';
export type NodeInclusionPolicy = 'Honor' | 'Ignore';

/** v1.TopologySpreadConstraint as it arrives in a pod or in PodTopologySpreadArgs. */
export interface TopologySpreadConstraintObject {
  maxSkew?: number;
  topologyKey?: string;
  whenUnsatisfiable?: string;
  labelSelector?: LabelSelectorObject | null;
  minDomains?: number | null;
  nodeAffinityPolicy?: string | null;
  nodeTaintsPolicy?: string | null;
  matchLabelKeys?: string[] | null;
}

export interface TopologySpreadConstraint {
  maxSkew: number;
  topologyKey: string;
  selector: LabelSelector;
  minDomains: number;
  nodeAffinityPolicy: NodeInclusionPolicy;
  nodeTaintsPolicy: NodeInclusionPolicy;
}

/** Upstream's system default constraints (used when PodTopologySpreadArgs.defaultingType is System). */
export const SYSTEM_DEFAULT_CONSTRAINTS: readonly TopologySpreadConstraintObject[] = [
  { topologyKey: LABEL_HOSTNAME, whenUnsatisfiable: 'ScheduleAnyway', maxSkew: 3 },
  { topologyKey: LABEL_TOPOLOGY_ZONE, whenUnsatisfiable: 'ScheduleAnyway', maxSkew: 5 },
];

/** The selector with `key=value` for each matchLabelKeys key the pod has (a selector matching nothing stays so). */
function mergeLabelSetWithSelector(matchLabels: LabelSet, selector: LabelSelector): LabelSelector {
  if (!selector.selectable) return selector;
  return LabelSelector.fromSet(matchLabels).add(...selector.requirements);
}

/** The constraints of the given action, parsed; throws when a selector does not parse. */
export function filterTopologySpreadConstraints(
  constraints: readonly TopologySpreadConstraintObject[] | null | undefined,
  podLabels: LabelSet,
  action: UnsatisfiableConstraintAction,
): TopologySpreadConstraint[] {
  const out: TopologySpreadConstraint[] = [];
  for (const c of constraints ?? []) {
    if (c.whenUnsatisfiable !== action) continue;
    let selector = LabelSelector.fromObject(c.labelSelector);
    const keys = c.matchLabelKeys ?? [];
    if (keys.length > 0) {
      const matchLabels: Record<string, string> = {};
      for (const key of keys) if (Object.hasOwn(podLabels, key)) matchLabels[key] = podLabels[key] ?? '';
      if (Object.keys(matchLabels).length > 0) selector = mergeLabelSetWithSelector(matchLabels, selector);
    }
    out.push({
      maxSkew: Number(c.maxSkew ?? 0),
      topologyKey: c.topologyKey ?? '',
      selector,
      minDomains: c.minDomains ?? 1,
      nodeAffinityPolicy: c.nodeAffinityPolicy === 'Ignore' ? 'Ignore' : 'Honor',
      nodeTaintsPolicy: c.nodeTaintsPolicy === 'Honor' ? 'Honor' : 'Ignore',
    });
  }
  return out;
}

/** Whether the node counts for the constraint under its node inclusion policies. */
export function matchNodeInclusionPolicies(
  c: TopologySpreadConstraint,
  pod: Pod,
  node: Node,
  requiredNodeAffinity: RequiredNodeAffinity,
): boolean {
  if (c.nodeAffinityPolicy === 'Honor' && !requiredNodeAffinity.matches(node)) return false;
  if (c.nodeTaintsPolicy === 'Honor') {
    if (findMatchingUntoleratedTaint(node.spec?.taints, pod.spec?.tolerations, doNotScheduleTaints)) return false;
  }
  return true;
}

export function requiredNodeAffinityOf(pod: Pod): RequiredNodeAffinity {
  return new RequiredNodeAffinity(pod);
}

/** The node has a label for every constraint's topology key. */
export function nodeLabelsMatchSpreadConstraints(
  labels: Record<string, string> | undefined,
  constraints: readonly TopologySpreadConstraint[],
): boolean {
  const l = labels ?? {};
  return constraints.every((c) => Object.hasOwn(l, c.topologyKey));
}

/**
 * Pods of namespace ns the selector matches, leaving out terminating pods. An empty selector counts nothing, as
 * upstream's does.
 */
export function countPodsMatchSelector(pods: readonly PodInfo[], selector: LabelSelector, ns: string): number {
  if (selector.isEmpty()) return 0;
  let n = 0;
  for (const p of pods) {
    if (p.pod.metadata?.deletionTimestamp || (p.pod.metadata?.namespace ?? '') !== ns) continue;
    if (selector.matches(p.pod.metadata?.labels)) n++;
  }
  return n;
}

/** One node's count for one (selector, namespace), valid while the node's generation stays the same. */
interface CachedCount {
  generation: number;
  count: number;
}

/** How many (selector, namespace) pairs keep their per-node counts (the least recently used go first). */
const MAX_CACHED_SELECTORS = 64;
const cachedCounts = new Map<string, WeakMap<NodeInfo, CachedCount>>();

/**
 * countPodsMatchSelector(ni.pods, selector, ns) for many nodes, remembering each node's count until the node
 * changes (its generation moves on whenever a pod is added, removed or updated on it). A scheduling cycle counts
 * over every node, but between two cycles usually one node changed: the others are not counted again.
 */
export function nodePodCounter(selector: LabelSelector, ns: string): (ni: NodeInfo) => number {
  if (selector.isEmpty() || !selector.selectable) return () => 0;
  const key = `${ns}\u0000${selector.toString()}`;
  let counts = cachedCounts.get(key);
  if (counts) {
    cachedCounts.delete(key);
  } else {
    counts = new WeakMap();
    if (cachedCounts.size >= MAX_CACHED_SELECTORS) {
      const oldest = cachedCounts.keys().next().value;
      if (oldest !== undefined) cachedCounts.delete(oldest);
    }
  }
  cachedCounts.set(key, counts);
  const byNode = counts;
  return (ni) => {
    const cached = byNode.get(ni);
    if (cached && cached.generation === ni.generation) return cached.count;
    const count = countPodsMatchSelector(ni.pods, selector, ns);
    if (cached) {
      cached.generation = ni.generation;
      cached.count = count;
    } else {
      byNode.set(ni, { generation: ni.generation, count });
    }
    return count;
  };
}

/** Some constraint's selector matches the labels. */
export function podLabelsMatchSpreadConstraints(
  constraints: readonly TopologySpreadConstraint[],
  labels: LabelSet | undefined,
): boolean {
  return constraints.some((c) => c.selector.matches(labels));
}
