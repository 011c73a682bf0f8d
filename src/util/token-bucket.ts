/**
 * A token bucket rate limiter, as client-go's flowcontrol.NewTokenBucketRateLimiter (golang.org/x/time/rate):
 * the bucket holds up to `burst` tokens, starts full and refills at `qps` tokens a second. Used by the REST client
 * (client-side QPS) and by the work queue's overall rate limiter.
 */
import { type Clock, realClock } from './clock.js';

export class TokenBucket {
  readonly qps: number;
  readonly burst: number;
  private readonly unlimited: boolean;
  private readonly clock: Clock;
  /** May go below zero: tokens promised to callers of reserve() that have not come in yet. */
  private tokens: number;
  private last: number;

  /** qps <= 0 or Infinity means no limit. A burst below 1 is taken as 1. */
  constructor(qps: number, burst: number, clock: Clock = realClock) {
    this.unlimited = !(qps > 0) || !Number.isFinite(qps);
    this.qps = qps;
    this.burst = Math.max(1, burst);
    this.clock = clock;
    this.tokens = this.burst;
    this.last = clock.now();
  }

  /** Takes a token if one is available now; never waits and never goes into debt. */
  tryTake(): boolean {
    if (this.unlimited) return true;
    this.refill();
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }

  /**
   * Takes a token now, going into debt if there is none, and returns how many milliseconds the caller must wait
   * before using it (0 when one was available).
   */
  reserve(): number {
    if (this.unlimited) return 0;
    this.refill();
    this.tokens -= 1;
    if (this.tokens >= 0) return 0;
    return Math.ceil((-this.tokens / this.qps) * 1000);
  }

  /** Resolves once a token is available (at once when there is one), waiting on the clock. */
  take(): Promise<void> {
    const wait = this.reserve();
    if (wait <= 0) return Promise.resolve();
    return new Promise((resolve) => {
      this.clock.after(wait, resolve);
    });
  }

  private refill(): void {
    const now = this.clock.now();
    const elapsed = now - this.last;
    this.last = now;
    if (elapsed > 0) this.tokens = Math.min(this.burst, this.tokens + (elapsed * this.qps) / 1000);
  }
}
