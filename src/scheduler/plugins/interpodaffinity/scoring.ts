/**
 * InterPodAffinity's PreScore, Score and NormalizeScore (upstream's interpodaffinity/scoring.go, in our words).
 * PreScore sums, per topology pair, the weights of:
 *  - the incoming pod's preferred affinity terms (+) and anti-affinity terms (−) that existing pods match,
 *  - existing pods' required affinity terms that the incoming pod matches (+hardPodAffinityWeight),
 *  - existing pods' preferred affinity (+) and anti-affinity (−) terms that the incoming pod matches;
 * a node scores the sum over its pairs, and scores are scaled linearly from the lowest (0) to the highest (100).
 */

import type { LabelSet } from '../../../api/labels.js';
import {
  type CycleState,
  MAX_NODE_SCORE,
  type Node,
  type NodeInfo,
  type NodeScore,
  type Pod,
  type PodInfo,
  Status,
} from '../../framework/types.js';
import { incomingPodTerms, NAME } from './filtering.js';
import { type AffinityTerm, affinityOf, type NamespaceSource, type ParsedAffinity, termMatches } from './terms.js';

export const PRE_SCORE_STATE_KEY = `PreScore${NAME}`;

export interface InterPodAffinityArgs {
  hardPodAffinityWeight: number;
  ignorePreferredTermsOfExistingPods: boolean;
}

/** topologyKey → topologyValue → score. */
type ScoreMap = Map<string, Map<string, number>>;

export class PreScoreState {
  constructor(
    readonly terms: ParsedAffinity,
    readonly namespaceLabels: LabelSet | undefined,
    readonly topologyScore: ScoreMap = new Map(),
  ) {}
}

function processTerm(
  m: ScoreMap,
  term: AffinityTerm,
  weight: number,
  pod: Pod,
  nsLabels: LabelSet | undefined,
  node: Node,
  multiplier: number,
): void {
  if (!termMatches(term, pod, nsLabels)) return;
  const labels = node.metadata?.labels;
  if (!labels || !Object.hasOwn(labels, term.topologyKey)) return;
  const value = labels[term.topologyKey] ?? '';
  let byValue = m.get(term.topologyKey);
  if (!byValue) {
    byValue = new Map();
    m.set(term.topologyKey, byValue);
  }
  byValue.set(value, (byValue.get(value) ?? 0) + weight * multiplier);
}

function processTerms(
  m: ScoreMap,
  terms: readonly (AffinityTerm & { weight: number })[],
  pod: Pod,
  nsLabels: LabelSet | undefined,
  node: Node,
  multiplier: number,
): void {
  for (const t of terms) processTerm(m, t, t.weight, pod, nsLabels, node, multiplier);
}

function processExistingPod(
  args: InterPodAffinityArgs,
  s: PreScoreState,
  existing: PodInfo,
  node: Node,
  incoming: Pod,
  m: ScoreMap,
): void {
  if (Object.keys(node.metadata?.labels ?? {}).length === 0) return;
  // The incoming pod's namespace selectors are merged into its namespaces: no namespace labels needed.
  processTerms(m, s.terms.preferredAffinityTerms, existing.pod, undefined, node, 1);
  processTerms(m, s.terms.preferredAntiAffinityTerms, existing.pod, undefined, node, -1);
  const theirs = affinityOf(existing);
  if (args.hardPodAffinityWeight > 0) {
    for (const t of theirs.requiredAffinityTerms) {
      processTerm(m, t, args.hardPodAffinityWeight, incoming, s.namespaceLabels, node, 1);
    }
  }
  processTerms(m, theirs.preferredAffinityTerms, incoming, s.namespaceLabels, node, 1);
  processTerms(m, theirs.preferredAntiAffinityTerms, incoming, s.namespaceLabels, node, -1);
}

export function preScore(
  args: InterPodAffinityArgs,
  state: CycleState,
  pod: Pod,
  filteredNodes: readonly NodeInfo[],
  lists: { all(): NodeInfo[]; withAffinity(): NodeInfo[] },
  namespaces: NamespaceSource | undefined,
): Status {
  if (filteredNodes.length === 0) return Status.skip();
  const a = pod.spec?.affinity;
  const hasPreferredAffinity = (a?.podAffinity?.preferredDuringSchedulingIgnoredDuringExecution?.length ?? 0) > 0;
  const hasPreferredAnti = (a?.podAntiAffinity?.preferredDuringSchedulingIgnoredDuringExecution?.length ?? 0) > 0;
  const hasConstraints = hasPreferredAffinity || hasPreferredAnti;
  if (args.ignorePreferredTermsOfExistingPods && !hasConstraints) return Status.skip();

  // Without preferred terms of its own, only existing pods with affinity can contribute.
  const nodes = hasConstraints ? lists.all() : lists.withAffinity();
  const { terms, namespaceLabels } = incomingPodTerms(pod, namespaces);
  if (terms.errors.length > 0) return Status.error(`failed to parse pod: ${terms.errors.join(', ')}`);
  const s = new PreScoreState(terms, namespaceLabels);
  for (const ni of nodes) {
    const pods = hasConstraints ? ni.pods : ni.podsWithAffinity;
    for (const existing of pods) processExistingPod(args, s, existing, ni.node, pod, s.topologyScore);
  }
  if (s.topologyScore.size === 0) return Status.skip();
  state.write(PRE_SCORE_STATE_KEY, s);
  return Status.success();
}

function readPreScoreState(state: CycleState): PreScoreState | undefined {
  const s = state.read<PreScoreState>(PRE_SCORE_STATE_KEY);
  return s instanceof PreScoreState ? s : undefined;
}

/** The result score() hands back on success, reused (the framework reads it at once). */
const result = { score: 0, status: Status.success() };

export function score(state: CycleState, nodeInfo: NodeInfo): { score: number; status: Status } {
  const s = readPreScoreState(state);
  if (!s) {
    return { score: 0, status: Status.error(`failed to read "${PRE_SCORE_STATE_KEY}" from cycleState: not found`) };
  }
  const labels = nodeInfo.node.metadata?.labels ?? {};
  let total = 0;
  for (const [key, byValue] of s.topologyScore) {
    if (Object.hasOwn(labels, key)) total += byValue.get(labels[key] ?? '') ?? 0;
  }
  result.score = total;
  return result;
}

export function normalizeScore(state: CycleState, scores: NodeScore[]): Status {
  const s = readPreScoreState(state);
  if (!s) return Status.error(`failed to read "${PRE_SCORE_STATE_KEY}" from cycleState: not found`);
  if (s.topologyScore.size === 0) return Status.success();
  let min = Number.POSITIVE_INFINITY;
  let max = Number.NEGATIVE_INFINITY;
  for (const ns of scores) {
    if (ns.score > max) max = ns.score;
    if (ns.score < min) min = ns.score;
  }
  const diff = max - min;
  for (const ns of scores) {
    ns.score = diff > 0 ? Math.trunc(MAX_NODE_SCORE * ((ns.score - min) / diff)) : 0;
  }
  return Status.success();
}
