/**
 * InterPodAffinity's PreFilter and Filter (upstream's interpodaffinity/filtering.go, in our words). PreFilter
 * counts, per topology pair (key=value of a node label):
 *  - existing pods whose required anti-affinity terms select the incoming pod (symmetry),
 *  - existing pods that match all of the incoming pod's required affinity terms,
 *  - existing pods that match each of the incoming pod's required anti-affinity terms;
 * Filter then only looks the node's pairs up. AddPod/RemovePod keep the counts right for preemption's what-ifs.
 */

import type { LabelSet } from '../../../api/labels.js';
import { type CycleState, type Node, type NodeInfo, type Pod, type PodInfo, Status } from '../../framework/types.js';
import {
  type AffinityTerm,
  affinityOf,
  mergeTermNamespaces,
  type NamespaceSource,
  type ParsedAffinity,
  parsePodAffinity,
  podMatchesAllAffinityTerms,
  termMatches,
} from './terms.js';

export const NAME = 'InterPodAffinity';
export const PRE_FILTER_STATE_KEY = `PreFilter${NAME}`;

export const ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH =
  "node(s) didn't satisfy existing pods anti-affinity rules";
export const ERR_REASON_AFFINITY_RULES_NOT_MATCH = "node(s) didn't match pod affinity rules";
export const ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH = "node(s) didn't match pod anti-affinity rules";

/** Counts keyed by `key\u0000value` of a topology pair. */
export class TopologyCounts {
  readonly counts = new Map<string, number>();

  static pair(key: string, value: string): string {
    return `${key}\u0000${value}`;
  }

  get size(): number {
    return this.counts.size;
  }

  get(key: string, value: string): number {
    return this.counts.get(TopologyCounts.pair(key, value)) ?? 0;
  }

  /** Adds delta to the node's pair for key (nothing when the node lacks the label); drops pairs that reach 0. */
  update(node: Node, key: string, delta: number): void {
    const labels = node.metadata?.labels;
    if (!labels || !Object.hasOwn(labels, key)) return;
    const pair = TopologyCounts.pair(key, labels[key] ?? '');
    const next = (this.counts.get(pair) ?? 0) + delta;
    if (next === 0) this.counts.delete(pair);
    else this.counts.set(pair, next);
  }

  /** For each term, when the pod matches all the terms. */
  updateWithAffinityTerms(terms: readonly AffinityTerm[], pod: Pod, node: Node, delta: number): void {
    if (!podMatchesAllAffinityTerms(terms, pod)) return;
    for (const t of terms) this.update(node, t.topologyKey, delta);
  }

  /** For each term that matches the pod. */
  updateWithAntiAffinityTerms(
    terms: readonly AffinityTerm[],
    pod: Pod,
    nsLabels: LabelSet | undefined,
    node: Node,
    delta: number,
  ): void {
    for (const t of terms) if (termMatches(t, pod, nsLabels)) this.update(node, t.topologyKey, delta);
  }

  merge(other: TopologyCounts): void {
    for (const [pair, n] of other.counts) this.counts.set(pair, (this.counts.get(pair) ?? 0) + n);
  }

  clone(): TopologyCounts {
    const c = new TopologyCounts();
    for (const [pair, n] of this.counts) c.counts.set(pair, n);
    return c;
  }
}

export class PreFilterState {
  constructor(
    readonly pod: Pod,
    /** The incoming pod's terms, namespace selectors merged into namespaces. */
    readonly terms: ParsedAffinity,
    readonly namespaceLabels: LabelSet | undefined,
    public existingAntiAffinityCounts = new TopologyCounts(),
    public affinityCounts = new TopologyCounts(),
    public antiAffinityCounts = new TopologyCounts(),
  ) {}

  clone(): PreFilterState {
    return new PreFilterState(
      this.pod,
      this.terms,
      this.namespaceLabels,
      this.existingAntiAffinityCounts.clone(),
      this.affinityCounts.clone(),
      this.antiAffinityCounts.clone(),
    );
  }

  /** Counts an existing pod in (delta 1) or out (delta -1) as if it ran on node. */
  updateWithPod(pi: PodInfo, node: Node, delta: number): void {
    const existing = affinityOf(pi);
    this.existingAntiAffinityCounts.updateWithAntiAffinityTerms(
      existing.requiredAntiAffinityTerms,
      this.pod,
      this.namespaceLabels,
      node,
      delta,
    );
    this.affinityCounts.updateWithAffinityTerms(this.terms.requiredAffinityTerms, pi.pod, node, delta);
    // The incoming pod's namespace selectors are already merged, so no namespace labels are needed here.
    this.antiAffinityCounts.updateWithAntiAffinityTerms(
      this.terms.requiredAntiAffinityTerms,
      pi.pod,
      undefined,
      node,
      delta,
    );
  }
}

