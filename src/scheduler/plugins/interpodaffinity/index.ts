/**
 * The InterPodAffinity plugin (upstream's pkg/scheduler/framework/plugins/interpodaffinity): required pod
 * affinity / anti-affinity as a filter — including existing pods' anti-affinity against the incoming pod — and
 * preferred terms (the incoming pod's and, symmetrically, existing pods') as a score.
 *
 * Args (InterPodAffinityArgs): `hardPodAffinityWeight` (0–100, default 1) weighs existing pods' required affinity
 * terms that the incoming pod matches; `ignorePreferredTermsOfExistingPods` (default false) skips scoring when the
 * incoming pod has no preferred terms of its own.
 */

import type { KubeObject } from '../../../client/types.js';
import {
  type ClusterEventWithHint,
  type CycleState,
  type EnqueueExtensions,
  type FilterPlugin,
  type Handle,
  type NodeInfo,
  type NodeScore,
  type PluginFactory,
  type Pod,
  type PodInfo,
  type PreFilterExtensions,
  type PreFilterPlugin,
  type PreFilterResult,
  type PreScorePlugin,
  QueueingHint,
  type ScorePlugin,
  Status,
} from '../../framework/types.js';
import { filter, NAME, preFilter, readPreFilterState } from './filtering.js';
import { namespaceSourceFrom } from './namespaces.js';
import { type InterPodAffinityArgs, normalizeScore, preScore, score } from './scoring.js';
import {
  affinityOf,
  type NamespaceSource,
  parsePodAffinity,
  podMatchesAllAffinityTerms,
  termMatches,
} from './terms.js';

export const name = NAME;

export const DEFAULT_ARGS: InterPodAffinityArgs = {
  hardPodAffinityWeight: 1,
  ignorePreferredTermsOfExistingPods: false,
};

/** The args with upstream's defaults; throws with upstream's validation message on an out-of-range weight. */
export function parseArgs(raw: Record<string, unknown> | undefined): InterPodAffinityArgs {
  const weight = raw?.hardPodAffinityWeight ?? DEFAULT_ARGS.hardPodAffinityWeight;
  if (typeof weight !== 'number' || !Number.isInteger(weight) || weight < 0 || weight > 100) {
    throw new Error(`hardPodAffinityWeight: Invalid value: ${String(weight)}: not in valid range [0, 100]`);
  }
  return {
    hardPodAffinityWeight: weight,
    ignorePreferredTermsOfExistingPods: raw?.ignorePreferredTermsOfExistingPods === true,
  };
}

export class InterPodAffinity
  implements PreFilterPlugin, FilterPlugin, PreScorePlugin, ScorePlugin, EnqueueExtensions, PreFilterExtensions
{
  readonly name = NAME;
  private readonly namespaces: NamespaceSource | undefined;

  constructor(
    readonly args: InterPodAffinityArgs,
    private readonly handle: Handle,
  ) {
    this.namespaces = namespaceSourceFrom(handle);
  }

  preFilter(state: CycleState, pod: Pod, nodes: NodeInfo[]): { result?: PreFilterResult; status: Status } {
    const withAnti = this.handle.snapshot().nodeInfos().havePodsWithRequiredAntiAffinityList();
    return { status: preFilter(state, pod, nodes, withAnti, this.namespaces) };
  }

  preFilterExtensions(): PreFilterExtensions {
    return this;
  }

  addPod(state: CycleState, _podToSchedule: Pod, podInfoToAdd: PodInfo, nodeInfo: NodeInfo): Status {
    readPreFilterState(state)?.updateWithPod(podInfoToAdd, nodeInfo.node, 1);
    return Status.success();
  }

  removePod(state: CycleState, _podToSchedule: Pod, podInfoToRemove: PodInfo, nodeInfo: NodeInfo): Status {
    readPreFilterState(state)?.updateWithPod(podInfoToRemove, nodeInfo.node, -1);
    return Status.success();
  }

  filter(state: CycleState, _pod: Pod, nodeInfo: NodeInfo): Status {
    return filter(state, nodeInfo);
  }

  preScore(state: CycleState, pod: Pod, nodes: NodeInfo[]): Status {
    const lister = this.handle.snapshot().nodeInfos();
    return preScore(
      this.args,
      state,
      pod,
      nodes,
      { all: () => lister.list(), withAffinity: () => lister.havePodsWithAffinityList() },
      this.namespaces,
    );
  }

  score(state: CycleState, _pod: Pod, nodeInfo: NodeInfo): { score: number; status: Status } {
    return score(state, nodeInfo);
  }

  normalizeScore(state: CycleState, _pod: Pod, scores: NodeScore[]): Status {
    return normalizeScore(state, scores);
  }

  eventsToRegister(): ClusterEventWithHint[] {
    return [
      { event: { resource: 'Pod', actions: ['Add', 'UpdatePodLabel', 'Delete'] }, hint: isSchedulableAfterPodChange },
      { event: { resource: 'Node', actions: ['Add', 'UpdateNodeLabel'] }, hint: isSchedulableAfterNodeChange },
    ];
  }
}

