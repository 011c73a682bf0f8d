/**
 * PrioritySort (QueueSort): the active queue pops higher `spec.priority` first (a pod without one counts 0), and
 * among equal priorities the pod that entered the queue earlier.
 */

import type { PluginFactory, Pod, QueuedPodInfo, QueueSortPlugin } from '../../framework/types.js';

export const name = 'PrioritySort';

/** corev1helpers.PodPriority. */
export function podPriority(pod: Pod): number {
  const p = pod.spec?.priority;
  return typeof p === 'number' ? p : 0;
}

export class PrioritySort implements QueueSortPlugin {
  readonly name = name;

  less(a: QueuedPodInfo, b: QueuedPodInfo): boolean {
    const pa = podPriority(a.podInfo.pod);
    const pb = podPriority(b.podInfo.pod);
    return pa > pb || (pa === pb && a.timestamp < b.timestamp);
  }
}

export const factory: PluginFactory = () => new PrioritySort();
