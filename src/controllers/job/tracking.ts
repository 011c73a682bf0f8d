/**
 * Counting a Job's finished pods exactly once (upstream's trackJobStatusAndRemoveFinalizers): finished pods go into
 * status.uncountedTerminatedPods, their `batch.kubernetes.io/job-tracking` finalizer is removed, then they move into
 * the succeeded/failed counters; the interim SuccessCriteriaMet or FailureTarget condition is written first, and
 * Complete or Failed once every pod is counted and none is terminating. Also the Job condition helpers.
 */
import type { KubeClient } from '../../client/rest.js';
import { isNotFound } from '../../client/types.js';
import { byCompletionIndex } from './pod-selection.js';
import { matchPodFailurePolicy } from './policies.js';
import type { SyncCtx, SyncDeps } from './sync.js';
import {
  conditions,
  findCondition,
  getCompletionIndex,
  hasBackoffLimitPerIndex,
  hasTrackingFinalizer,
  isIndexedJob,
  isPodFailed,
  JOB_KIND,
  JOB_TRACKING_FINALIZER,
  type Job,
  type JobCondition,
  type Pod,
  rfc3339,
} from './types.js';

/** Upstream's MaxUncountedPods. */
export const MAX_UNCOUNTED_PODS = 500;

interface Uncounted {
  succeeded: string[];
  failed: string[];
}

const uid = (pod: Pod) => pod.metadata.uid ?? '';
const num = (v: unknown) => (typeof v === 'number' ? v : 0);

/** Strategic merge patch removing the tracking finalizer from a pod (the answered pod is not looked at). */
export function removeTrackingFinalizer(client: KubeClient, pod: Pod): Promise<unknown> {
  return client.pods(pod.metadata.namespace ?? '').patchForVersion(pod.metadata.name ?? '', 'strategic', {
    metadata: { '$deleteFromPrimitiveList/finalizers': [JOB_TRACKING_FINALIZER] },
  });
}

export function uncountedOf(job: Job): Uncounted {
  job.status ??= {};
  job.status.uncountedTerminatedPods ??= {};
  const u = job.status.uncountedTerminatedPods;
  u.succeeded ??= [];
  u.failed ??= [];
  return u as Uncounted;
}

export function newCondition(type: string, status: string, reason: string, message: string, now: number): JobCondition {
  const at = rfc3339(now);
  return {
    type,
    status,
    lastProbeTime: at,
    lastTransitionTime: at,
    ...(reason ? { reason } : {}),
    ...(message ? { message } : {}),
  };
}

/**
 * Sets the condition of this type to status/reason/message, appending it unless it would be a new False one.
 * Answers whether the list changed.
 */
export function ensureConditionStatus(
  list: JobCondition[],
  type: string,
  status: string,
  reason: string,
  message: string,
  now: number,
): boolean {
  const i = list.findIndex((c) => c.type === type);
  const existing = list[i];
  if (existing) {
    if (existing.status === status && (existing.reason ?? '') === reason && (existing.message ?? '') === message) {
      return false;
    }
    list[i] = newCondition(type, status, reason, message, now);
    return true;
  }
  if (status === 'False') return false;
  list.push(newCondition(type, status, reason, message, now));
  return true;
}

export function isSuccessCriteriaMet(c: JobCondition | undefined): boolean {
  return c?.type === 'SuccessCriteriaMet' && c.status === 'True';
}

export function successCriteriaMetCondition(job: Job): JobCondition | undefined {
  const c = findCondition(conditions(job), 'SuccessCriteriaMet');
  return c?.status === 'True' ? c : undefined;
}

/** The status as upstream serialises it: zero counters and empty strings and lists left out. */
function wireStatus(status: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...status };
  for (const key of ['active', 'succeeded', 'failed']) if (!out[key]) delete out[key];
  if (out.completedIndexes === '') delete out.completedIndexes;
  if (Array.isArray(out.conditions) && out.conditions.length === 0) delete out.conditions;
  const u = out.uncountedTerminatedPods as Uncounted | undefined;
  if (u) {
    const clean: Partial<Uncounted> = {};
    if (u.succeeded?.length) clean.succeeded = u.succeeded;
    if (u.failed?.length) clean.failed = u.failed;
    out.uncountedTerminatedPods = clean;
  }
  return out;
}

export class StatusTracker {
  constructor(private readonly d: SyncDeps) {}

  async updateStatus(job: Job): Promise<Job> {
    const body = { ...job, status: wireStatus(job.status ?? {}) };
    const updated = (await this.d.client.jobs(job.metadata.namespace ?? '').updateStatus(body)) as Job;
    uncountedOf(updated);
    updated.status.conditions ??= [];
    return updated;
  }