/**
 * Queueing hint for pod events: an assigned pod added that matches all the pod's affinity terms; a label change
 * that starts matching them or stops matching its anti-affinity terms; a deleted pod that matched its
 * anti-affinity terms, or whose own anti-affinity selected the pod.
 */
export function isSchedulableAfterPodChange(
  pod: Pod,
  oldObj: KubeObject | undefined,
  newObj: KubeObject | undefined,
): QueueingHint {
  const oldPod = oldObj as Pod | undefined;
  const newPod = newObj as Pod | undefined;
  if ((newPod && !newPod.spec?.nodeName) || (oldPod && !oldPod.spec?.nodeName)) return QueueingHint.Skip;
  const terms = parsePodAffinity(pod);
  const affinity = terms.requiredAffinityTerms;
  const anti = terms.requiredAntiAffinityTerms;
  if (oldPod && newPod) {
    if (!podMatchesAllAffinityTerms(affinity, oldPod) && podMatchesAllAffinityTerms(affinity, newPod)) {
      return QueueingHint.Queue;
    }
    if (podMatchesAllAffinityTerms(anti, oldPod) && !podMatchesAllAffinityTerms(anti, newPod)) {
      return QueueingHint.Queue;
    }
    // A label change of a pod whose anti-affinity selected this pod may lift the existing-pods rule.
    return hasAntiAffinityTermSelecting(oldPod, pod) ? QueueingHint.Queue : QueueingHint.Skip;
  }
  if (newPod) return podMatchesAllAffinityTerms(affinity, newPod) ? QueueingHint.Queue : QueueingHint.Skip;
  if (!oldPod) return QueueingHint.Queue;
  if (podMatchesAllAffinityTerms(anti, oldPod)) return QueueingHint.Queue;
  return hasAntiAffinityTermSelecting(oldPod, pod) ? QueueingHint.Queue : QueueingHint.Skip;
}

function hasAntiAffinityTermSelecting(existing: Pod, pod: Pod): boolean {
  const terms = affinityOf({ pod: existing, cache: new Map() }).requiredAntiAffinityTerms;
  // Namespace labels are not at hand here; a term with a namespace selector is taken as a possible match.
  return terms.some((t) => termMatches(t, pod, undefined) || !t.namespaceSelector.isEmpty());
}

/**
 * Queueing hint for node events: a node added or relabelled so that it gains (or changes) the topology key of one
 * of the pod's affinity terms, or loses or changes one of its anti-affinity terms' keys; any added node for a pod
 * with anti-affinity terms or with no terms of its own (it may have been rejected by existing pods' rules).
 */
export function isSchedulableAfterNodeChange(
  pod: Pod,
  oldObj: KubeObject | undefined,
  newObj: KubeObject | undefined,
): QueueingHint {
  const terms = parsePodAffinity(pod);
  const oldLabels = oldObj?.metadata?.labels ?? {};
  const newLabels = newObj?.metadata?.labels ?? {};
  if (!oldObj && terms.requiredAffinityTerms.length === 0) return QueueingHint.Queue;
  for (const t of terms.requiredAffinityTerms) {
    const k = t.topologyKey;
    if (!oldObj) {
      if (Object.hasOwn(newLabels, k)) return QueueingHint.Queue;
      continue;
    }
    const had = Object.hasOwn(oldLabels, k);
    const has = Object.hasOwn(newLabels, k);
    if (!had && has) return QueueingHint.Queue;
    if (had && has && oldLabels[k] !== newLabels[k]) return QueueingHint.Queue;
  }
  for (const t of terms.requiredAntiAffinityTerms) {
    if (!oldObj) return QueueingHint.Queue;
    const k = t.topologyKey;
    const had = Object.hasOwn(oldLabels, k);
    const has = Object.hasOwn(newLabels, k);
    if (had && !has) return QueueingHint.Queue;
    if (had && has && oldLabels[k] !== newLabels[k]) return QueueingHint.Queue;
  }
  // A pod rejected by existing pods' anti-affinity may fit once a node changes its labels.
  if (oldObj && terms.requiredAffinityTerms.length === 0 && terms.requiredAntiAffinityTerms.length === 0) {
    return QueueingHint.Queue;
  }
  return QueueingHint.Skip;
}

export const factory: PluginFactory = (args, handle) => new InterPodAffinity(parseArgs(args), handle);
