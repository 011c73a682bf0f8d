/**
 * The PodTopologySpread plugin (upstream's pkg/scheduler/framework/plugins/podtopologyspread): a pod's hard
 * spread constraints as a filter and its soft ones as a score; a pod with no constraints of its own that belongs
 * to a Service, ReplicationController, ReplicaSet or StatefulSet gets the cluster's default constraints.
 *
 * Args (PodTopologySpreadArgs): `defaultingType` `System` (the default: hostname maxSkew 3 and zone maxSkew 5,
 * both ScheduleAnyway) or `List` (use `defaultConstraints`, which must then be set — or empty for none).
 */

import type { LabelSet } from '../../../api/labels.js';
import type { KubeObject } from '../../../client/types.js';
import { changeFeedOf } from '../../cache/snapshot.js';
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
import {
  filterTopologySpreadConstraints,
  nodeLabelsMatchSpreadConstraints,
  podLabelsMatchSpreadConstraints,
  SYSTEM_DEFAULT_CONSTRAINTS,
  type TopologySpreadConstraint,
  type TopologySpreadConstraintObject,
  type UnsatisfiableConstraintAction,
} from './common.js';
import { defaultSelector, type WorkloadListers, workloadListersFrom } from './default-selector.js';
import { calPreFilterState, filter, NAME, PRE_FILTER_STATE_KEY, readPreFilterState } from './filtering.js';
import { normalizeScore, preScore, score } from './scoring.js';

export const name = NAME;

export interface PodTopologySpreadArgs {
  defaultConstraints: TopologySpreadConstraintObject[];
  defaultingType: 'System' | 'List';
}

/** The args with upstream's defaults; throws on the combinations upstream's validation refuses. */
export function parseArgs(raw: Record<string, unknown> | undefined): PodTopologySpreadArgs {
  const defaultingType = (raw?.defaultingType ?? 'System') as string;
  if (defaultingType !== 'System' && defaultingType !== 'List') {
    throw new Error(`defaultingType: Unsupported value: "${defaultingType}": supported values: "List", "System"`);
  }
  const defaultConstraints = (raw?.defaultConstraints ?? []) as TopologySpreadConstraintObject[];
  if (!Array.isArray(defaultConstraints)) throw new Error('defaultConstraints: Invalid value: must be a list');
  if (defaultingType === 'System' && defaultConstraints.length > 0) {
    throw new Error(`defaultingType: Invalid value: "System": when .defaultConstraints are not empty`);
  }
  defaultConstraints.forEach((c, i) => {
    if (!(Number(c.maxSkew) > 0)) {
      throw new Error(`defaultConstraints[${i}].maxSkew: Invalid value: ${c.maxSkew}: must be greater than zero`);
    }
    if (!c.topologyKey) throw new Error(`defaultConstraints[${i}].topologyKey: Required value: can not be empty`);
    if (c.whenUnsatisfiable !== 'DoNotSchedule' && c.whenUnsatisfiable !== 'ScheduleAnyway') {
      throw new Error(
        `defaultConstraints[${i}].whenUnsatisfiable: Unsupported value: "${c.whenUnsatisfiable ?? ''}": supported values: "DoNotSchedule", "ScheduleAnyway"`,
      );
    }
    if (c.labelSelector != null) {
      throw new Error(
        `defaultConstraints[${i}].labelSelector: Forbidden: constraint must not define a selector, as they deduced for each pod`,
      );
    }
  });
  return { defaultConstraints, defaultingType };
}

