/**
 * The nominator (upstream's queue/nominator.go): pods that preemption nominated to run on a node, waiting for
 * their victims to go. Filter treats them as if already on that node for pods of lower or equal priority, so the
 * room made for a preemptor is not taken by someone else.
 */
import { podKey } from '../framework/node-info.js';
import type { Pod, PodInfo } from '../framework/types.js';

/** What a scheduling attempt says about the pod's nominated node: set (or clear, with '') or leave as it is. */
export interface NominatingInfo {
  mode: 'Override' | 'Noop';
  nominatedNodeName: string;
}

const NONE: PodInfo[] = [];

export const CLEAR_NOMINATED_NODE: NominatingInfo = { mode: 'Override', nominatedNodeName: '' };

export class Nominator {
  /** node name → the pods nominated to it, in nomination order. */
  private readonly byNode = new Map<string, PodInfo[]>();
  /** pod key → node name. */
  private readonly nodeOfPod = new Map<string, string>();

  /**
   * @param isStillPending answers false for a pod the informer no longer has unassigned (upstream checks its pod
   * lister), so a pod bound or deleted meanwhile is not nominated.
   */
  constructor(private readonly isStillPending: (pod: Pod) => boolean = () => true) {}

  /** Nominates the pod to nominatingInfo's node (Override) or to its status.nominatedNodeName (Noop / none). */
  add(pi: PodInfo, nominatingInfo?: NominatingInfo): void {
    this.delete(pi.pod);
    let nodeName: string = pi.pod.status?.nominatedNodeName ?? '';
    if (nominatingInfo?.mode === 'Override') nodeName = nominatingInfo.nominatedNodeName;
    if (!nodeName) return;
    if (!this.isStillPending(pi.pod)) return;
    const key = podKey(pi.pod);
    this.nodeOfPod.set(key, nodeName);
    const list = this.byNode.get(nodeName) ?? [];
    if (!list.some((p) => podKey(p.pod) === key)) list.push(pi);
    this.byNode.set(nodeName, list);
  }

  delete(pod: Pod): void {
    const key = podKey(pod);
    const nodeName = this.nodeOfPod.get(key);
    if (nodeName === undefined) return;
    this.nodeOfPod.delete(key);
    const list = (this.byNode.get(nodeName) ?? []).filter((p) => podKey(p.pod) !== key);
    if (list.length === 0) this.byNode.delete(nodeName);
    else this.byNode.set(nodeName, list);
  }

  /**
   * Replaces the pod's info after an update. An update carrying no nominated node on either side keeps a
   * nomination made in memory (the status patch may not have arrived yet).
   */
  update(oldPod: Pod, newInfo: PodInfo): void {
    let info: NominatingInfo | undefined;
    if (!oldPod.status?.nominatedNodeName && !newInfo.pod.status?.nominatedNodeName) {
      const kept = this.nodeOfPod.get(podKey(oldPod));
      if (kept !== undefined) info = { mode: 'Override', nominatedNodeName: kept };
    }
    this.delete(oldPod);
    this.add(newInfo, info);
  }

  /** How many pods are nominated. */
  get size(): number {
    return this.nodeOfPod.size;
  }

  nominatedNodeOf(pod: Pod): string | undefined {
    return this.nodeOfPod.get(podKey(pod));
  }

  podsForNode(nodeName: string): PodInfo[] {
    const list = this.byNode.get(nodeName);
    return list ? [...list] : NONE;
  }
}
