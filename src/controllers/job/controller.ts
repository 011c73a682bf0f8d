/**
 * The Job controller (upstream's pkg/controller/job): watches Jobs and pods, and syncs each Job (sync.ts) when it or
 * one of its pods changes — Job changes at once, pod changes batched for a second as upstream does. A second queue
 * removes the `batch.kubernetes.io/job-tracking` finalizer from pods whose Job is gone or finished (orphans).
 * Jobs whose spec.managedBy names another controller are left alone.
 */
import { LabelSelector } from '../../api/labels.js';
import type { SharedIndexInformer } from '../../client/cache/shared-informer.js';
import { DeletedFinalStateUnknown, type Indexer, metaNamespaceKeyFunc } from '../../client/cache/store.js';
import { waitForCacheSync } from '../../client/cache/wait-for-cache-sync.js';
import { isNotFound, type KubeObject } from '../../client/types.js';
import { ItemExponentialFailureRateLimiter } from '../../client/workqueue/rate-limiters.js';
import { createRateLimitingQueue, type RateLimitingQueue } from '../../client/workqueue/rate-limiting.js';
import { deepClone } from '../../util/clone.js';
import type { Logger } from '../../util/logger.js';
import { ControllerRefManager, getControllerOf, ownerCanAdopt } from '../common/controller-ref.js';
import { ControllerExpectations } from '../common/expectations.js';
import {
  filterPodsByOwner,
  POD_CONTROLLER_UID_INDEX,
  PodControl,
  podControllerUidIndexFunc,
  podKey,
} from '../common/pods.js';
import type { Controller, ControllerContext } from '../context.js';
import { runWorkers } from '../worker.js';
import { BackoffStore } from './backoff.js';
import { FinalizerExpectations } from './finalizer-expectations.js';
import { JobSync } from './sync.js';
import {
  hasTrackingFinalizer,
  isJobFinished,
  JOB_KIND,
  JOB_TRACKING_FINALIZER,
  type Job,
  managedByExternalController,
  type Pod,
} from './types.js';

const JOBS = { group: 'batch', version: 'v1', resource: 'jobs' };
const PODS = { group: '', version: 'v1', resource: 'pods' };

/** Upstream's syncJobBatchPeriod. */
export const SYNC_JOB_BATCH_PERIOD_MS = 1000;
/** Upstream's DefaultJobApiBackOff and MaxJobApiBackOff: the retry delays of failed syncs. */
const API_BACKOFF_MS = 1000;
const MAX_API_BACKOFF_MS = 60_000;

export interface JobControllerOptions {
  /** The batch period of syncs caused by pod events (1 s). */
  syncBatchPeriodMs?: number;
}

export class JobController implements Controller {
  readonly queue: RateLimitingQueue<string>;
  readonly orphanQueue: RateLimitingQueue<string>;
  readonly expectations: ControllerExpectations;
  readonly finalizerExpectations = new FinalizerExpectations();
  readonly backoff = new BackoffStore();
  private readonly jobInformer: SharedIndexInformer;
  private readonly podInformer: SharedIndexInformer;
  private readonly jobIndexer: Indexer;
  private readonly podIndexer: Indexer;
  private readonly log: Logger;
  private readonly batchPeriodMs: number;
  private readonly syncer: JobSync;

