/**
 * One sync of one Job (upstream's syncJob and what it calls): count the pods' outcomes, decide whether the Job has
 * met its success criteria or failed (backoffLimit, activeDeadlineSeconds, podFailurePolicy, failed indexes,
 * successPolicy), create or delete pods towards parallelism and completions (or delete them all when suspended or
 * finished), and track finished pods through the `batch.kubernetes.io/job-tracking` finalizer and
 * status.uncountedTerminatedPods so that every pod is counted exactly once. Terminal conditions come in two steps,
 * as in v1.33: SuccessCriteriaMet or FailureTarget first, Complete or Failed once no pod is still terminating.
 */
import type { EventRecorder } from '../../client/events/broadcaster.js';
import type { KubeClient } from '../../client/rest.js';
import { isNotFound } from '../../client/types.js';
import type { Clock } from '../../util/clock.js';
import { deepClone } from '../../util/clone.js';
import type { Logger } from '../../util/logger.js';
import { newControllerRef } from '../common/controller-ref.js';
import type { ControllerExpectations } from '../common/expectations.js';
import {
  isNamespaceTerminatingError,
  isPodActive,
  isPodTerminating,
  type PodControl,
  parseTime,
  SLOW_START_INITIAL_BATCH_SIZE,
  slowStartBatch,
} from '../common/pods.js';
import { type BackoffRecord, type BackoffStore, getFinishedTime, remainingBackoff } from './backoff.js';
import type { FinalizerExpectations } from './finalizer-expectations.js';
import { firstPendingIndexes, OrderedIntervals, podGenerateNameWithIndex } from './indexes.js';
import { activePodsForRemoval, addCompletionIndexEnv } from './pod-selection.js';
import { getFailJobMessage, matchPodFailurePolicy, matchSuccessPolicy } from './policies.js';
import {
  ensureConditionStatus,
  newCondition,
  removeTrackingFinalizer,
  StatusTracker,
  successCriteriaMetCondition,
  uncountedOf,
} from './tracking.js';
import {
  COMPLETION_INDEX_ENV,
  conditions,
  findCondition,
  getCompletionIndex,
  hasBackoffLimitPerIndex,
  hasTrackingFinalizer,
  int32Annotation,
  isIndexedJob,
  isPodFailed,
  isPodReady,
  isSuspended,
  JOB_COMPLETION_INDEX_ANNOTATION,
  JOB_INDEX_FAILURE_COUNT_ANNOTATION,
  JOB_INDEX_IGNORED_FAILURE_COUNT_ANNOTATION,
  JOB_KIND,
  JOB_TRACKING_FINALIZER,
  type Job,
  type JobCondition,
  onlyReplaceFailedPods,
  type Pod,
  rfc3339,
} from './types.js';

/** Upstream's MaxPodCreateDeletePerSync. */
export const MAX_POD_CREATE_DELETE_PER_SYNC = 500;

export interface SyncDeps {
  client: KubeClient;
  clock: Clock;
  log: Logger;
  recorder: EventRecorder;
  podControl: PodControl;
  expectations: ControllerExpectations;
  finalizerExpectations: FinalizerExpectations;
  backoff: BackoffStore;
  /** Sync the Job again after ms (at least the batch period). */
  enqueueAfter(key: string, ms: number): void;
  /** The batch period: the least delay of a delayed sync. */
  batchPeriodMs: number;
}

export interface SyncCtx {
  key: string;
  job: Job;
  pods: Pod[];
  activePods: Pod[];
  ready: number;
  terminating: number;
  uncounted: { succeeded: Set<string>; failed: Set<string> };
  expectedRmFinalizers: ReadonlySet<string>;
  succeeded: number;
  failed: number;
  finishedCondition: JobCondition | undefined;
  prevSucceededIndexes: OrderedIntervals;
  succeededIndexes: OrderedIntervals;
  failedIndexes: OrderedIntervals | undefined;
  newBackoffRecord: BackoffRecord;
  podsWithDelayedDeletionPerIndex: Map<number, Pod>;
}

const uid = (pod: Pod) => pod.metadata.uid ?? '';
const num = (v: unknown) => (typeof v === 'number' ? v : 0);

