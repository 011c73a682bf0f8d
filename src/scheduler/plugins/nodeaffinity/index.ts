/**
 * NodeAffinity. PreFilter: nothing to do (Skip) for a pod without nodeSelector or required node affinity (and no
 * `addedAffinity`); narrows the nodes to evaluate when every required term pins `metadata.name` with `In`.
 * Filter: `spec.nodeSelector` AND the required node affinity terms (and the profile's `addedAffinity`). Score:
 * the sum of the weights of the preferred terms a node matches, normalised to 0..100.
 *
 * Args (NodeAffinityArgs): `addedAffinity` — a NodeAffinity every pod of the profile must also satisfy (required)
 * and is also scored by (preferred).
 */

import {
  CompiledNodeSelector,
  NODE_NAME_FIELD,
  type NodeAffinity as NodeAffinitySpec,
  PreferredSchedulingTerms,
  RequiredNodeAffinity,
} from '../../../api/node-selector.js';
import { defaultNormalizeScore } from '../../framework/normalize-score.js';
import {
  type ClusterEventWithHint,
  Code,
  type CycleState,
  type EnqueueExtensions,
  type FilterPlugin,
  MAX_NODE_SCORE,
  type Node,
  type NodeInfo,
  type NodeScore,
  type PluginFactory,
  type Pod,
  type PreFilterPlugin,
  type PreFilterResult,
  type PreScorePlugin,
  QueueingHint,
  type ScorePlugin,
  Status,
} from '../../framework/types.js';

export const name = 'NodeAffinity';
export const ERR_REASON_POD = "node(s) didn't match Pod's node affinity/selector";
export const ERR_REASON_ENFORCED = "node(s) didn't match scheduler-enforced node affinity";
export const ERR_REASON_CONFLICT = 'pod affinity terms conflict';

const PRE_FILTER_STATE_KEY = `PreFilter${name}`;
const PRE_SCORE_STATE_KEY = `PreScore${name}`;

export interface NodeAffinityArgs {
  addedAffinity?: NodeAffinitySpec | null;
}

function requiredTerms(pod: Pod): { matchFields?: { key: string; operator: string; values?: string[] }[] }[] | null {
  const required = pod.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution;
  return required ? (required.nodeSelectorTerms ?? []) : null;
}

function preferredOf(pod: Pod): PreferredSchedulingTerms | undefined {
  const preferred = pod.spec?.affinity?.nodeAffinity?.preferredDuringSchedulingIgnoredDuringExecution;
  return preferred ? PreferredSchedulingTerms.compile(preferred) : undefined;
}

export class NodeAffinity implements PreFilterPlugin, FilterPlugin, PreScorePlugin, ScorePlugin, EnqueueExtensions {
  readonly name = name;
  private readonly addedNodeSelector: CompiledNodeSelector | undefined;
  private readonly addedPreferred: PreferredSchedulingTerms | undefined;
  /** The result score() hands back, reused (the framework reads it at once). */
  private readonly result = { score: 0, status: Status.success() };

  constructor(args: NodeAffinityArgs = {}) {
    const added = args.addedAffinity;
    const required = added?.requiredDuringSchedulingIgnoredDuringExecution;
    if (required) {
      this.addedNodeSelector = CompiledNodeSelector.compile(required);
      const errors = this.addedNodeSelector.errors;
      if (errors.length > 0) throw new Error(`addedAffinity: ${errors.join(', ')}`);
    }
    const preferred = added?.preferredDuringSchedulingIgnoredDuringExecution;
    if (preferred && preferred.length > 0) this.addedPreferred = PreferredSchedulingTerms.compile(preferred);
  }

