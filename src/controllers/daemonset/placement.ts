/**
 * Where a DaemonSet's pods belong (upstream's NodeShouldRunDaemonPod and pkg/controller/daemon/util): the pod a
 * DaemonSet would run on a node — its template with the tolerations every daemon pod gets — checked against the
 * node's name, the pod's nodeSelector and required node affinity, and the node's taints.
 *
 * - shouldRun: a new daemon pod belongs on the node (NoSchedule and NoExecute taints all tolerated).
 * - shouldContinueRunning: a daemon pod already there may stay (only NoExecute taints matter for that).
 *
 * Pods are placed by the scheduler: each pod carries required node affinity `metadata.name In [<node>]` (as
 * matchFields), which replaces whatever required terms the template had — the template's own placement has been
 * checked here already.
 */
import { NODE_NAME_FIELD, type NodeSelectorTerm, RequiredNodeAffinity } from '../../api/node-selector.js';
import {
  findMatchingUntoleratedTaint,
  TAINT_NODE_DISK_PRESSURE,
  TAINT_NODE_MEMORY_PRESSURE,
  TAINT_NODE_NETWORK_UNAVAILABLE,
  TAINT_NODE_NOT_READY,
  TAINT_NODE_PID_PRESSURE,
  TAINT_NODE_UNREACHABLE,
  TAINT_NODE_UNSCHEDULABLE,
  type Taint,
  type Toleration,
} from '../../api/taints.js';
import type { KubeObject } from '../../client/types.js';

// biome-ignore lint/suspicious/noExplicitAny: pod specs are passed through as they are
type PodSpec = Record<string, any>;

const exists = (key: string, effect: string): Toleration => ({ key, operator: 'Exists', effect });

/** The tolerations upstream adds to every daemon pod (network-unavailable only for hostNetwork pods). */
export function daemonPodTolerations(hostNetwork: boolean): Toleration[] {
  const out = [
    exists(TAINT_NODE_NOT_READY, 'NoExecute'),
    exists(TAINT_NODE_UNREACHABLE, 'NoExecute'),
    exists(TAINT_NODE_DISK_PRESSURE, 'NoSchedule'),
    exists(TAINT_NODE_MEMORY_PRESSURE, 'NoSchedule'),
    exists(TAINT_NODE_PID_PRESSURE, 'NoSchedule'),
    exists(TAINT_NODE_UNSCHEDULABLE, 'NoSchedule'),
  ];
  if (hostNetwork) out.push(exists(TAINT_NODE_NETWORK_UNAVAILABLE, 'NoSchedule'));
  return out;
}

const sameToleration = (a: Toleration, b: Toleration) =>
  (a.key ?? '') === (b.key ?? '') &&
  (a.operator ?? '') === (b.operator ?? '') &&
  (a.value ?? '') === (b.value ?? '') &&
  (a.effect ?? '') === (b.effect ?? '');

/**
 * AddOrUpdateDaemonPodTolerations: adds each daemon toleration to the spec unless one with the same key, operator,
 * value and effect is there; such a one is replaced by the daemon toleration (which drops a tolerationSeconds).
 */
export function addDaemonPodTolerations(spec: PodSpec): void {
  const tolerations: Toleration[] = [...(spec.tolerations ?? [])];
  for (const t of daemonPodTolerations(spec.hostNetwork === true)) {
    const i = tolerations.findIndex((x) => sameToleration(x, t));
    if (i < 0) tolerations.push(t);
    else tolerations[i] = t;
  }
  spec.tolerations = tolerations;
}

/** The pod a DaemonSet would run on nodeName, as its placement is judged (upstream's NewPod). */
export function newDaemonPod(ds: KubeObject, nodeName: string): KubeObject {
  const template = ds.spec?.template ?? {};
  const spec: PodSpec = { ...(template.spec ?? {}), nodeName };
  addDaemonPodTolerations(spec);
  return { metadata: { ...(template.metadata ?? {}), namespace: ds.metadata.namespace }, spec };
}

