/**
 * How the scheduler writes a pod's status (upstream's updatePod in schedule_one.go with podutil.UpdatePodCondition
 * and util.PatchPodStatus): the PodScheduled condition and status.nominatedNodeName, in one strategic merge patch
 * of pods/status, sent only when something changed. A condition keeps its lastTransitionTime while its status
 * stays the same.
 */
import type { KubeClient } from '../client/rest.js';
import { formatTime } from '../util/time.js';
import type { Pod } from './framework/types.js';
import type { NominatingInfo } from './queue/nominator.js';

export interface PodCondition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
  lastProbeTime?: string | null;
  lastTransitionTime?: string;
}

/**
 * The condition as it should be written and whether it differs from the pod's current one (upstream's
 * UpdatePodCondition).
 */
export function updatePodCondition(
  pod: Pod,
  condition: PodCondition,
  nowMs: number,
): { changed: boolean; condition: PodCondition } {
  const next: PodCondition = { ...condition, lastTransitionTime: formatTime(nowMs) };
  const old = ((pod.status?.conditions ?? []) as PodCondition[]).find((c) => c.type === condition.type);
  if (!old) return { changed: true, condition: next };
  if (old.status === next.status) next.lastTransitionTime = old.lastTransitionTime ?? next.lastTransitionTime;
  const equal =
    old.status === next.status &&
    (old.reason ?? '') === (next.reason ?? '') &&
    (old.message ?? '') === (next.message ?? '') &&
    (old.lastProbeTime ?? null) === (next.lastProbeTime ?? null) &&
    (old.lastTransitionTime ?? '') === (next.lastTransitionTime ?? '');
  return { changed: !equal, condition: next };
}

/**
 * Patches pods/status with the condition and the nominated node name (for an Override that changes it); does
 * nothing when neither changed.
 */
export async function updatePodStatus(
  client: KubeClient,
  pod: Pod,
  condition: PodCondition | undefined,
  nominating: NominatingInfo | undefined,
  nowMs: number,
): Promise<void> {
  const current: string = pod.status?.nominatedNodeName ?? '';
  const nnnChanged = nominating?.mode === 'Override' && current !== nominating.nominatedNodeName;
  const cond = condition ? updatePodCondition(pod, condition, nowMs) : undefined;
  if (!cond?.changed && !nnnChanged) return;
  const status: Record<string, unknown> = {};
  if (cond?.changed) status.conditions = [cond.condition];
  if (nnnChanged) status.nominatedNodeName = nominating?.nominatedNodeName || null;
  const namespace = pod.metadata?.namespace ?? 'default';
  await client.pods(namespace).patch(pod.metadata?.name ?? '', 'strategic', { status }, { subresource: 'status' });
}

/** upstream's truncateMessage: event notes are limited to 1024 bytes. */
export function truncateMessage(message: string): string {
  const max = 1024;
  if (Buffer.byteLength(message) <= max) return message;
  const suffix = ' ...';
  let cut = message.slice(0, max - suffix.length);
  while (Buffer.byteLength(cut) > max - suffix.length) cut = cut.slice(0, -1);
  return cut + suffix;
}