/** Restarts of the containers of running or pending pods reach backoffLimit (restartPolicy OnFailure). */
function pastBackoffLimitOnFailure(job: Job, pods: readonly Pod[]): boolean {
  if (job.spec?.template?.spec?.restartPolicy !== 'OnFailure') return false;
  let restarts = 0;
  for (const pod of pods) {
    const phase = pod.status?.phase;
    if (phase !== 'Running' && phase !== 'Pending') continue;
    for (const s of [...(pod.status?.initContainerStatuses ?? []), ...(pod.status?.containerStatuses ?? [])]) {
      restarts += num(s?.restartCount);
    }
  }
  const limit = num(job.spec?.backoffLimit);
  return limit === 0 ? restarts > 0 : restarts >= limit;
}

export class JobSync {
  private readonly tracker: StatusTracker;

  constructor(private readonly d: SyncDeps) {
    this.tracker = new StatusTracker(d);
  }

  /** Syncs a Job (a private copy of the cached one) against its claimed pods. */
  async syncJob(key: string, job: Job, pods: Pod[], satisfiedExpectations: boolean): Promise<void> {
    const { clock, backoff } = this.d;
    const now = clock.now();
    uncountedOf(job);
    job.status.conditions ??= [];
    const activePods = pods.filter(isPodActive);
    const c: SyncCtx = {
      key,
      job,
      pods,
      activePods,
      ready: activePods.filter(isPodReady).length,
      terminating: pods.filter(isPodTerminating).length,
      uncounted: {
        succeeded: new Set(job.status.uncountedTerminatedPods.succeeded),
        failed: new Set(job.status.uncountedTerminatedPods.failed),
      },
      expectedRmFinalizers: this.d.finalizerExpectations.getExpectedUIDs(key),
      succeeded: 0,
      failed: 0,
      finishedCondition: undefined,
      prevSucceededIndexes: new OrderedIntervals(),
      succeededIndexes: new OrderedIntervals(),
      failedIndexes: undefined,
      newBackoffRecord: { key, failuresAfterLastSuccess: 0, lastFailureTime: undefined },
      podsWithDelayedDeletionPerIndex: new Map(),
    };
    let active = activePods.length;
    const newSucceeded = this.validPods(c, c.uncounted.succeeded, (p) => p.status?.phase === 'Succeeded');
    const newFailed = this.validPods(c, c.uncounted.failed, (p) => isPodFailed(p, job));
    const nonIgnoredFailed = newFailed.filter((p) => matchPodFailurePolicy(job, p).countFailed).length;
    c.succeeded = num(job.status.succeeded) + newSucceeded.length + c.uncounted.succeeded.size;
    c.failed = num(job.status.failed) + nonIgnoredFailed + c.uncounted.failed.size;

    if (!job.status.startTime && !isSuspended(job)) job.status.startTime = rfc3339(now);
    c.newBackoffRecord = backoff.newRecord(key, newSucceeded, newFailed);

    const exceedsBackoffLimit = c.failed > num(job.spec?.backoffLimit);
    c.finishedCondition = successCriteriaMetCondition(job);
    if (!c.finishedCondition) {
      const target = findCondition(conditions(job), 'FailureTarget');
      if (target?.status === 'True') {
        c.finishedCondition = newCondition('Failed', 'True', target.reason ?? '', target.message ?? '', now);
      } else {
        const message = getFailJobMessage(job, pods, (p) => isPodFailed(p, job));
        if (message !== undefined) {
          c.finishedCondition = newCondition('FailureTarget', 'True', 'PodFailurePolicy', message, now);
        }
      }
    }
    if (!c.finishedCondition) {
      if (exceedsBackoffLimit || pastBackoffLimitOnFailure(job, pods)) {
        c.finishedCondition = newCondition(
          'FailureTarget',
          'True',
          'BackoffLimitExceeded',
          'Job has reached the specified backoff limit',
          now,
        );
      } else if (this.pastActiveDeadline(job)) {
        c.finishedCondition = newCondition(
          'FailureTarget',
          'True',
          'DeadlineExceeded',
          'Job was active longer than specified deadline',
          now,
        );
      } else if (typeof job.spec?.activeDeadlineSeconds === 'number' && !isSuspended(job)) {
        const started = parseTime(job.status.startTime) ?? now;
        const left = job.spec.activeDeadlineSeconds * 1000 - (now - started);
        this.d.log.v(2).info('Job has activeDeadlineSeconds configuration. Will sync this job again', {
          key,
          nextSyncInMs: left,
        });
        this.d.enqueueAfter(key, Math.max(0, left));
      }
    }

    if (isIndexedJob(job)) {
      const completions = num(job.spec?.completions);
      c.prevSucceededIndexes = OrderedIntervals.parse(job.status.completedIndexes, completions);
      c.succeededIndexes = c.prevSucceededIndexes.withIndexes(
        pods
          .filter((p) => p.status?.phase === 'Succeeded' && hasTrackingFinalizer(p))
          .map(getCompletionIndex)
          .filter((ix) => ix >= 0 && ix < completions),
      );
      c.succeeded = c.succeededIndexes.total();
      if (hasBackoffLimitPerIndex(job)) {
        c.failedIndexes = this.calculateFailedIndexes(job, pods);
        if (!c.finishedCondition) {
          const failedTotal = c.failedIndexes.total();
          if (typeof job.spec?.maxFailedIndexes === 'number' && failedTotal > job.spec.maxFailedIndexes) {
            c.finishedCondition = newCondition(
              'FailureTarget',
              'True',
              'MaxFailedIndexesExceeded',
              'Job has exceeded the specified maximal number of failed indexes',
              now,
            );
          } else if (failedTotal > 0 && failedTotal + c.succeededIndexes.total() >= completions) {
            c.finishedCondition = newCondition('FailureTarget', 'True', 'FailedIndexes', 'Job has failed indexes', now);
          }
        }
        c.podsWithDelayedDeletionPerIndex = this.podsWithDelayedDeletionPerIndex(c);
      }
      if (!c.finishedCondition) {
        const message = matchSuccessPolicy(job, c.succeededIndexes);
        if (message !== undefined) {
          c.finishedCondition = newCondition('SuccessCriteriaMet', 'True', 'SuccessPolicy', message, now);
        }
      }
    }

    let suspendCondChanged = false;
    let manageError: unknown;
    if (c.finishedCondition) {
      const { deleted, deletedReady, error } = await this.deleteActivePods(job, c.activePods);
      if (deleted !== active || !satisfiedExpectations) c.finishedCondition = undefined;
      active -= deleted;
      c.terminating += deleted;
      c.ready -= deletedReady;
      manageError = error;
    } else {
      let manageCalled = false;
      if (satisfiedExpectations && !job.metadata.deletionTimestamp) {
        try {
          active = await this.manageJob(c);
        } catch (err) {
          const e = err as { active?: number; cause?: unknown };
          active = e.active ?? active;
          manageError = e.cause ?? err;
        }
        manageCalled = true;
      }
      const completions = job.spec?.completions;
      const complete =
        typeof completions === 'number' ? c.succeeded >= completions && active === 0 : c.succeeded > 0 && active === 0;
      if (complete) {
        c.finishedCondition = newCondition(
          'SuccessCriteriaMet',
          'True',
          'CompletionsReached',
          'Reached expected number of succeeded pods',
          now,
        );
      } else if (manageCalled) {
        if (isSuspended(job)) {
          if (ensureConditionStatus(job.status.conditions, 'Suspended', 'True', 'JobSuspended', 'Job suspended', now)) {
            suspendCondChanged = true;
            this.d.recorder.event(this.subject(job), 'Normal', 'Suspended', 'Job suspended');
          }
        } else if (
          ensureConditionStatus(job.status.conditions, 'Suspended', 'False', 'JobResumed', 'Job resumed', now)
        ) {
          suspendCondChanged = true;
          this.d.recorder.event(this.subject(job), 'Normal', 'Resumed', 'Job resumed');
          // activeDeadlineSeconds counts the time a Job is continuously active.
          job.status.startTime = rfc3339(now);
        }
      }
    }

    const needsStatusUpdate =
      suspendCondChanged ||
      active !== num(job.status.active) ||
      c.ready !== job.status.ready ||
      c.terminating !== job.status.terminating;
    job.status.active = active;
    job.status.ready = c.ready;
    job.status.terminating = c.terminating;
    await this.tracker.trackStatusAndRemoveFinalizers(c, needsStatusUpdate);
    if (manageError !== undefined) throw manageError;
  }

