/**
 * The TTL-after-finished controller (upstream's pkg/controller/ttlafterfinished): a Job with
 * `spec.ttlSecondsAfterFinished` whose `Complete` or `Failed` condition is True is deleted, with foreground
 * propagation so that its pods go first, once its finish time plus the TTL has passed. Until then its key is queued
 * again for the time that remains. Before deleting, the Job is read fresh from the API and checked again (its TTL
 * may have changed), and the delete carries its uid and resourceVersion as preconditions.
 */
import { Lister } from '../../client/cache/listers.js';
import type { SharedIndexInformer } from '../../client/cache/shared-informer.js';
import { metaNamespaceKeyFunc, splitMetaNamespaceKey } from '../../client/cache/store.js';
import { waitForCacheSync } from '../../client/cache/wait-for-cache-sync.js';
import { isNotFound, type KubeObject } from '../../client/types.js';
import { createRateLimitingQueue, type RateLimitingQueue } from '../../client/workqueue/rate-limiting.js';
import type { Controller, ControllerContext } from '../context.js';
import { runWorkers } from '../worker.js';

const JOBS = { group: 'batch', version: 'v1', resource: 'jobs' };

type Rec = Record<string, unknown>;
const rec = (v: unknown): Rec => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Rec) : {});
const recs = (v: unknown): Rec[] => (Array.isArray(v) ? v.map(rec) : []);

function finishedCondition(job: KubeObject): Rec | undefined {
  return recs(rec(job.status).conditions).find(
    (c) => (c.type === 'Complete' || c.type === 'Failed') && c.status === 'True',
  );
}

/** A finished Job (Complete or Failed condition True) that asks to be cleaned up. */
export function needsCleanup(job: KubeObject): boolean {
  return typeof rec(job.spec).ttlSecondsAfterFinished === 'number' && finishedCondition(job) !== undefined;
}

/**
 * When the Job finished (ms since the epoch): its finishing condition's lastTransitionTime, or else its
 * status.completionTime. Throws when neither says.
 */
export function jobFinishTime(job: KubeObject): number {
  const condition = finishedCondition(job);
  const ref = `${job.metadata.namespace ?? ''}/${job.metadata.name ?? ''}`;
  if (!condition) throw new Error(`unable to find the status of the finished Job ${ref}`);
  for (const candidate of [condition.lastTransitionTime, rec(job.status).completionTime]) {
    if (typeof candidate !== 'string') continue;
    const t = Date.parse(candidate);
    if (!Number.isNaN(t)) return t;
  }
  throw new Error(`unable to find the time when the Job ${ref} finished`);
}

/** The finish time, when the TTL expires, and the time left until then (negative once passed). */
export function timeLeft(job: KubeObject, now: number): { finishAt: number; expireAt: number; remaining: number } {
  const finishAt = jobFinishTime(job);
  const expireAt = finishAt + Number(rec(job.spec).ttlSecondsAfterFinished) * 1000;
  return { finishAt, expireAt, remaining: expireAt - now };
}

export class TTLAfterFinishedController implements Controller {
  private readonly queue: RateLimitingQueue<string>;
  private readonly informer: SharedIndexInformer<KubeObject>;
  private readonly jobs: Lister<KubeObject>;

  constructor(private readonly ctx: ControllerContext) {
    this.queue = createRateLimitingQueue<string>({ clock: ctx.clock, name: 'ttl_jobs_to_delete' });
    this.informer = ctx.informers.forGroupVersionResource(JOBS);
    this.jobs = new Lister(this.informer.getIndexer());
    const consider = (job: KubeObject) => {
      if (!job.metadata.deletionTimestamp && needsCleanup(job)) {
        ctx.logger.v(4).info('Add job to cleanup', { job: metaNamespaceKeyFunc(job) });
        this.queue.add(metaNamespaceKeyFunc(job));
      }
    };
    this.informer.addEventHandler({ onAdd: consider, onUpdate: (_old, cur) => consider(cur) });
  }

  async run(): Promise<void> {
    const { ctx } = this;
    ctx.logger.info('Starting controller', { controller: 'ttl-after-finished-controller' });
    if (await waitForCacheSync(ctx.signal, this.informer)) {
      await runWorkers({
        queue: this.queue,
        workers: ctx.options.concurrentTtlAfterFinishedSyncs,
        sync: (key) => this.processJob(key),
        signal: ctx.signal,
        logger: ctx.logger,
      });
    }
    ctx.logger.info('Shutting down controller', { controller: 'ttl-after-finished-controller' });
  }

  private async processJob(key: string): Promise<void> {
    const { namespace, name } = splitMetaNamespaceKey(key);
    const cached = this.jobs.namespaced(namespace).get(name);
    this.ctx.logger.v(4).info('Checking if Job is ready for cleanup', { job: key });
    if (!cached || !this.expired(key, cached)) return;
    // The cached TTL may be stale: check again against the Job as the API has it now.
    let fresh: KubeObject;
    try {
      fresh = await this.ctx.client.jobs(namespace).get(name);
    } catch (err) {
      if (isNotFound(err)) return;
      throw err;
    }
    if (!this.expired(key, fresh)) return;
    this.ctx.logger.v(4).info('Cleaning up Job', { job: key });
    try {
      await this.ctx.client.jobs(namespace).delete(name, {
        propagationPolicy: 'Foreground',
        preconditions: {
          ...(fresh.metadata.uid ? { uid: fresh.metadata.uid } : {}),
          ...(fresh.metadata.resourceVersion ? { resourceVersion: fresh.metadata.resourceVersion } : {}),
        },
      });
    } catch (err) {
      if (isNotFound(err)) return;
      throw err;
    }
  }

  /** Whether the Job's TTL has run out; if it will later, its key is queued again for then. */
  private expired(key: string, job: KubeObject): boolean {
    if (job.metadata.deletionTimestamp || !needsCleanup(job)) return false;
    const now = this.ctx.clock.now();
    const { finishAt, expireAt, remaining } = timeLeft(job, now);
    if (finishAt > now) {
      this.ctx.logger.info(
        'Warning: Found Job finished in the future. This is likely due to time skew in the cluster. Job cleanup will be deferred.',
        { job: key },
      );
    }
    this.ctx.logger.v(4).info('Found Job finished', {
      job: key,
      finishTime: new Date(finishAt).toISOString(),
      remainingTTL: `${remaining / 1000}s`,
      startTime: new Date(now).toISOString(),
      deadlineTTL: new Date(expireAt).toISOString(),
    });
    if (remaining <= 0) return true;
    this.queue.addAfter(key, remaining);
    return false;
  }
}
