/**
 * Choosing victims on one node (upstream's DefaultPreemption.SelectVictimsOnNode and filterPodsWithPDBViolation,
 * in our words). All pods of lower priority than the preemptor are removed from a copy of the node; if the
 * preemptor then fits, they are added back one at a time — first those whose eviction would break a
 * PodDisruptionBudget, then the others, each group from the most important down — keeping each one that still
 * leaves room ("reprieve"). Whatever could not be added back is the victims list.
 */

import { LabelSelector } from '../../../api/labels.js';
import type { KubeObject } from '../../../client/types.js';
import { addPodInfo, cloneNodeInfoKeeping, removePod } from '../../framework/node-info.js';
import { type CycleState, type Handle, type NodeInfo, type Pod, type PodInfo, Status } from '../../framework/types.js';

export const ERR_NO_VICTIMS = 'No preemption victims found for incoming pod';

export function podPriority(pod: Pod): number {
  const p = pod.spec?.priority;
  return typeof p === 'number' ? p : 0;
}

/** The pod's start time (ms), or now for a pod that has not started (assumed or just bound). */
export function podStartTime(pod: Pod, now: number): number {
  const t = pod.status?.startTime;
  if (typeof t === 'string') {
    const ms = Date.parse(t);
    if (!Number.isNaN(ms)) return ms;
  }
  return now;
}

/** Upstream's util.MoreImportantPod: higher priority, then the one that started earlier. */
export function moreImportantPod(a: Pod, b: Pod, now: number): boolean {
  const pa = podPriority(a);
  const pb = podPriority(b);
  if (pa !== pb) return pa > pb;
  return podStartTime(a, now) < podStartTime(b, now);
}

/** Sorts most important first (stable, so equal pods keep their order). */
export function sortByImportance<T>(items: T[], podOf: (t: T) => Pod, now: number): T[] {
  return items.sort((x, y) => {
    const a = podOf(x);
    const b = podOf(y);
    if (moreImportantPod(a, b, now)) return -1;
    if (moreImportantPod(b, a, now)) return 1;
    return 0;
  });
}

/**
 * Splits pods into those whose eviction would exceed a matching PDB's disruptionsAllowed (counting the pods in
 * order against each budget) and the rest. Pods the PDB already lists in disruptedPods are not counted.
 */
export function filterPodsWithPDBViolation(
  podInfos: readonly PodInfo[],
  pdbs: readonly KubeObject[],
): { violating: PodInfo[]; nonViolating: PodInfo[] } {
  const allowed = pdbs.map((pdb) => Number(pdb.status?.disruptionsAllowed ?? 0));
  const selectors = pdbs.map((pdb) => {
    try {
      return LabelSelector.fromObject(pdb.spec?.selector);
    } catch {
      return undefined;
    }
  });
  const violating: PodInfo[] = [];
  const nonViolating: PodInfo[] = [];
  for (const pi of podInfos) {
    const pod = pi.pod;
    const labels = pod.metadata?.labels ?? {};
    let violated = false;
    if (Object.keys(labels).length > 0) {
      pdbs.forEach((pdb, i) => {
        if ((pdb.metadata?.namespace ?? '') !== (pod.metadata?.namespace ?? '')) return;
        const selector = selectors[i];
        // A PDB with a missing, empty or unparsable selector matches nothing here.
        if (!selector?.selectable || selector.isEmpty() || !selector.matches(labels)) return;
        const disrupted = pdb.status?.disruptedPods as Record<string, unknown> | undefined;
        if (disrupted && Object.hasOwn(disrupted, pod.metadata?.name ?? '')) return;
        allowed[i] = (allowed[i] ?? 0) - 1;
        if ((allowed[i] ?? 0) < 0) violated = true;
      });
    }
    (violated ? violating : nonViolating).push(pi);
  }
  return { violating, nonViolating };
}

/**
 * Upstream's RunFilterPluginsWithNominatedPods: the Filter plugins with the nominated pods of equal or higher
 * priority counted in (on copies), and — when that passes and some were added — once more without them.
 */
