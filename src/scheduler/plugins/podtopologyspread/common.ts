/**
 * Topology spread constraints as PodTopologySpread evaluates them (upstream's podtopologyspread/common.go, in
 * our words): a pod's constraints of one `whenUnsatisfiable` kind with their selectors (matchLabelKeys folded in
 * from the pod's labels), `minDomains` (default 1), `nodeAffinityPolicy` (default Honor) and `nodeTaintsPolicy`
 * (default Ignore); which nodes a constraint counts; how many matching pods a node holds.
 */

import { LabelSelector, type LabelSelectorObject, type LabelSet } from '../../../api/labels.js';
import { RequiredNodeAffinity } from '../../../api/node-selector.js';
import { doNotScheduleTaints, findMatchingUntoleratedTaint } from '../../../api/taints.js';
import type { Node, Pod, PodInfo } from '../../framework/types.js';

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

/** Some constraint's selector matches the labels. */
export function podLabelsMatchSpreadConstraints(
  constraints: readonly TopologySpreadConstraint[],
  labels: LabelSet | undefined,
): boolean {
  return constraints.some((c) => c.selector.matches(labels));
}