const noScheduleOrExecute = (t: Taint) => t.effect === 'NoSchedule' || t.effect === 'NoExecute';
const noExecute = (t: Taint) => t.effect === 'NoExecute';

/** [shouldRun, shouldContinueRunning] of a DaemonSet on a node. */
export type NodePlacement = readonly [shouldRun: boolean, shouldContinueRunning: boolean];

const NEITHER: NodePlacement = [false, false];
const BOTH: NodePlacement = [true, true];
const CONTINUE_ONLY: NodePlacement = [false, true];

/**
 * One DaemonSet's placement rules, worked out once from its template (pinned nodeName, nodeSelector and required
 * node affinity, tolerations with the daemon ones added) rather than per node. The answer for a node is remembered
 * by object: informer caches hand out a new object for every change of a node or DaemonSet, so a remembered answer
 * is never stale, and the several passes of one sync over thousands of nodes each reuse the first pass's answers.
 */
class DaemonPlacement {
  private readonly pinned: string;
  private readonly affinity: RequiredNodeAffinity;
  private readonly tolerations: Toleration[];
  private readonly byNode = new WeakMap<KubeObject, NodePlacement>();

  constructor(ds: KubeObject) {
    this.pinned = ds.spec?.template?.spec?.nodeName ?? '';
    const pod = newDaemonPod(ds, '');
    this.affinity = new RequiredNodeAffinity(pod as never);
    this.tolerations = pod.spec.tolerations;
  }

  of(node: KubeObject): NodePlacement {
    let out = this.byNode.get(node);
    if (out === undefined) {
      out = this.judge(node);
      this.byNode.set(node, out);
    }
    return out;
  }

  private judge(node: KubeObject): NodePlacement {
    if (this.pinned !== '' && this.pinned !== (node.metadata.name ?? '')) return NEITHER;
    if (!this.affinity.matches(node)) return NEITHER;
    const taints: Taint[] = node.spec?.taints ?? [];
    if (taints.length === 0) return BOTH;
    if (findMatchingUntoleratedTaint(taints, this.tolerations, noScheduleOrExecute) === undefined) return BOTH;
    return findMatchingUntoleratedTaint(taints, this.tolerations, noExecute) === undefined ? CONTINUE_ONLY : NEITHER;
  }
}

const placements = new WeakMap<KubeObject, DaemonPlacement>();

/** [shouldRun, shouldContinueRunning] of ds on node. */
export function nodeShouldRunDaemonPod(node: KubeObject, ds: KubeObject): NodePlacement {
  let placement = placements.get(ds);
  if (placement === undefined) {
    placement = new DaemonPlacement(ds);
    placements.set(ds, placement);
  }
  return placement.of(node);
}

/** ReplaceDaemonSetPodNodeNameNodeAffinity: required node affinity to exactly nodeName, other required terms gone. */
// biome-ignore lint/suspicious/noExplicitAny: affinity objects are passed through as they are
export function replaceNodeNameAffinity(affinity: any, nodeName: string): any {
  const terms: NodeSelectorTerm[] = [{ matchFields: [{ key: NODE_NAME_FIELD, operator: 'In', values: [nodeName] }] }];
  const out = affinity ? { ...affinity } : {};
  const nodeAffinity = out.nodeAffinity ? { ...out.nodeAffinity } : {};
  nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution = {
    ...(nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution ?? {}),
    nodeSelectorTerms: terms,
  };
  out.nodeAffinity = nodeAffinity;
  return out;
}

/**
 * GetTargetNodeName: the node a daemon pod is for — its nodeName once bound, before that the single value of a
 * `metadata.name In` matchFields requirement; undefined when it names none.
 */
export function targetNodeName(pod: KubeObject): string | undefined {
  const bound: string | undefined = pod.spec?.nodeName;
  if (bound) return bound;
  const terms: NodeSelectorTerm[] =
    pod.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms ?? [];
  for (const term of terms) {
    for (const req of term.matchFields ?? []) {
      if (req.key === NODE_NAME_FIELD && req.operator === 'In' && req.values?.length === 1) return req.values[0];
    }
  }
  return undefined;
}