  private subject(job: Job): Job {
    return { ...job, ...JOB_KIND };
  }

  private pastActiveDeadline(job: Job): boolean {
    const ads = job.spec?.activeDeadlineSeconds;
    const started = parseTime(job.status?.startTime);
    if (typeof ads !== 'number' || started === undefined || isSuspended(job)) return false;
    return this.d.clock.now() - started >= ads * 1000;
  }

  /** Pods not yet counted: with the finalizer, not in `skip`, with a valid index for Indexed Jobs, passing filter. */
  private validPods(c: SyncCtx, skip: ReadonlySet<string> | undefined, filter: (p: Pod) => boolean): Pod[] {
    const indexed = isIndexedJob(c.job);
    const completions = num(c.job.spec?.completions);
    return c.pods.filter((p) => {
      if (!hasTrackingFinalizer(p) || skip?.has(uid(p)) || c.expectedRmFinalizers.has(uid(p))) return false;
      if (indexed) {
        const ix = getCompletionIndex(p);
        if (ix < 0 || ix >= completions) return false;
      }
      return filter(p);
    });
  }

  private isIndexFailed(job: Job, pod: Pod): boolean {
    if (!isPodFailed(pod, job)) return false;
    const { action, countFailed } = matchPodFailurePolicy(job, pod);
    if (action === 'FailIndex') return true;
    return (
      countFailed && int32Annotation(pod, JOB_INDEX_FAILURE_COUNT_ANNOTATION) >= num(job.spec?.backoffLimitPerIndex)
    );
  }

