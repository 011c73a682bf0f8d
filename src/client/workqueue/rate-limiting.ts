/**
 * The rate-limited layer of the work queue (client-go's RateLimitingInterface): addRateLimited(key) re-adds a key
 * after the wait its rate limiter decides, forget(key) ends its retry history. createRateLimitingQueue is what
 * controllers use.
 */
import { type Clock, realClock } from '../../util/clock.js';
import { DelayingQueue, type DelayingQueueOptions } from './delaying.js';
import { defaultControllerRateLimiter, type RateLimiter } from './rate-limiters.js';

export interface RateLimitingQueueOptions<K> extends DelayingQueueOptions {
  /** defaultControllerRateLimiter() on the queue's clock when not given. */
  rateLimiter?: RateLimiter<K>;
}

export class RateLimitingQueue<K = string> extends DelayingQueue<K> {
  readonly rateLimiter: RateLimiter<K>;

  constructor(opts: RateLimitingQueueOptions<K> = {}) {
    super(opts);
    this.rateLimiter = opts.rateLimiter ?? defaultControllerRateLimiter<K>(this.clock);
  }

  /** Adds key once the rate limiter says it may be retried. */
  addRateLimited(key: K): void {
    this.addAfter(key, this.rateLimiter.when(key));
  }

  /** Clears key's retry history (it does not remove key from the queue). */
  forget(key: K): void {
    this.rateLimiter.forget(key);
  }

  numRequeues(key: K): number {
    return this.rateLimiter.numRequeues(key);
  }
}

/** A work queue with dedup, delays and per-key retry backoff: the one controllers use. */
export function createRateLimitingQueue<K = string>(
  opts: { clock?: Clock; rateLimiter?: RateLimiter<K>; name?: string } = {},
): RateLimitingQueue<K> {
  return new RateLimitingQueue<K>({ ...opts, clock: opts.clock ?? realClock });
}