  constructor(
    private readonly ctx: ControllerContext,
    opts: JobControllerOptions = {},
  ) {
    this.log = ctx.logger;
    this.batchPeriodMs = opts.syncBatchPeriodMs ?? SYNC_JOB_BATCH_PERIOD_MS;
    const limiter = () => new ItemExponentialFailureRateLimiter<string>(API_BACKOFF_MS, MAX_API_BACKOFF_MS);
    this.queue = createRateLimitingQueue<string>({ clock: ctx.clock, name: 'job', rateLimiter: limiter() });
    this.orphanQueue = createRateLimitingQueue<string>({
      clock: ctx.clock,
      name: 'job_orphan_pod',
      rateLimiter: limiter(),
    });
    this.expectations = new ControllerExpectations(ctx.clock);
    const recorder = ctx.recorder('job-controller');
    this.syncer = new JobSync({
      client: ctx.client,
      clock: ctx.clock,
      log: this.log,
      recorder,
      podControl: new PodControl(ctx.client.pods(), recorder, this.log),
      expectations: this.expectations,
      finalizerExpectations: this.finalizerExpectations,
      backoff: this.backoff,
      enqueueAfter: (key, ms) => this.queue.addAfter(key, ms),
      batchPeriodMs: this.batchPeriodMs,
    });
    this.jobInformer = ctx.informers.forGroupVersionResource(JOBS);
    this.podInformer = ctx.informers.forGroupVersionResource(PODS, {
      indexers: { [POD_CONTROLLER_UID_INDEX]: podControllerUidIndexFunc },
    });
    this.jobIndexer = this.jobInformer.getIndexer();
    this.podIndexer = this.podInformer.getIndexer();
    this.jobInformer.addEventHandler({
      onAdd: (job) => this.enqueue(job, 0),
      onUpdate: (oldJob, curJob) => this.updateJob(oldJob, curJob),
      onDelete: (job) => this.deleteJob(job),
    });
    this.podInformer.addEventHandler({
      onAdd: (pod) => this.addPod(pod),
      onUpdate: (oldPod, curPod) => this.updatePod(oldPod, curPod),
      onDelete: (pod) => this.deletePod(pod, true),
    });
  }

  async run(): Promise<void> {
    const { signal } = this.ctx;
    this.log.info('Starting job controller');
    try {
      if (!(await waitForCacheSync(signal, this.jobInformer, this.podInformer))) return;
      await Promise.all([
        runWorkers({
          queue: this.queue,
          workers: this.ctx.options.concurrentJobSyncs,
          sync: (key) => this.sync(key),
          signal,
          logger: this.log,
        }),
        runWorkers({
          queue: this.orphanQueue,
          workers: 1,
          sync: (key) => this.syncOrphanPod(key),
          signal,
          logger: this.log,
        }),
      ]);
    } finally {
      this.queue.shutDown();
      this.orphanQueue.shutDown();
      this.log.info('Shutting down job controller');
    }
  }

  // Event handlers.

  private enqueue(obj: KubeObject | DeletedFinalStateUnknown<KubeObject>, delayMs: number): void {
    let key: string;
    try {
      key = metaNamespaceKeyFunc(obj);
    } catch (err) {
      this.log.error("Couldn't get key for object", { err: String(err) });
      return;
    }
    if (delayMs > 0) this.queue.addAfter(key, delayMs);
    else this.queue.add(key);
  }

  private enqueueBatched(job: KubeObject): void {
    this.enqueue(job, this.batchPeriodMs);
  }

  private updateJob(oldJob: Job, curJob: Job): void {
    if (curJob.metadata.generation === oldJob.metadata.generation) this.enqueueBatched(curJob);
    else this.enqueue(curJob, 0);
    // A backup: a finished Job's pods must lose their finalizers.
    if (isJobFinished(curJob)) this.cleanupPodFinalizers(curJob);
    const started = Date.parse(curJob.status?.startTime ?? '');
    const ads = curJob.spec?.activeDeadlineSeconds;
    if (!Number.isNaN(started) && typeof ads === 'number' && oldJob.spec?.activeDeadlineSeconds !== ads) {
      const left = ads * 1000 - (this.ctx.clock.now() - started);
      this.queue.addAfter(metaNamespaceKeyFunc(curJob), Math.max(0, left));
    }
  }

  private deleteJob(obj: Job | DeletedFinalStateUnknown<Job>): void {
    this.enqueue(obj, 0);
    const job = obj instanceof DeletedFinalStateUnknown ? obj.obj : obj;
    if (job?.metadata) this.cleanupPodFinalizers(job);
  }

  /** Hands the pods of a finished or deleted Job that still carry the finalizer to the orphan queue. */
  private cleanupPodFinalizers(job: Job): void {
    for (const pod of this.podIndexer.byIndex(POD_CONTROLLER_UID_INDEX, job.metadata.uid ?? '')) {
      if (hasTrackingFinalizer(pod)) this.orphanQueue.add(podKey(pod));
    }
  }