export function runFilterPluginsWithNominatedPods(
  handle: Handle,
  state: CycleState,
  pod: Pod,
  nodeInfo: NodeInfo,
  copyNodeInfo: (ni: NodeInfo) => NodeInfo,
): Status {
  const nominated = handle.nominatedPodsForNode(nodeInfo.node.metadata?.name ?? '');
  const priority = podPriority(pod);
  const uid = pod.metadata?.uid;
  const ge = nominated.filter((pi) => podPriority(pi.pod) >= priority && pi.pod.metadata?.uid !== uid);
  let stateToUse = state;
  let nodeInfoToUse = nodeInfo;
  if (ge.length > 0) {
    stateToUse = state.clone();
    nodeInfoToUse = copyNodeInfo(nodeInfo);
    for (const pi of ge) {
      addPodInfo(nodeInfoToUse, pi);
      const s = handle.runPreFilterExtensionAddPod(stateToUse, pod, pi, nodeInfoToUse);
      if (!s.isSuccess()) return Status.error(s.message());
    }
  }
  const first = handle.runFilterPlugins(stateToUse, pod, nodeInfoToUse);
  if (ge.length === 0 || !first.isSuccess()) return first;
  return handle.runFilterPlugins(state, pod, nodeInfo);
}

export interface VictimsResult {
  victims: Pod[];
  numPDBViolations: number;
  status: Status;
}

/**
 * Upstream's SelectVictimsOnNode. `nodeInfo` and `state` are the cycle's own and are left as they are: the node is
 * evaluated on a copy holding only the pods of at least the preemptor's priority (what removing every
 * lower-priority pod from a copy would leave), with the state copied and told of each removal.
 */
export function selectVictimsOnNode(
  handle: Handle,
  state: CycleState,
  pod: Pod,
  nodeInfo: NodeInfo,
  pdbs: readonly KubeObject[],
  now: number,
  copyNodeInfo: (ni: NodeInfo) => NodeInfo,
): VictimsResult {
  const priority = podPriority(pod);
  const potential: PodInfo[] = [];
  for (const pi of nodeInfo.pods) if (podPriority(pi.pod) < priority) potential.push(pi);
  if (potential.length === 0) return victimsFailure(Status.unresolvable(ERR_NO_VICTIMS));
  const removed = new Set(potential);
  const ctx: DryRun = {
    handle,
    state: state.clone(),
    pod,
    nodeInfo: cloneNodeInfoKeeping(nodeInfo, (pi) => !removed.has(pi)),
    copyNodeInfo,
  };
  for (const pi of potential) {
    const s = handle.runPreFilterExtensionRemovePod(ctx.state, pod, pi, ctx.nodeInfo);
    if (!s.isSuccess()) return victimsFailure(Status.error(s.message()));
  }

  // Not even removing every lower-priority pod makes room: this node is no candidate.
  const fits = dryRunFilters(ctx);
  if (!fits.isSuccess()) return victimsFailure(fits);

  sortByImportance(potential, (pi) => pi.pod, now);
  const { violating, nonViolating } = filterPodsWithPDBViolation(potential, pdbs);
  const victims: Pod[] = [];
  let numPDBViolations = 0;
  for (const pi of violating) {
    const r = reprieve(ctx, pi, victims);
    if (r instanceof Status) return victimsFailure(r);
    if (!r) numPDBViolations++;
  }
  for (const pi of nonViolating) {
    const r = reprieve(ctx, pi, victims);
    if (r instanceof Status) return victimsFailure(r);
  }
  if (violating.length > 0 && nonViolating.length > 0) sortByImportance(victims, (p) => p, now);
  return { victims, numPDBViolations, status: Status.success() };
}

/** One node's what-if: its copy and the cycle state's copy, changed as pods are taken out and put back. */
interface DryRun {
  handle: Handle;
  state: CycleState;
  pod: Pod;
  nodeInfo: NodeInfo;
  copyNodeInfo: (ni: NodeInfo) => NodeInfo;
}

function victimsFailure(status: Status): VictimsResult {
  return { victims: [], numPDBViolations: 0, status };
}

function dryRunFilters(d: DryRun): Status {
  return runFilterPluginsWithNominatedPods(d.handle, d.state, d.pod, d.nodeInfo, d.copyNodeInfo);
}

/** Puts the pod back; if the preemptor no longer fits, takes it out again and makes it a victim. */
function reprieve(d: DryRun, pi: PodInfo, victims: Pod[]): boolean | Status {
  addPodInfo(d.nodeInfo, pi);
  const added = d.handle.runPreFilterExtensionAddPod(d.state, d.pod, pi, d.nodeInfo);
  if (!added.isSuccess()) return Status.error(added.message());
  const ok = dryRunFilters(d).isSuccess();
  if (!ok) {
    removePod(d.nodeInfo, pi.pod);
    const removed = d.handle.runPreFilterExtensionRemovePod(d.state, d.pod, pi, d.nodeInfo);
    if (!removed.isSuccess()) return Status.error(removed.message());
    victims.push(pi.pod);
  }
  return ok;
}