  private calculateFailedIndexes(job: Job, pods: readonly Pod[]): OrderedIntervals {
    const completions = num(job.spec?.completions);
    const prev = OrderedIntervals.parse(job.status?.failedIndexes, completions);
    const failed = pods
      .filter((p) => hasTrackingFinalizer(p) && this.isIndexFailed(job, p))
      .map(getCompletionIndex)
      .filter((ix) => ix >= 0 && ix < completions);
    return prev.withIndexes(failed);
  }

  /**
   * Per index without a live pod, the failed pod whose removal waits until its replacement exists, so that the
   * replacement can carry on the index's failure count.
   */
  private podsWithDelayedDeletionPerIndex(c: SyncCtx): Map<number, Pod> {
    const activeIndexes = new Set(c.activePods.map(getCompletionIndex));
    const out = new Map<number, Pod>();
    const absolute = (p: Pod) =>
      int32Annotation(p, JOB_INDEX_FAILURE_COUNT_ANNOTATION) +
      int32Annotation(p, JOB_INDEX_IGNORED_FAILURE_COUNT_ANNOTATION);
    for (const p of this.validPods(c, undefined, (pod) => isPodFailed(pod, c.job))) {
      const ix = getCompletionIndex(p);
      if (c.succeededIndexes.has(ix) || c.failedIndexes?.has(ix) || activeIndexes.has(ix)) continue;
      const last = out.get(ix);
      if (!last || (absolute(last) <= absolute(p) && getFinishedTime(p) >= getFinishedTime(last))) out.set(ix, p);
    }
    return out;
  }

  /** Deletes the active pods of a finished Job (their finalizers are removed by the status tracking). */
  private async deleteActivePods(job: Job, pods: readonly Pod[]) {
    let deleted = pods.length;
    let deletedReady = 0;
    let error: unknown;
    await Promise.all(
      pods.map(async (pod) => {
        try {
          await this.d.podControl.deletePod(job.metadata.namespace ?? '', pod.metadata.name ?? '', this.subject(job));
        } catch (err) {
          if (!isNotFound(err)) {
            deleted--;
            error ??= err;
          }
        }
        if (isPodReady(pod)) deletedReady++;
      }),
    );
    return { deleted, deletedReady, error };
  }