  /**
   * Adds newly finished pods to uncountedTerminatedPods, removes their finalizers, moves them into the counters,
   * and adds the terminal conditions — in that order, flushing the status between steps, at most
   * MAX_UNCOUNTED_PODS pods per sync.
   */
  async trackStatusAndRemoveFinalizers(c: SyncCtx, needsFlushIn: boolean): Promise<void> {
    let needsFlush = needsFlushIn;
    const { job } = c;
    const indexed = isIndexedJob(job);
    const completions = num(job.spec?.completions);
    const pods = indexed ? byCompletionIndex(c.pods) : c.pods;
    const uidsWithFinalizer = new Set(
      pods.filter((p) => hasTrackingFinalizer(p) && !c.expectedRmFinalizers.has(uid(p))).map(uid),
    );
    if (cleanUncountedPodsWithoutFinalizers(job, uidsWithFinalizer)) needsFlush = true;
    const uncounted = uncountedOf(job);
    const toRemoveFinalizer: Pod[] = [];
    const newSucceededIndexes: number[] = [];
    let reachedMaxUncounted = false;
    for (const pod of pods) {
      const id = uid(pod);
      if (!hasTrackingFinalizer(pod) || c.expectedRmFinalizers.has(id)) continue;
      const considerFailed = isPodFailed(pod, job);
      if (!this.canRemoveFinalizer(c, pod, considerFailed)) continue;
      toRemoveFinalizer.push(pod);
      if (pod.status?.phase === 'Succeeded' && !c.uncounted.failed.has(id)) {
        if (indexed) {
          const ix = getCompletionIndex(pod);
          if (ix >= 0 && ix < completions && !c.prevSucceededIndexes.has(ix)) {
            newSucceededIndexes.push(ix);
            needsFlush = true;
          }
        } else if (!c.uncounted.succeeded.has(id)) {
          needsFlush = true;
          uncounted.succeeded.push(id);
        }
      } else if (considerFailed || (c.finishedCondition && !isSuccessCriteriaMet(c.finishedCondition))) {
        // Once the Job is finished, every pod that did not succeed counts as failed.
        const ix = getCompletionIndex(pod);
        if (!c.uncounted.failed.has(id) && (!indexed || (ix >= 0 && ix < completions))) {
          if (matchPodFailurePolicy(job, pod).countFailed) {
            needsFlush = true;
            uncounted.failed.push(id);
          }
        }
      }
      if (newSucceededIndexes.length + uncounted.succeeded.length + uncounted.failed.length >= MAX_UNCOUNTED_PODS) {
        reachedMaxUncounted = true;
        break;
      }
    }
    if (indexed) {
      c.succeededIndexes = c.succeededIndexes.withIndexes(newSucceededIndexes);
      const completed = c.succeededIndexes.toString();
      if (completed !== (job.status.completedIndexes ?? '')) needsFlush = true;
      job.status.succeeded = c.succeededIndexes.total();
      job.status.completedIndexes = completed;
      const failedIndexes = c.failedIndexes?.toString();
      if (failedIndexes !== job.status.failedIndexes) {
        if (failedIndexes === undefined) delete job.status.failedIndexes;
        else job.status.failedIndexes = failedIndexes;
        needsFlush = true;
      }
    }
    const now = this.d.clock.now();
    if (c.finishedCondition?.type === 'FailureTarget') {
      job.status.conditions.push(c.finishedCondition);
      needsFlush = true;
      const { reason = '', message = '' } = c.finishedCondition;
      c.finishedCondition = newCondition('Failed', 'True', reason, message, now);
    }
    if (isSuccessCriteriaMet(c.finishedCondition) && c.finishedCondition) {
      if (!successCriteriaMetCondition(job)) {
        job.status.conditions.push(c.finishedCondition);
        needsFlush = true;
      }
      const { reason = '', message = '' } = c.finishedCondition;
      c.finishedCondition = newCondition('Complete', 'True', reason, message, now);
    }
    needsFlush = await this.flushUncountedAndRemoveFinalizers(c, toRemoveFinalizer, uidsWithFinalizer, needsFlush);
    const finished = !reachedMaxUncounted && this.enactJobFinished(c);
    if (finished) needsFlush = true;
    if (needsFlush) {
      c.job = await this.updateStatus(c.job);
      if (finished && c.finishedCondition) this.recordJobFinished(c.job, c.finishedCondition);
    }
  }