  private resolveControllerRef(namespace: string, ref: { kind: string; name: string; uid: string }): Job | undefined {
    if (ref.kind !== JOB_KIND.kind) return undefined;
    const job = this.jobIndexer.getByKey(`${namespace}/${ref.name}`);
    return job && job.metadata.uid === ref.uid ? job : undefined;
  }

  private jobKey(job: Job): string {
    return metaNamespaceKeyFunc(job);
  }

  /** The Jobs of the pod's namespace whose selector matches it. */
  private getPodJobs(pod: Pod): Job[] {
    const out: Job[] = [];
    for (const job of this.jobIndexer.byIndex('namespace', pod.metadata.namespace ?? '')) {
      try {
        const selector = LabelSelector.fromObject(job.spec?.selector);
        if (selector.isEmpty() || !selector.matches(pod.metadata.labels)) continue;
      } catch {
        continue;
      }
      out.push(job);
    }
    if (out.length > 1) {
      this.log.error('user error! more than one job is selecting pods with labels', { labels: pod.metadata.labels });
    }
    return out;
  }

  private addPod(pod: Pod): void {
    if (pod.metadata.deletionTimestamp) {
      // Seen first while already being deleted (e.g. after a restart): not a creation.
      this.deletePod(pod, false);
      return;
    }
    const ref = getControllerOf(pod);
    if (ref) {
      const job = this.resolveControllerRef(pod.metadata.namespace ?? '', ref);
      if (!job) return;
      this.expectations.creationObserved(this.jobKey(job));
      this.enqueueBatched(job);
      return;
    }
    if (hasTrackingFinalizer(pod)) this.orphanQueue.add(podKey(pod));
    for (const job of this.getPodJobs(pod)) this.enqueueBatched(job);
  }

  private updatePod(oldPod: Pod, curPod: Pod): void {
    if (oldPod.metadata.resourceVersion === curPod.metadata.resourceVersion) return;
    if (curPod.metadata.deletionTimestamp) {
      this.deletePod(curPod, false);
      return;
    }
    const finalizerRemoved = !hasTrackingFinalizer(curPod);
    const curRef = getControllerOf(curPod);
    const oldRef = getControllerOf(oldPod);
    const refChanged = JSON.stringify(curRef ?? null) !== JSON.stringify(oldRef ?? null);
    const ns = curPod.metadata.namespace ?? '';
    if (refChanged && oldRef) {
      const job = this.resolveControllerRef(ns, oldRef);
      if (job) {
        if (finalizerRemoved)
          this.finalizerExpectations.finalizerRemovalObserved(this.jobKey(job), curPod.metadata.uid ?? '');
        this.enqueueBatched(job);
      }
    }
    if (curRef) {
      const job = this.resolveControllerRef(ns, curRef);
      if (!job) return;
      if (finalizerRemoved)
        this.finalizerExpectations.finalizerRemovalObserved(this.jobKey(job), curPod.metadata.uid ?? '');
      this.enqueueBatched(job);
      return;
    }
    if (hasTrackingFinalizer(curPod)) this.orphanQueue.add(podKey(curPod));
    const labelChanged = JSON.stringify(curPod.metadata.labels ?? {}) !== JSON.stringify(oldPod.metadata.labels ?? {});
    if (labelChanged || refChanged) for (const job of this.getPodJobs(curPod)) this.enqueueBatched(job);
  }

  private deletePod(obj: Pod | DeletedFinalStateUnknown<Pod>, final: boolean): void {
    const pod = obj instanceof DeletedFinalStateUnknown ? obj.obj : obj;
    if (!pod?.metadata) return;
    const ref = getControllerOf(pod);
    const hasFinalizer = hasTrackingFinalizer(pod);
    if (!ref) {
      if (hasFinalizer) this.orphanQueue.add(podKey(pod));
      return;
    }
    const job = this.resolveControllerRef(pod.metadata.namespace ?? '', ref);
    if (!job || isJobFinished(job)) {
      if (hasFinalizer) this.orphanQueue.add(podKey(pod));
      return;
    }
    const key = this.jobKey(job);
    this.expectations.deletionObserved(key);
    if (final || !hasFinalizer) this.finalizerExpectations.finalizerRemovalObserved(key, pod.metadata.uid ?? '');
    this.enqueueBatched(job);
  }