  /** Removes the tracking finalizer, then deletes each pod; answers how many deletions went through. */
  private async deleteJobPods(c: SyncCtx, pods: readonly Pod[]): Promise<{ removed: number; error?: unknown }> {
    const { key, job } = c;
    let removed = pods.length;
    let error: unknown;
    const fail = (err: unknown) => {
      this.d.expectations.deletionObserved(key);
      if (!isNotFound(err)) {
        removed--;
        error ??= err;
      }
    };
    await Promise.all(
      pods.map(async (pod) => {
        if (hasTrackingFinalizer(pod)) {
          try {
            await removeTrackingFinalizer(this.d.client, pod);
          } catch (err) {
            fail(err);
            return;
          }
        }
        try {
          await this.d.podControl.deletePod(job.metadata.namespace ?? '', pod.metadata.name ?? '', this.subject(job));
        } catch (err) {
          fail(err);
        }
        if (isPodReady(pod)) c.ready--;
      }),
    );
    return { removed, error };
  }

  /**
   * Creates or deletes pods towards the wanted number of active pods (all deleted while suspended). Answers the
   * number of active pods afterwards; throws `{ active, cause }` when some calls failed.
   */
  private async manageJob(c: SyncCtx): Promise<number> {
    const { job, key } = c;
    const { expectations, log } = this.d;
    let active = c.activePods.length;
    const parallelism = num(job.spec?.parallelism);
    const fail = (cause: unknown) => Object.assign(new Error('manageJob'), { active, cause });

    if (isSuspended(job)) {
      log.v(4).info('Deleting all active pods in suspended job', { job: key, active });
      const toDelete = activePodsForRemoval(job, c.activePods, active);
      expectations.expectDeletions(key, toDelete.length);
      const { removed, error } = await this.deleteJobPods(c, toDelete);
      active -= removed;
      c.terminating += removed;
      if (error !== undefined) throw fail(error);
      return active;
    }

    let wantActive: number;
    const completions = job.spec?.completions;
    if (typeof completions !== 'number') wantActive = c.succeeded > 0 ? active : parallelism;
    else wantActive = Math.max(0, Math.min(completions - c.succeeded, parallelism));

    const toDelete = activePodsForRemoval(job, c.activePods, Math.max(0, active - wantActive)).slice(
      0,
      MAX_POD_CREATE_DELETE_PER_SYNC,
    );
    if (toDelete.length > 0) {
      expectations.expectDeletions(key, toDelete.length);
      log.v(4).info('Too many pods running for job', { job: key, deleted: toDelete.length, target: wantActive });
      const { removed, error } = await this.deleteJobPods(c, toDelete);
      active -= removed;
      c.terminating += removed;
      if (error !== undefined) throw fail(error);
      return active;
    }

    const terminating = onlyReplaceFailedPods(job) ? c.terminating : 0;
    let diff = wantActive - terminating - active;
    if (diff <= 0) return active;
    if (!hasBackoffLimitPerIndex(job)) {
      const rec = c.newBackoffRecord;
      const remaining = remainingBackoff(this.d.clock.now(), rec.failuresAfterLastSuccess, rec.lastFailureTime);
      if (remaining > 0) {
        this.d.enqueueAfter(key, Math.max(remaining, this.d.batchPeriodMs));
        return active;
      }
    }
    diff = Math.min(diff, MAX_POD_CREATE_DELETE_PER_SYNC);
    let indexesToAdd: number[] = [];
    if (isIndexedJob(job)) {
      indexesToAdd = firstPendingIndexes(this.nonPendingIndexes(c), diff, num(completions));
      if (hasBackoffLimitPerIndex(job)) {
        const { now: ready, wait } = this.indexesReadyForCreation(indexesToAdd, c.podsWithDelayedDeletionPerIndex);
        if (ready.length === 0 && wait > 0) {
          this.d.enqueueAfter(key, Math.max(wait, this.d.batchPeriodMs));
          return active;
        }
        indexesToAdd = ready;
      }
      diff = indexesToAdd.length;
    }
    if (diff === 0) return active;

    expectations.expectCreations(key, diff);
    log.v(4).info('Too few pods running', { key, need: wantActive, creating: diff });
    active += diff;
    const template = deepClone(job.spec?.template ?? {});
    template.metadata ??= {};
    template.spec ??= {};
    if (isIndexedJob(job)) addCompletionIndexEnv(template.spec, JOB_COMPLETION_INDEX_ANNOTATION, COMPLETION_INDEX_ENV);
    const finalizers: string[] = template.metadata.finalizers ?? [];
    if (!finalizers.includes(JOB_TRACKING_FINALIZER))
      template.metadata.finalizers = [...finalizers, JOB_TRACKING_FINALIZER];
    const ref = newControllerRef(job, JOB_KIND);
    const namespace = job.metadata.namespace ?? '';
    const name = job.metadata.name ?? '';
    const queue = [...indexesToAdd];
    let attempted = 0;
    const { error } = await slowStartBatch(diff, SLOW_START_INITIAL_BATCH_SIZE, async () => {
      attempted++;
      const ix = queue.shift();
      let podTemplate = template;
      let generateName: string | undefined;
      if (ix !== undefined) {
        podTemplate = deepClone(template);
        podTemplate.metadata.annotations = {
          ...podTemplate.metadata.annotations,
          [JOB_COMPLETION_INDEX_ANNOTATION]: `${ix}`,
        };
        podTemplate.metadata.labels = { ...podTemplate.metadata.labels, [JOB_COMPLETION_INDEX_ANNOTATION]: `${ix}` };
        podTemplate.spec.hostname = `${name}-${ix}`;
        generateName = podGenerateNameWithIndex(name, ix);
        if (hasBackoffLimitPerIndex(job))
          this.addIndexFailureCounts(job, podTemplate, c.podsWithDelayedDeletionPerIndex.get(ix));
      }
      try {
        await this.d.podControl.createPods(namespace, podTemplate, this.subject(job), ref, generateName);
      } catch (err) {
        // The informer will never see this pod.
        expectations.creationObserved(key);
        active--;
        if (isNamespaceTerminatingError(err)) return;
        throw err;
      }
    });
    const skipped = diff - attempted;
    if (skipped > 0) {
      log.v(2).info('Slow-start failure. Skipping creating pods, decrementing expectations', { skipped, job: key });
      active -= skipped;
      expectations.lowerExpectations(key, skipped, 0);
    }
    if (error !== undefined) throw fail(error);
    return active;
  }

