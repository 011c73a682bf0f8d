/**
 * The namespace controller (upstream's pkg/controller/namespace): watches namespaces, and for each one being
 * deleted runs the NamespacedResourcesDeleter until the namespace is empty and released. Namespace events are
 * acted on after a short grace period, so that every apiserver has seen the deletion (and refuses new content)
 * before the namespace is emptied. While content remains the namespace is looked at again after about half the
 * estimated wait.
 */
import type { SharedIndexInformer } from '../../client/cache/shared-informer.js';
import type { DeletedFinalStateUnknown } from '../../client/cache/store.js';
import { waitForCacheSync } from '../../client/cache/wait-for-cache-sync.js';
import type { KubeObject } from '../../client/types.js';
import {
  BucketRateLimiter,
  ItemExponentialFailureRateLimiter,
  MaxOfRateLimiter,
} from '../../client/workqueue/rate-limiters.js';
import { createRateLimitingQueue, type RateLimitingQueue } from '../../client/workqueue/rate-limiting.js';
import type { Controller, ControllerContext } from '../context.js';
import { runWorkers } from '../worker.js';
import { NamespacedResourcesDeleter, ResourcesRemainingError } from './deleter.js';

/** upstream's namespaceDeletionGracePeriod: how long after a namespace event it is processed. */
export const NAMESPACE_DELETION_GRACE_PERIOD_MS = 5_000;

const NAMESPACES = { group: '', version: 'v1', resource: 'namespaces' } as const;

export class NamespaceController implements Controller {
  private readonly informer: SharedIndexInformer;
  readonly queue: RateLimitingQueue<string>;
  private readonly deleter: NamespacedResourcesDeleter;

  constructor(private readonly ctx: ControllerContext) {
    // Faster than the default retry, so that namespace clean-up is never stuck long: per item 5 ms doubling up to a
    // minute, overall 10 a second with bursts of 100.
    this.queue = createRateLimitingQueue<string>({
      clock: ctx.clock,
      name: 'namespace',
      rateLimiter: new MaxOfRateLimiter<string>(
        new ItemExponentialFailureRateLimiter<string>(5, 60_000),
        new BucketRateLimiter<string>(10, 100, ctx.clock),
      ),
    });
    // As upstream, the deleter's client may go 20 times --kube-api-qps with 100 times the burst: one pass over a
    // namespace makes a request or two per resource.
    const { qps, burst } = ctx.client.rateLimit;
    this.deleter = new NamespacedResourcesDeleter({
      client: ctx.client.withRateLimit(qps * 20, burst * 100),
      clock: ctx.clock,
      logger: ctx.logger.child('deleter'),
    });
    this.informer = ctx.informers.forGroupVersionResource(NAMESPACES);
    this.informer.addEventHandler(
      {
        onAdd: (ns) => this.enqueue(ns),
        onUpdate: (_old, ns) => this.enqueue(ns),
      },
      { resyncPeriod: ctx.options.namespaceSyncPeriodMs },
    );
  }

  private enqueue(ns: KubeObject | DeletedFinalStateUnknown): void {
    if (!('metadata' in ns) || !ns.metadata.deletionTimestamp) return;
    this.queue.addAfter(ns.metadata.name ?? '', NAMESPACE_DELETION_GRACE_PERIOD_MS);
  }

  async run(): Promise<void> {
    const { signal, logger } = this.ctx;
    logger.info('Starting controller', { controller: 'namespace' });
    try {
      if (!(await waitForCacheSync(signal, this.informer))) {
        this.queue.shutDown();
        return;
      }
      await runWorkers({
        queue: this.queue,
        workers: this.ctx.options.concurrentNamespaceSyncs,
        sync: (key) => this.sync(key),
        signal,
        logger,
      });
    } finally {
      logger.info('Shutting down controller', { controller: 'namespace' });
    }
  }

  /** One namespace: empties and releases it if it is being deleted. */
  async sync(name: string): Promise<void> {
    const start = this.ctx.clock.now();
    try {
      if (!this.informer.getIndexer().getByKey(name)) {
        this.ctx.logger.info('Namespace has been deleted', { namespace: name });
        return;
      }
      await this.deleter.delete(name);
    } catch (err) {
      if (err instanceof ResourcesRemainingError) {
        const waitSeconds = Math.floor(err.estimate / 2) + 1;
        this.ctx.logger.v(4).info('Content remaining in namespace', { namespace: name, waitSeconds });
        this.queue.addAfter(name, waitSeconds * 1000);
        return;
      }
      this.ctx.logger.error('deletion of namespace failed', { namespace: name, err: String(err) });
      throw err;
    } finally {
      this.ctx.logger
        .v(4)
        .info('Finished syncing namespace', { namespace: name, durationMs: this.ctx.clock.now() - start });
    }
  }
}
