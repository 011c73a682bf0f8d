/**
 * The RollingUpdate strategy of a DaemonSet (upstream's rollingUpdate): which old pods to delete and on which nodes to
 * create new pods, given the pods per node (every node that should run a pod listed, with no pods if it has none).
 *
 * - Without surge (maxSurge 0): old pods that are not available are deleted at once; of the available old pods, as
 *   many are deleted as keep the unavailable count within maxUnavailable. The manage step then creates the new pods.
 * - With surge: a new pod is created beside an old one — at once where the old one is not available, else for up to
 *   maxSurge nodes at a time — and the old pod is deleted once the new one is available. Old pods on nodes that no
 *   longer should run one go only while more pods are available than are desired.
 * - When both come out 0 on a non-empty set, one pod may be unavailable.
 */
import type { KubeObject } from '../../client/types.js';
import { isPodAvailable } from '../common/pods.js';
import { nodeShouldRunDaemonPod } from './placement.js';
import { isPodUpdated, surgeCount, templateGeneration, unavailableCount } from './pods.js';

export interface RollingUpdatePlan {
  podsToDelete: string[];
  nodesToCreate: string[];
}

/** findUpdatedPodsOnNode: the node's one new and one old live pod; ok false when there are more of either. */
function updatedPodsOnNode(ds: KubeObject, pods: readonly KubeObject[], hash: string) {
  const generation = templateGeneration(ds);
  let newPod: KubeObject | undefined;
  let oldPod: KubeObject | undefined;
  for (const pod of pods) {
    if (pod.metadata.deletionTimestamp) continue;
    if (isPodUpdated(pod, hash, generation)) {
      if (newPod) return { ok: false as const };
      newPod = pod;
    } else {
      if (oldPod) return { ok: false as const };
      oldPod = pod;
    }
  }
  return { ok: true as const, newPod, oldPod };
}

/** [maxSurge, maxUnavailable, desiredNumberScheduled]; adds an empty entry for each node that should run a pod. */
export function desiredNodeCounts(
  ds: KubeObject,
  nodes: readonly KubeObject[],
  nodeToDaemonPods: Map<string, KubeObject[]>,
): [number, number, number] {
  let desired = 0;
  for (const node of nodes) {
    if (!nodeShouldRunDaemonPod(node, ds)[0]) continue;
    desired++;
    const name = node.metadata.name ?? '';
    if (!nodeToDaemonPods.has(name)) nodeToDaemonPods.set(name, []);
  }
  let maxUnavailable = unavailableCount(ds, desired);
  const maxSurge = surgeCount(ds, desired);
  if (desired > 0 && maxUnavailable === 0 && maxSurge === 0) maxUnavailable = 1;
  return [maxSurge, maxUnavailable, desired];
}

export function planRollingUpdate(
  ds: KubeObject,
  nodes: readonly KubeObject[],
  nodeToDaemonPods: Map<string, KubeObject[]>,
  hash: string,
  nowMs: number,
): RollingUpdatePlan {
  const [maxSurge, maxUnavailable, desired] = desiredNodeCounts(ds, nodes, nodeToDaemonPods);
  const minReady: number = ds.spec?.minReadySeconds ?? 0;
  const available = (pod: KubeObject) => isPodAvailable(pod, minReady, nowMs);

  if (maxSurge === 0) {
    let numUnavailable = 0;
    const replacements: string[] = [];
    const candidates: string[] = [];
    for (const pods of nodeToDaemonPods.values()) {
      const found = updatedPodsOnNode(ds, pods, hash);
      if (!found.ok) {
        numUnavailable++;
        continue;
      }
      const { newPod, oldPod } = found;
      if ((!oldPod && !newPod) || (oldPod && newPod)) numUnavailable++;
      else if (newPod) {
        if (!available(newPod)) numUnavailable++;
      } else if (oldPod) {
        if (!available(oldPod)) replacements.push(oldPod.metadata.name ?? '');
        else if (numUnavailable < maxUnavailable) candidates.push(oldPod.metadata.name ?? '');
      }
    }
    const room = Math.min(Math.max(0, maxUnavailable - numUnavailable), candidates.length);
    return { podsToDelete: [...replacements, ...candidates.slice(0, room)], nodesToCreate: [] };
  }

  const nodesByName = new Map(nodes.map((n) => [n.metadata.name ?? '', n]));
  const shouldRunOn = (nodeName: string) => {
    const node = nodesByName.get(nodeName);
    return node ? nodeShouldRunDaemonPod(node, ds)[0] : false;
  };
  const oldPodsToDelete: string[] = [];
  const shouldNotRunPodsToDelete: string[] = [];
  const candidateNewNodes: string[] = [];
  const allowedNewNodes: string[] = [];
  let numSurge = 0;
  let numAvailable = 0;
  for (const [nodeName, pods] of nodeToDaemonPods) {
    const found = updatedPodsOnNode(ds, pods, hash);
    if (!found.ok) {
      numSurge++;
      continue;
    }
    const { newPod, oldPod } = found;
    if (oldPod) {
      if (available(oldPod)) numAvailable++;
    } else if (newPod && available(newPod)) numAvailable++;

    if (!oldPod) continue; // nothing to do here: the manage step handles the node
    if (!newPod) {
      if (!available(oldPod)) {
        if (!shouldRunOn(nodeName)) oldPodsToDelete.push(oldPod.metadata.name ?? '');
        else allowedNewNodes.push(nodeName);
      } else if (!shouldRunOn(nodeName)) {
        shouldNotRunPodsToDelete.push(oldPod.metadata.name ?? '');
      } else if (numSurge < maxSurge) {
        candidateNewNodes.push(nodeName);
      }
      continue;
    }
    // Surged already: wait for the new pod, then retire the old one.
    if (!available(newPod)) numSurge++;
    else oldPodsToDelete.push(oldPod.metadata.name ?? '');
  }
  const deletable = Math.min(numAvailable - desired, shouldNotRunPodsToDelete.length);
  if (deletable > 0) oldPodsToDelete.push(...shouldNotRunPodsToDelete.slice(0, deletable));
  const room = Math.min(Math.max(0, maxSurge - numSurge), candidateNewNodes.length);
  return { podsToDelete: oldPodsToDelete, nodesToCreate: [...allowedNewNodes, ...candidateNewNodes.slice(0, room)] };
}