  // Syncs.

  /** Reconciles one Job by key; throws to be retried with backoff. */
  async sync(key: string): Promise<void> {
    const start = this.ctx.clock.now();
    try {
      await this.syncJob(key);
    } finally {
      this.log.v(4).info('Finished syncing job', { key, elapsedMs: this.ctx.clock.now() - start });
    }
  }

  private async syncJob(key: string): Promise<void> {
    const cached = this.jobIndexer.getByKey(key) as Job | undefined;
    if (!cached) {
      this.log.v(4).info('Job has been deleted', { key });
      this.expectations.deleteExpectations(key);
      this.finalizerExpectations.deleteExpectations(key);
      this.backoff.remove(key);
      return;
    }
    const external = managedByExternalController(cached);
    if (external !== undefined) {
      this.log.v(2).info('Skip syncing the job as it is managed by an external controller', {
        key,
        controllerName: external,
      });
      return;
    }
    const job = deepClone(cached);
    if (isJobFinished(job)) {
      this.backoff.remove(key);
      return;
    }
    const mode = job.spec?.completionMode;
    if (mode !== undefined && mode !== 'NonIndexed' && mode !== 'Indexed') {
      this.ctx
        .recorder('job-controller')
        .event(
          { ...job, ...JOB_KIND },
          'Warning',
          'UnknownCompletionMode',
          'Skipped Job sync because completion mode is unknown',
        );
      return;
    }
    // Read the expectations before the pods, so a pod created meanwhile cannot slip past them.
    const satisfied = this.expectations.satisfiedExpectations(key);
    const pods = await this.getPodsForJob(job);
    await this.syncer.syncJob(key, job, pods, satisfied);
  }

  /** The Job's pods after adopting matching orphans (adding the finalizer) and releasing pods that stopped matching. */
  private async getPodsForJob(job: Job): Promise<Pod[]> {
    const selector = LabelSelector.fromObject(job.spec?.selector);
    const manager = new ControllerRefManager({
      owner: job,
      ownerKind: JOB_KIND,
      selector,
      children: this.ctx.client.pods(),
      canAdopt: ownerCanAdopt(this.ctx.client.jobs(), job, JOB_KIND),
      finalizers: [JOB_TRACKING_FINALIZER],
    });
    const pods = (await manager.claim(filterPodsByOwner(this.podIndexer, job))) as Pod[];
    // Adopted pods got the finalizer from the adoption patch; count them with it already.
    return pods.map((pod) => {
      const owned = (pod.metadata.ownerReferences ?? []).some((r) => r.uid === job.metadata.uid);
      if (owned || hasTrackingFinalizer(pod)) return pod;
      return {
        ...pod,
        metadata: { ...pod.metadata, finalizers: [...(pod.metadata.finalizers ?? []), JOB_TRACKING_FINALIZER] },
      };
    });
  }

  /** Removes the tracking finalizer from a pod whose Job is gone or finished. */
  private async syncOrphanPod(key: string): Promise<void> {
    const pod = this.podIndexer.getByKey(key) as Pod | undefined;
    if (!pod) {
      this.log.v(4).info('Orphan pod has been deleted', { pod: key });
      return;
    }
    const ref = getControllerOf(pod);
    if (ref) {
      if (ref.kind !== JOB_KIND.kind || ref.apiVersion !== JOB_KIND.apiVersion) return;
      const job = this.resolveControllerRef(pod.metadata.namespace ?? '', ref);
      if (job && managedByExternalController(job) !== undefined) return;
      if (job && !isJobFinished(job)) return; // adopted: its Job removes the finalizer
    }
    if (!hasTrackingFinalizer(pod)) return;
    try {
      await this.ctx.client.pods(pod.metadata.namespace ?? '').patch(pod.metadata.name ?? '', 'strategic', {
        metadata: { '$deleteFromPrimitiveList/finalizers': [JOB_TRACKING_FINALIZER] },
      });
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  }
}
