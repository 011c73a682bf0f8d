/**
 * Setting a pod condition as upstream's podutil.UpdatePodCondition does, for the controllers that write pod
 * conditions (DisruptionTarget here, Ready=False in the node lifecycle controller).
 */
import { formatTime } from '../../client/events/event.js';
import type { PodCondition } from './pods.js';

/**
 * Upstream's UpdatePodCondition: puts the condition into the status (a new lastTransitionTime unless the status
 * stays) and answers whether anything changed.
 */
export function updatePodCondition(conditions: PodCondition[], next: PodCondition, nowMs: number): boolean {
  const cond: PodCondition & { lastProbeTime?: string } = { ...next, lastTransitionTime: formatTime(nowMs) };
  const i = conditions.findIndex((c) => c?.type === next.type);
  if (i < 0) {
    conditions.push(cond);
    return true;
  }
  const old = conditions[i] as PodCondition & { lastProbeTime?: string };
  if (cond.status === old.status) cond.lastTransitionTime = old.lastTransitionTime;
  const same =
    cond.status === old.status &&
    (cond.reason ?? '') === (old.reason ?? '') &&
    (cond.message ?? '') === (old.message ?? '') &&
    (cond.lastProbeTime ?? null) === (old.lastProbeTime ?? null) &&
    cond.lastTransitionTime === old.lastTransitionTime;
  conditions[i] = cond;
  return !same;
}
