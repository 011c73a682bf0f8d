/**
 * Rate limiters for the work queue (client-go's default_rate_limiters.go). Each answers when(key): how many
 * milliseconds to wait before the key may be processed again, counting one more failure for it; forget(key) clears
 * its history once it succeeded; numRequeues(key) says how many failures it has had.
 */
import type { Clock } from '../../util/clock.js';
import { TokenBucket } from '../../util/token-bucket.js';

export interface RateLimiter<K = string> {
  /** Milliseconds to wait before key is processed again; counts a failure for key. */
  when(key: K): number;
  /** Forgets key's failures (call when it was processed successfully). */
  forget(key: K): void;
  /** How many times key has failed since it was last forgotten. */
  numRequeues(key: K): number;
}

/** Per key, baseMs * 2^failures, capped at maxMs. */
export class ItemExponentialFailureRateLimiter<K = string> implements RateLimiter<K> {
  private readonly failures = new Map<K, number>();

  constructor(
    readonly baseMs: number,
    readonly maxMs: number,
  ) {}

  when(key: K): number {
    const exp = this.failures.get(key) ?? 0;
    this.failures.set(key, exp + 1);
    const backoff = this.baseMs * 2 ** exp;
    return Number.isFinite(backoff) && backoff <= this.maxMs ? backoff : this.maxMs;
  }

  forget(key: K): void {
    this.failures.delete(key);
  }

  numRequeues(key: K): number {
    return this.failures.get(key) ?? 0;
  }
}

/** client-go's DefaultItemBasedRateLimiter: exponential from 1 ms to 1000 s. */
export function defaultItemBasedRateLimiter<K = string>(): RateLimiter<K> {
  return new ItemExponentialFailureRateLimiter<K>(1, 1000_000);
}

/**
 * One token bucket for all keys: the first `burst` retries go at once, then `qps` a second. It limits the overall
 * retry rate and keeps no per-key history.
 */
export class BucketRateLimiter<K = string> implements RateLimiter<K> {
  readonly bucket: TokenBucket;

  constructor(qps: number, burst: number, clock?: Clock) {
    this.bucket = new TokenBucket(qps, burst, clock);
  }

  when(_key: K): number {
    return this.bucket.reserve();
  }

  forget(_key: K): void {}

  numRequeues(_key: K): number {
    return 0;
  }
}

/** fastMs for a key's first maxFastAttempts failures, slowMs after that. */
export class ItemFastSlowRateLimiter<K = string> implements RateLimiter<K> {
  private readonly failures = new Map<K, number>();

  constructor(
    readonly fastMs: number,
    readonly slowMs: number,
    readonly maxFastAttempts: number,
  ) {}

  when(key: K): number {
    const n = (this.failures.get(key) ?? 0) + 1;
    this.failures.set(key, n);
    return n <= this.maxFastAttempts ? this.fastMs : this.slowMs;
  }

  forget(key: K): void {
    this.failures.delete(key);
  }

  numRequeues(key: K): number {
    return this.failures.get(key) ?? 0;
  }
}

/** The longest wait any of its limiters asks for; every limiter counts each failure. */
export class MaxOfRateLimiter<K = string> implements RateLimiter<K> {
  readonly limiters: readonly RateLimiter<K>[];

  constructor(...limiters: RateLimiter<K>[]) {
    this.limiters = limiters;
  }

  when(key: K): number {
    let max = 0;
    for (const limiter of this.limiters) max = Math.max(max, limiter.when(key));
    return max;
  }

  forget(key: K): void {
    for (const limiter of this.limiters) limiter.forget(key);
  }

  numRequeues(key: K): number {
    let max = 0;
    for (const limiter of this.limiters) max = Math.max(max, limiter.numRequeues(key));
    return max;
  }
}

/** Another limiter's answer, but never more than maxMs. */
export class WithMaxWaitRateLimiter<K = string> implements RateLimiter<K> {
  constructor(
    readonly limiter: RateLimiter<K>,
    readonly maxMs: number,
  ) {}

  when(key: K): number {
    return Math.min(this.limiter.when(key), this.maxMs);
  }

  forget(key: K): void {
    this.limiter.forget(key);
  }

  numRequeues(key: K): number {
    return this.limiter.numRequeues(key);
  }
}

/**
 * client-go's DefaultControllerRateLimiter: the larger of a per-key exponential backoff (5 ms doubling up to
 * 1000 s) and an overall bucket of 10 retries a second with a burst of 100.
 */
export function defaultControllerRateLimiter<K = string>(clock?: Clock): RateLimiter<K> {
  return new MaxOfRateLimiter<K>(
    new ItemExponentialFailureRateLimiter<K>(5, 1000_000),
    new BucketRateLimiter<K>(10, 100, clock),
  );
}