  preFilter(state: CycleState, pod: Pod): { result?: PreFilterResult; status: Status } {
    const terms = requiredTerms(pod);
    if (terms === null && !this.addedNodeSelector && pod.spec?.nodeSelector == null) {
      return { status: Status.skip() };
    }
    state.write(PRE_FILTER_STATE_KEY, new RequiredNodeAffinity(pod));
    if (terms === null || terms.length === 0) return { status: Status.success() };

    // When every term pins the node name, only the named nodes need evaluating.
    let nodeNames: Set<string> | undefined;
    for (const term of terms) {
      let termNames: Set<string> | undefined;
      for (const r of term.matchFields ?? []) {
        if (r.key !== NODE_NAME_FIELD || r.operator !== 'In') continue;
        const values = new Set(r.values ?? []);
        termNames = termNames ? new Set([...termNames].filter((n) => values.has(n))) : values;
      }
      // A term that does not pin the name admits every node (terms are ORed).
      if (!termNames) return { status: Status.success() };
      nodeNames = new Set([...(nodeNames ?? []), ...termNames]);
    }
    if (nodeNames && nodeNames.size === 0) {
      return { status: new Status(Code.UnschedulableAndUnresolvable, [ERR_REASON_CONFLICT]) };
    }
    return nodeNames ? { result: { nodeNames }, status: Status.success() } : { status: Status.success() };
  }

  filter(state: CycleState, pod: Pod, nodeInfo: NodeInfo): Status {
    const node = nodeInfo.node;
    if (this.addedNodeSelector && !this.addedNodeSelector.matches(node)) {
      return Status.unresolvable(ERR_REASON_ENFORCED);
    }
    const required = state.read<RequiredNodeAffinity>(PRE_FILTER_STATE_KEY) ?? new RequiredNodeAffinity(pod);
    return required.matches(node) ? Status.success() : Status.unresolvable(ERR_REASON_POD);
  }

  preScore(state: CycleState, pod: Pod, nodes: NodeInfo[]): Status {
    if (nodes.length === 0) return Status.success();
    let preferred: PreferredSchedulingTerms | undefined;
    try {
      preferred = preferredOf(pod);
    } catch (err) {
      return Status.error(err as Error);
    }
    if (!preferred && !this.addedPreferred) return Status.skip();
    state.write(PRE_SCORE_STATE_KEY, preferred ?? null);
    return Status.success();
  }

  score(state: CycleState, pod: Pod, nodeInfo: NodeInfo): { score: number; status: Status } {
    const node = nodeInfo.node;
    let count = this.addedPreferred?.score(node) ?? 0;
    let preferred = state.read<PreferredSchedulingTerms | null>(PRE_SCORE_STATE_KEY);
    if (preferred === undefined) {
      try {
        preferred = preferredOf(pod) ?? null;
      } catch (err) {
        return { score: 0, status: Status.error(err as Error) };
      }
    }
    if (preferred) count += preferred.score(node);
    this.result.score = count;
    return this.result;
  }

  normalizeScore(_state: CycleState, _pod: Pod, scores: NodeScore[]): Status {
    return defaultNormalizeScore(MAX_NODE_SCORE, false, scores);
  }

  eventsToRegister(): ClusterEventWithHint[] {
    return [
      {
        event: { resource: 'Node', actions: ['Add', 'UpdateNodeLabel'] },
        hint: (pod, oldObj, newObj) => this.isSchedulableAfterNodeChange(pod, oldObj as Node, newObj as Node),
      },
    ];
  }

  /** Queue when the node now matches the pod's required placement and did not before (or is new). */
  private isSchedulableAfterNodeChange(pod: Pod, original: Node | undefined, modified: Node | undefined): QueueingHint {
    if (!modified) return QueueingHint.Skip;
    if (this.addedNodeSelector && !this.addedNodeSelector.matches(modified)) return QueueingHint.Skip;
    const required = new RequiredNodeAffinity(pod);
    if (!required.matches(modified)) return QueueingHint.Skip;
    if (!original) return QueueingHint.Queue;
    return required.matches(original) ? QueueingHint.Skip : QueueingHint.Queue;
  }
}

export const factory: PluginFactory = (args) => new NodeAffinity((args ?? {}) as NodeAffinityArgs);
