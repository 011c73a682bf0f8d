/**
 * The worker loop every queue-driven controller runs (upstream's processNextWorkItem): take a key, sync it, forget
 * its retry history on success or re-add it rate-limited on failure, and mark it done. N workers share one queue;
 * the queue guarantees that one key is never synced by two workers at once.
 */
import type { RateLimitingQueue } from '../client/workqueue/rate-limiting.js';
import type { Logger } from '../util/logger.js';

export interface WorkerOptions<K> {
  queue: RateLimitingQueue<K>;
  workers: number;
  sync(key: K): Promise<void>;
  signal: AbortSignal;
  logger: Logger;
  /** After this many failed syncs of one key it is dropped (forgotten) instead of retried; unlimited by default. */
  maxRetries?: number;
}

/** Runs the workers until signal aborts; the queue is then shut down and the workers finish what they hold. */
export async function runWorkers<K>(opts: WorkerOptions<K>): Promise<void> {
  const { queue, signal, logger } = opts;
  const stop = () => queue.shutDown();
  if (signal.aborted) stop();
  else signal.addEventListener('abort', stop, { once: true });
  const worker = async () => {
    for (;;) {
      const item = await queue.get();
      if (item.shutdown) return;
      const key = item.key;
      try {
        await opts.sync(key);
        queue.forget(key);
      } catch (err) {
        const retries = queue.numRequeues(key);
        if (opts.maxRetries !== undefined && retries >= opts.maxRetries) {
          logger.error('dropping key out of the queue after repeated failures', { key: String(key), err: String(err) });
          queue.forget(key);
        } else {
          logger.v(2).info('error syncing; requeuing', { key: String(key), err: String(err), retries });
          queue.addRateLimited(key);
        }
      } finally {
        queue.done(key);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, opts.workers) }, worker));
}
