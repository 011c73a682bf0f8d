/**
 * The delay before failed pods are replaced (upstream's backoff_utils.go): 10 s after the first failure since the
 * last success, doubling with each further failure up to 10 minutes, measured from when the last failed pod
 * finished. Records live in memory per Job key, as upstream's do.
 */
import { parseTime } from '../common/pods.js';
import type { Pod } from './types.js';

/** Upstream's DefaultJobPodFailureBackOff and MaxJobPodFailureBackOff. */
export const DEFAULT_POD_FAILURE_BACKOFF_MS = 10_000;
export const MAX_POD_FAILURE_BACKOFF_MS = 10 * 60_000;

export interface BackoffRecord {
  key: string;
  failuresAfterLastSuccess: number;
  lastFailureTime: number | undefined;
}

interface ContainerStatus {
  name?: string;
  state?: { terminated?: { finishedAt?: string } };
}

function latestFinish(prev: number | undefined, statuses: ContainerStatus[]): number | undefined | null {
  let finish = prev;
  for (const status of statuses) {
    const at = parseTime(status?.state?.terminated?.finishedAt);
    if (at === undefined) return null;
    if (finish === undefined || finish < at) finish = at;
  }
  return finish;
}

/**
 * When a pod finished: the latest finishedAt of its containers (and sidecars) when all have terminated, else its
 * Ready=False transition, else its deletion time minus the grace period, else its creation.
 */
export function getFinishedTime(pod: Pod): number {
  const containers: ContainerStatus[] = Array.isArray(pod.status?.containerStatuses)
    ? pod.status.containerStatuses
    : [];
  let fromContainers = latestFinish(undefined, containers);
  if (fromContainers !== null) {
    const sidecars = new Set<string>(
      (Array.isArray(pod.spec?.initContainers) ? pod.spec.initContainers : [])
        .filter((c: { restartPolicy?: string }) => c?.restartPolicy === 'Always')
        .map((c: { name: string }) => c.name),
    );
    const inits: ContainerStatus[] = Array.isArray(pod.status?.initContainerStatuses)
      ? pod.status.initContainerStatuses
      : [];
    fromContainers = latestFinish(
      fromContainers,
      inits.filter((s) => sidecars.has(s?.name ?? '')),
    );
  }
  if (fromContainers !== null && fromContainers !== undefined) return fromContainers;
  const ready = (Array.isArray(pod.status?.conditions) ? pod.status.conditions : []).find(
    (c: { type?: string }) => c?.type === 'Ready',
  );
  const readyFalseAt = ready?.status === 'False' ? parseTime(ready.lastTransitionTime) : undefined;
  if (readyFalseAt !== undefined) return readyFalseAt;
  const deletedAt = parseTime(pod.metadata.deletionTimestamp);
  if (deletedAt !== undefined) return deletedAt - Number(pod.metadata.deletionGracePeriodSeconds ?? 0) * 1000;
  return parseTime(pod.metadata.creationTimestamp) ?? 0;
}

function byFinishedTime(pods: readonly Pod[]): Pod[] {
  return [...pods].sort((a, b) => getFinishedTime(a) - getFinishedTime(b));
}

/** The delay still to wait after `failures` failures, the last at lastFailureTime. */
export function remainingBackoff(
  now: number,
  failures: number,
  lastFailureTime: number | undefined,
  baseMs = DEFAULT_POD_FAILURE_BACKOFF_MS,
  maxMs = MAX_POD_FAILURE_BACKOFF_MS,
): number {
  if (failures === 0 || lastFailureTime === undefined) return 0;
  let delay = baseMs;
  for (let i = 1; i < failures; i++) {
    delay *= 2;
    if (delay >= maxMs) {
      delay = maxMs;
      break;
    }
  }
  const elapsed = now - lastFailureTime;
  return delay < elapsed ? 0 : delay - elapsed;
}

export class BackoffStore {
  private readonly records = new Map<string, BackoffRecord>();

  get(key: string): BackoffRecord | undefined {
    return this.records.get(key);
  }

  /** The record as it would be after this sync's newly counted succeeded and failed pods. */
  newRecord(key: string, newSucceeded: readonly Pod[], newFailed: readonly Pod[]): BackoffRecord {
    const old = this.records.get(key);
    const record: BackoffRecord = {
      key,
      failuresAfterLastSuccess: old?.failuresAfterLastSuccess ?? 0,
      lastFailureTime: old?.lastFailureTime,
    };
    const failed = byFinishedTime(newFailed);
    if (newSucceeded.length === 0) {
      if (failed.length === 0) return record;
      record.failuresAfterLastSuccess += failed.length;
      record.lastFailureTime = getFinishedTime(failed[failed.length - 1] as Pod);
      return record;
    }
    record.failuresAfterLastSuccess = 0;
    record.lastFailureTime = undefined;
    const succeeded = byFinishedTime(newSucceeded);
    const lastSuccess = getFinishedTime(succeeded[succeeded.length - 1] as Pod);
    for (let i = failed.length - 1; i >= 0; i--) {
      const at = getFinishedTime(failed[i] as Pod);
      if (at <= lastSuccess) break;
      record.lastFailureTime ??= at;
      record.failuresAfterLastSuccess++;
    }
    return record;
  }

  update(record: BackoffRecord): void {
    this.records.set(record.key, record);
  }

  remove(key: string): void {
    this.records.delete(key);
  }
}