/** The incoming pod's terms with their namespace selectors resolved, and its namespace's labels. */
export function incomingPodTerms(
  pod: Pod,
  namespaces: NamespaceSource | undefined,
): { terms: ParsedAffinity; namespaceLabels: LabelSet | undefined } {
  const terms = parsePodAffinity(pod);
  for (const t of terms.requiredAffinityTerms) mergeTermNamespaces(t, namespaces);
  for (const t of terms.requiredAntiAffinityTerms) mergeTermNamespaces(t, namespaces);
  for (const t of terms.preferredAffinityTerms) mergeTermNamespaces(t, namespaces);
  for (const t of terms.preferredAntiAffinityTerms) mergeTermNamespaces(t, namespaces);
  return { terms, namespaceLabels: namespaces?.labelsOf(pod.metadata?.namespace ?? '') };
}

/** Upstream's PreFilter: builds the state, or answers Skip when there is nothing to check. */
export function preFilter(
  state: CycleState,
  pod: Pod,
  allNodes: readonly NodeInfo[],
  nodesWithRequiredAntiAffinityPods: readonly NodeInfo[],
  namespaces: NamespaceSource | undefined,
): Status {
  const { terms, namespaceLabels } = incomingPodTerms(pod, namespaces);
  if (terms.errors.length > 0) {
    return Status.unresolvable(`parsing pod: ${terms.errors.join(', ')}`);
  }
  const s = new PreFilterState(pod, terms, namespaceLabels);

  for (const ni of nodesWithRequiredAntiAffinityPods) {
    for (const existing of ni.podsWithRequiredAntiAffinity) {
      s.existingAntiAffinityCounts.updateWithAntiAffinityTerms(
        affinityOf(existing).requiredAntiAffinityTerms,
        pod,
        namespaceLabels,
        ni.node,
        1,
      );
    }
  }

  if (terms.requiredAffinityTerms.length > 0 || terms.requiredAntiAffinityTerms.length > 0) {
    for (const ni of allNodes) {
      for (const existing of ni.pods) {
        s.affinityCounts.updateWithAffinityTerms(terms.requiredAffinityTerms, existing.pod, ni.node, 1);
        s.antiAffinityCounts.updateWithAntiAffinityTerms(
          terms.requiredAntiAffinityTerms,
          existing.pod,
          undefined,
          ni.node,
          1,
        );
      }
    }
  }

  if (
    s.existingAntiAffinityCounts.size === 0 &&
    terms.requiredAffinityTerms.length === 0 &&
    terms.requiredAntiAffinityTerms.length === 0
  ) {
    return Status.skip();
  }
  state.write(PRE_FILTER_STATE_KEY, s);
  return Status.success();
}

export function readPreFilterState(state: CycleState): PreFilterState | undefined {
  const s = state.read<PreFilterState>(PRE_FILTER_STATE_KEY);
  return s instanceof PreFilterState ? s : undefined;
}

/** No existing pod's anti-affinity term, matching the incoming pod, covers any of the node's pairs. */
function satisfyExistingPodsAntiAffinity(s: PreFilterState, node: Node): boolean {
  if (s.existingAntiAffinityCounts.size === 0) return true;
  for (const [key, value] of Object.entries(node.metadata?.labels ?? {})) {
    if (s.existingAntiAffinityCounts.get(key, value) > 0) return false;
  }
  return true;
}

/** No pod the incoming pod's anti-affinity terms select runs in the node's domain of any term. */
function satisfyPodAntiAffinity(s: PreFilterState, node: Node): boolean {
  if (s.antiAffinityCounts.size === 0) return true;
  const labels = node.metadata?.labels ?? {};
  for (const t of s.terms.requiredAntiAffinityTerms) {
    if (!Object.hasOwn(labels, t.topologyKey)) continue;
    if (s.antiAffinityCounts.get(t.topologyKey, labels[t.topologyKey] ?? '') > 0) return false;
  }
  return true;
}

/**
 * The node has every term's topology label and a matching pod in each of those domains — or no pod anywhere
 * matches and the incoming pod matches its own terms (the first pod of a group with affinity to itself).
 */
function satisfyPodAffinity(s: PreFilterState, node: Node): boolean {
  const labels = node.metadata?.labels ?? {};
  let podsExist = true;
  for (const t of s.terms.requiredAffinityTerms) {
    if (!Object.hasOwn(labels, t.topologyKey)) return false;
    if (s.affinityCounts.get(t.topologyKey, labels[t.topologyKey] ?? '') <= 0) podsExist = false;
  }
  if (podsExist) return true;
  return s.affinityCounts.size === 0 && podMatchesAllAffinityTerms(s.terms.requiredAffinityTerms, s.pod);
}

export function filter(state: CycleState, nodeInfo: NodeInfo): Status {
  const s = readPreFilterState(state);
  if (!s) return Status.error(`error reading "${PRE_FILTER_STATE_KEY}" from cycleState: not found`);
  const node = nodeInfo.node;
  if (!satisfyPodAffinity(s, node)) return Status.unresolvable(ERR_REASON_AFFINITY_RULES_NOT_MATCH);
  if (!satisfyPodAntiAffinity(s, node)) return Status.unschedulable(ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH);
  if (!satisfyExistingPodsAntiAffinity(s, node)) {
    return Status.unschedulable(ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH);
  }
  return Status.success();
}
