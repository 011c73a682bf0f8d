/**
 * TaintToleration. Filter: a node with a NoSchedule or NoExecute taint the pod does not tolerate is rejected,
 * naming the first such taint as `node(s) had untolerated taint {key: value}`. Score: the number of the node's
 * PreferNoSchedule taints the pod does not tolerate (by tolerations with effect PreferNoSchedule or none),
 * normalised reversed, so nodes with fewer such taints score higher.
 */

import {
  doNotScheduleTaints,
  findMatchingUntoleratedTaint,
  type Taint,
  type Toleration,
  tolerationsTolerateTaint,
} from '../../../api/taints.js';
import { defaultNormalizeScore } from '../../framework/normalize-score.js';
import {
  type ClusterEventWithHint,
  type CycleState,
  type EnqueueExtensions,
  type FilterPlugin,
  MAX_NODE_SCORE,
  type Node,
  type NodeInfo,
  type NodeScore,
  type PluginFactory,
  type Pod,
  type PreScorePlugin,
  QueueingHint,
  type ScorePlugin,
  Status,
} from '../../framework/types.js';

export const name = 'TaintToleration';
const PRE_SCORE_STATE_KEY = `PreScore${name}`;

/** The Filter's reason for an untolerated taint, formatted as upstream prints it. */
export function untoleratedTaintReason(taint: Taint): string {
  return `node(s) had untolerated taint {${taint.key}: ${taint.value ?? ''}}`;
}

function untolerated(node: Node, tolerations: Toleration[] | undefined): Taint | undefined {
  return findMatchingUntoleratedTaint(node.spec?.taints, tolerations, doNotScheduleTaints);
}

/** The tolerations that count for PreferNoSchedule taints: those with that effect or with no effect. */
function preferNoScheduleTolerations(tolerations: Toleration[] | undefined): Toleration[] {
  return (tolerations ?? []).filter((t) => !t.effect || t.effect === 'PreferNoSchedule');
}

function countIntolerablePreferNoSchedule(taints: Taint[] | undefined, tolerations: Toleration[]): number {
  let n = 0;
  for (const taint of taints ?? []) {
    if (taint.effect !== 'PreferNoSchedule') continue;
    if (!tolerationsTolerateTaint(tolerations, taint)) n++;
  }
  return n;
}

export class TaintToleration implements FilterPlugin, PreScorePlugin, ScorePlugin, EnqueueExtensions {
  readonly name = name;
  /** The result score() hands back, reused (the framework reads it at once). */
  private readonly result = { score: 0, status: Status.success() };

  filter(_state: CycleState, pod: Pod, nodeInfo: NodeInfo): Status {
    const taint = untolerated(nodeInfo.node, pod.spec?.tolerations);
    return taint ? Status.unresolvable(untoleratedTaintReason(taint)) : Status.success();
  }

  preScore(state: CycleState, pod: Pod, nodes: NodeInfo[]): Status {
    if (nodes.length === 0) return Status.success();
    state.write(PRE_SCORE_STATE_KEY, preferNoScheduleTolerations(pod.spec?.tolerations));
    return Status.success();
  }

  score(state: CycleState, pod: Pod, nodeInfo: NodeInfo): { score: number; status: Status } {
    const tolerations =
      state.read<Toleration[]>(PRE_SCORE_STATE_KEY) ?? preferNoScheduleTolerations(pod.spec?.tolerations);
    this.result.score = countIntolerablePreferNoSchedule(nodeInfo.node.spec?.taints, tolerations);
    return this.result;
  }

  normalizeScore(_state: CycleState, _pod: Pod, scores: NodeScore[]): Status {
    return defaultNormalizeScore(MAX_NODE_SCORE, true, scores);
  }

  eventsToRegister(): ClusterEventWithHint[] {
    return [
      { event: { resource: 'Node', actions: ['Add', 'UpdateNodeTaint'] }, hint: isSchedulableAfterNodeChange },
      { event: { resource: 'Pod', actions: ['UpdatePodTolerations'] }, hint: isSchedulableAfterPodTolerationChange },
    ];
  }
}

/** Queue when the node now admits the pod and did not before (or is new). */
function isSchedulableAfterNodeChange(pod: Pod, oldObj: unknown, newObj: unknown): QueueingHint {
  const modified = newObj as Node | undefined;
  if (!modified) return QueueingHint.Skip;
  const original = oldObj as Node | undefined;
  const wasUntolerated = original ? untolerated(original, pod.spec?.tolerations) !== undefined : true;
  const isUntolerated = untolerated(modified, pod.spec?.tolerations) !== undefined;
  return wasUntolerated && !isUntolerated ? QueueingHint.Queue : QueueingHint.Skip;
}

/** Tolerations can only be added to a pod, so any change to this pod's tolerations may help. */
function isSchedulableAfterPodTolerationChange(pod: Pod, oldObj: unknown, newObj: unknown): QueueingHint {
  const original = oldObj as Pod | undefined;
  const modified = newObj as Pod | undefined;
  if (!modified || modified.metadata?.uid !== pod.metadata?.uid) return QueueingHint.Skip;
  const before = original?.spec?.tolerations?.length ?? 0;
  const after = modified.spec?.tolerations?.length ?? 0;
  return before !== after ? QueueingHint.Queue : QueueingHint.Skip;
}

export const factory: PluginFactory = () => new TaintToleration();