  /**
   * Whether a pod's finalizer may go: the Job is being deleted or finishing, the pod succeeded, or it failed and is
   * not the pod whose index waits for its replacement.
   */
  private canRemoveFinalizer(c: SyncCtx, pod: Pod, considerFailed: boolean): boolean {
    if (c.job.metadata.deletionTimestamp || c.finishedCondition || pod.status?.phase === 'Succeeded') return true;
    if (!considerFailed) return false;
    if (hasBackoffLimitPerIndex(c.job)) {
      const delayed = c.podsWithDelayedDeletionPerIndex.get(getCompletionIndex(pod));
      if (delayed && uid(delayed) === uid(pod)) return false;
    }
    return true;
  }

  private async flushUncountedAndRemoveFinalizers(
    c: SyncCtx,
    toRemove: readonly Pod[],
    uidsWithFinalizer: Set<string>,
    needsFlushIn: boolean,
  ): Promise<boolean> {
    let needsFlush = needsFlushIn;
    if (needsFlush) {
      c.job = await this.updateStatus(c.job);
      this.d.backoff.update(c.newBackoffRecord);
      needsFlush = false;
    }
    let rmError: unknown;
    if (toRemove.length > 0) {
      const { removed, error } = await this.removeTrackingFinalizers(c.key, toRemove);
      for (const id of removed) uidsWithFinalizer.delete(id);
      rmError = error;
    }
    if (cleanUncountedPodsWithoutFinalizers(c.job, uidsWithFinalizer)) needsFlush = true;
    if (rmError !== undefined) {
      if (needsFlush) await this.updateStatus(c.job);
      throw rmError;
    }
    return needsFlush;
  }

  private async removeTrackingFinalizers(key: string, pods: readonly Pod[]) {
    const fe = this.d.finalizerExpectations;
    fe.expectFinalizersRemoved(key, pods.map(uid));
    const removed: string[] = [];
    let error: unknown;
    await Promise.all(
      pods.map(async (pod) => {
        if (!hasTrackingFinalizer(pod)) return;
        try {
          await removeTrackingFinalizer(this.d.client, pod);
        } catch (err) {
          fe.finalizerRemovalObserved(key, uid(pod));
          if (!isNotFound(err)) {
            error ??= err;
            return;
          }
        }
        removed.push(uid(pod));
      }),
    );
    return { removed, error };
  }

  /** Adds Complete or Failed once every pod is counted and none is still terminating. */
  private enactJobFinished(c: SyncCtx): boolean {
    const cond = c.finishedCondition;
    if (!cond) return false;
    const u = uncountedOf(c.job);
    if (u.succeeded.length + u.failed.length > 0) return false;
    if (c.terminating > 0) return false;
    c.job.status.conditions ??= [];
    ensureConditionStatus(
      c.job.status.conditions,
      cond.type,
      cond.status,
      cond.reason ?? '',
      cond.message ?? '',
      this.d.clock.now(),
    );
    if (cond.type === 'Complete') c.job.status.completionTime = cond.lastTransitionTime;
    return true;
  }

  private recordJobFinished(job: Job, cond: JobCondition): void {
    const subject = { ...job, ...JOB_KIND };
    if (cond.type === 'Complete') {
      const completions = job.spec?.completions;
      if (typeof completions === 'number' && num(job.status?.succeeded) > completions) {
        this.d.recorder.event(
          subject,
          'Warning',
          'TooManySucceededPods',
          'Too many succeeded pods running after completion count reached',
        );
      }
      this.d.recorder.event(subject, 'Normal', 'Completed', 'Job completed');
    } else {
      this.d.recorder.event(subject, 'Warning', cond.reason ?? '', cond.message ?? '');
    }
  }
}

/** Moves uncounted pods whose finalizer is gone into the counters; answers whether anything moved. */
function cleanUncountedPodsWithoutFinalizers(job: Job, withFinalizer: ReadonlySet<string>): boolean {
  const u = uncountedOf(job);
  let changed = false;
  const keptSucceeded = u.succeeded.filter((id) => withFinalizer.has(id));
  if (keptSucceeded.length !== u.succeeded.length) {
    changed = true;
    job.status.succeeded = num(job.status.succeeded) + u.succeeded.length - keptSucceeded.length;
    u.succeeded = keptSucceeded;
  }
  const keptFailed = u.failed.filter((id) => withFinalizer.has(id));
  if (keptFailed.length !== u.failed.length) {
    changed = true;
    job.status.failed = num(job.status.failed) + u.failed.length - keptFailed.length;
    u.failed = keptFailed;
  }
  return changed;
}