  private nonPendingIndexes(c: SyncCtx): OrderedIntervals {
    let taken = c.succeededIndexes.withIndexes(c.activePods.map(getCompletionIndex).filter((ix) => ix >= 0));
    if (onlyReplaceFailedPods(c.job)) {
      taken = taken.withIndexes(
        c.pods
          .filter(isPodTerminating)
          .map(getCompletionIndex)
          .filter((ix) => ix >= 0),
      );
    }
    if (c.failedIndexes) taken = taken.merge(c.failedIndexes);
    return taken;
  }

  /** The indexes whose per-index backoff is over, or else the shortest wait among them. */
  private indexesReadyForCreation(indexes: readonly number[], delayed: ReadonlyMap<number, Pod>) {
    const now: number[] = [];
    let wait: number | undefined;
    for (const ix of indexes) {
      const last = delayed.get(ix);
      const left = last
        ? remainingBackoff(
            this.d.clock.now(),
            int32Annotation(last, JOB_INDEX_FAILURE_COUNT_ANNOTATION) +
              int32Annotation(last, JOB_INDEX_IGNORED_FAILURE_COUNT_ANNOTATION) +
              1,
            getFinishedTime(last),
          )
        : 0;
      if (left === 0) now.push(ix);
      else if (wait === undefined || left < wait) wait = left;
    }
    return { now, wait: now.length > 0 ? 0 : (wait ?? 0) };
  }

  // biome-ignore lint/suspicious/noExplicitAny: the pod template is plain JSON
  private addIndexFailureCounts(job: Job, template: any, replaced: Pod | undefined): void {
    let failures = 0;
    let ignored = 0;
    if (replaced) {
      failures = int32Annotation(replaced, JOB_INDEX_FAILURE_COUNT_ANNOTATION);
      ignored = int32Annotation(replaced, JOB_INDEX_IGNORED_FAILURE_COUNT_ANNOTATION);
      if (matchPodFailurePolicy(job, replaced).countFailed) failures++;
      else ignored++;
    }
    template.metadata.annotations[JOB_INDEX_FAILURE_COUNT_ANNOTATION] = `${failures}`;
    if (ignored > 0) template.metadata.annotations[JOB_INDEX_IGNORED_FAILURE_COUNT_ANNOTATION] = `${ignored}`;
  }
}