export class PodTopologySpread
  implements PreFilterPlugin, FilterPlugin, PreScorePlugin, ScorePlugin, EnqueueExtensions, PreFilterExtensions
{
  readonly name = NAME;
  readonly defaultConstraints: readonly TopologySpreadConstraintObject[];
  readonly systemDefaulted: boolean;
  private readonly listers: WorkloadListers | undefined;

  constructor(
    args: PodTopologySpreadArgs,
    private readonly handle: Handle,
  ) {
    this.systemDefaulted = args.defaultingType === 'System';
    this.defaultConstraints = this.systemDefaulted ? SYSTEM_DEFAULT_CONSTRAINTS : args.defaultConstraints;
    this.listers =
      this.defaultConstraints.length > 0 && handle.informers ? workloadListersFrom(handle.informers) : undefined;
  }

  /** The cluster defaults of that action, selecting the pod's workload; none when nothing selects the pod. */
  private buildDefaultConstraints(pod: Pod, action: UnsatisfiableConstraintAction): TopologySpreadConstraint[] {
    const labels = (pod.metadata?.labels ?? {}) as LabelSet;
    const constraints = filterTopologySpreadConstraints(this.defaultConstraints, labels, action);
    if (constraints.length === 0 || !this.listers) return [];
    const selector = defaultSelector(pod, this.listers);
    if (selector.isEmpty()) return [];
    return constraints.map((c) => ({ ...c, selector }));
  }

  /** The pod's constraints of one action, or the defaults when it has none at all. */
  constraintsOf(pod: Pod, action: UnsatisfiableConstraintAction): TopologySpreadConstraint[] {
    const own = pod.spec?.topologySpreadConstraints as TopologySpreadConstraintObject[] | undefined;
    if ((own?.length ?? 0) > 0) {
      return filterTopologySpreadConstraints(own, (pod.metadata?.labels ?? {}) as LabelSet, action);
    }
    return this.buildDefaultConstraints(pod, action);
  }

  preFilter(state: CycleState, pod: Pod, nodes: NodeInfo[]): { result?: PreFilterResult; status: Status } {
    let constraints: TopologySpreadConstraint[];
    try {
      constraints = this.constraintsOf(pod, 'DoNotSchedule');
    } catch (err) {
      return { status: Status.error(`get constraints from pod: ${(err as Error).message}`) };
    }
    if (constraints.length === 0) return { status: Status.skip() };
    // Counts over the scheduler's own snapshot are kept between cycles and brought up to date from its changes.
    const snapshot = this.handle.snapshot();
    const feed = snapshot.nodeInfos().list() === nodes ? changeFeedOf(snapshot) : undefined;
    state.write(PRE_FILTER_STATE_KEY, calPreFilterState(pod, constraints, nodes, feed));
    return { status: Status.success() };
  }

  preFilterExtensions(): PreFilterExtensions {
    return this;
  }

  addPod(state: CycleState, podToSchedule: Pod, podInfoToAdd: PodInfo, nodeInfo: NodeInfo): Status {
    readPreFilterState(state)?.updateWithPod(podInfoToAdd.pod, podToSchedule, nodeInfo.node, 1);
    return Status.success();
  }

  removePod(state: CycleState, podToSchedule: Pod, podInfoToRemove: PodInfo, nodeInfo: NodeInfo): Status {
    readPreFilterState(state)?.updateWithPod(podInfoToRemove.pod, podToSchedule, nodeInfo.node, -1);
    return Status.success();
  }

  filter(state: CycleState, pod: Pod, nodeInfo: NodeInfo): Status {
    return filter(state, pod, nodeInfo);
  }

  preScore(state: CycleState, pod: Pod, nodes: NodeInfo[]): Status {
    let constraints: TopologySpreadConstraint[];
    try {
      constraints = this.constraintsOf(pod, 'ScheduleAnyway');
    } catch (err) {
      return Status.error(`calculating preScoreState: ${(err as Error).message}`);
    }
    // Only the system defaults let nodes without every topology key still be scored (by hostname).
    const requireAll = (pod.spec?.topologySpreadConstraints?.length ?? 0) > 0 || !this.systemDefaulted;
    const allNodes = this.handle.snapshot().nodeInfos().list();
    return preScore(state, pod, constraints, requireAll, nodes, allNodes);
  }

  score(state: CycleState, pod: Pod, nodeInfo: NodeInfo): { score: number; status: Status } {
    return score(state, pod, nodeInfo);
  }

  normalizeScore(state: CycleState, _pod: Pod, scores: NodeScore[]): Status {
    return normalizeScore(state, scores);
  }

  eventsToRegister(): ClusterEventWithHint[] {
    return [
      {
        event: { resource: 'Pod', actions: ['Add', 'UpdatePodLabel', 'UpdatePodTolerations', 'Delete'] },
        hint: (pod, oldObj, newObj) => this.isSchedulableAfterPodChange(pod, oldObj, newObj),
      },
      {
        event: { resource: 'Node', actions: ['Add', 'Delete', 'UpdateNodeLabel', 'UpdateNodeTaint'] },
        hint: (pod, oldObj, newObj) => this.isSchedulableAfterNodeChange(pod, oldObj, newObj),
      },
    ];
  }

  private hardConstraints(pod: Pod): TopologySpreadConstraint[] | undefined {
    try {
      return this.constraintsOf(pod, 'DoNotSchedule');
    } catch {
      return undefined;
    }
  }

  /**
   * Queue when an assigned pod of the same namespace that a constraint selects is added or deleted, when such a
   * pod's labels change whether a constraint selects it, or when the pod itself gets new tolerations.
   */
  isSchedulableAfterPodChange(pod: Pod, oldObj: KubeObject | undefined, newObj: KubeObject | undefined): QueueingHint {
    const oldPod = oldObj as Pod | undefined;
    const newPod = newObj as Pod | undefined;
    const involved = (p: Pod) =>
      (p.metadata?.uid !== undefined && p.metadata.uid === pod.metadata?.uid) ||
      (!!p.spec?.nodeName && p.metadata?.namespace === pod.metadata?.namespace);
    if ((newPod && !involved(newPod)) || (oldPod && !involved(oldPod))) return QueueingHint.Skip;
    const constraints = this.hardConstraints(pod);
    if (!constraints) return QueueingHint.Queue;
    if (oldPod && newPod) {
      if (oldPod.metadata?.uid === pod.metadata?.uid) {
        const sameTolerations =
          JSON.stringify(oldPod.spec?.tolerations ?? []) === JSON.stringify(newPod.spec?.tolerations ?? []);
        return sameTolerations ? QueueingHint.Skip : QueueingHint.Queue;
      }
      for (const c of constraints) {
        if (c.selector.matches(oldPod.metadata?.labels) !== c.selector.matches(newPod.metadata?.labels)) {
          return QueueingHint.Queue;
        }
      }
      return QueueingHint.Skip;
    }
    const changed = newPod ?? oldPod;
    if (!changed) return QueueingHint.Queue;
    return podLabelsMatchSpreadConstraints(constraints, changed.metadata?.labels)
      ? QueueingHint.Queue
      : QueueingHint.Skip;
  }

  /**
   * Queue when a node with every topology key is added or deleted, when an update makes a node gain or lose one
   * of the keys, or changes a key's value or its taints while it has them all.
   */
  isSchedulableAfterNodeChange(pod: Pod, oldObj: KubeObject | undefined, newObj: KubeObject | undefined): QueueingHint {
    const constraints = this.hardConstraints(pod);
    if (!constraints) return QueueingHint.Queue;
    const oldMatching = oldObj ? nodeLabelsMatchSpreadConstraints(oldObj.metadata?.labels, constraints) : false;
    const newMatching = newObj ? nodeLabelsMatchSpreadConstraints(newObj.metadata?.labels, constraints) : false;
    if (oldObj && newObj) {
      if (oldMatching !== newMatching) return QueueingHint.Queue;
      if (!newMatching) return QueueingHint.Skip;
      const oldLabels = oldObj.metadata?.labels ?? {};
      const newLabels = newObj.metadata?.labels ?? {};
      if (constraints.some((c) => oldLabels[c.topologyKey] !== newLabels[c.topologyKey])) return QueueingHint.Queue;
      const sameTaints = JSON.stringify(oldObj.spec?.taints ?? []) === JSON.stringify(newObj.spec?.taints ?? []);
      return sameTaints ? QueueingHint.Skip : QueueingHint.Queue;
    }
    if (newObj) return newMatching ? QueueingHint.Queue : QueueingHint.Skip;
    if (oldObj) return oldMatching ? QueueingHint.Queue : QueueingHint.Skip;
    return QueueingHint.Skip;
  }
}

export const factory: PluginFactory = (args, handle) => new PodTopologySpread(parseArgs(args), handle);
