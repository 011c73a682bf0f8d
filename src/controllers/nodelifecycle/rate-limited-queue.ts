/**
 * The node lifecycle controller's per-zone tainting queue (upstream's scheduler.RateLimitedTimedQueue): node names
 * ordered by when they are due, each at most once until it is removed, worked through under a token bucket so
 * that nodes are tainted at most --node-eviction-rate a second in a zone.
 *
 * - `add(name, uid)` queues a name unless it is already known (queued, or processed and not removed since);
 * - `remove(name)` forgets it, so it may be added again;
 * - `try(fn)` processes due names while the limiter gives tokens: fn answers `{ done: true }`, or
 *   `{ done: false, retryAfterMs }` to have the name put back for later;
 * - `swapLimiter(qps)` changes the rate (0 stops all processing), as zones change state.
 */
import type { Clock } from '../../util/clock.js';
import { TokenBucket } from '../../util/token-bucket.js';

/** Upstream's EvictionRateLimiterBurst. */
export const EVICTION_RATE_LIMITER_BURST = 1;

export interface TimedValue {
  value: string;
  uid: string;
  addedAt: number;
  processAt: number;
}

/** A limiter that never gives a token (flowcontrol's fake never-rate-limiter). */
interface Limiter {
  readonly qps: number;
  tryAccept(): boolean;
}

function newLimiter(qps: number, clock: Clock): Limiter {
  if (!(qps > 0)) return { qps: 0, tryAccept: () => false };
  const bucket = new TokenBucket(qps, EVICTION_RATE_LIMITER_BURST, clock);
  return { qps, tryAccept: () => bucket.tryTake() };
}

export class RateLimitedTimedQueue {
  /** Names that may not be added: queued, or processed and not yet removed. */
  private readonly set = new Set<string>();
  /** The queued values, kept sorted by processAt (then insertion). */
  private queue: TimedValue[] = [];
  private limiter: Limiter;
  private busy = false;

  constructor(
    qps: number,
    private readonly clock: Clock,
  ) {
    this.limiter = newLimiter(qps, clock);
  }

  get qps(): number {
    return this.limiter.qps;
  }

  /** Queues value to be processed now, unless it is known already; true when added. */
  add(value: string, uid: string): boolean {
    if (this.set.has(value)) return false;
    const now = this.clock.now();
    this.insert({ value, uid, addedAt: now, processAt: now });
    this.set.add(value);
    return true;
  }

  /** Forgets value (queued or processed) so that it can be added again; true when it was known. */
  remove(value: string): boolean {
    if (!this.set.has(value)) return false;
    this.set.delete(value);
    this.queue = this.queue.filter((v) => v.value !== value);
    return true;
  }

  clear(): void {
    this.set.clear();
    this.queue = [];
  }

  /** The queued values in processing order (for tests and inspection). */
  values(): readonly TimedValue[] {
    return this.queue;
  }

  /**
   * Processes the due values in order while the limiter allows, one at a time. A value fn finished stays known
   * (it will not be added again until removed); one fn could not finish is put back retryAfterMs later.
   * Overlapping calls do nothing.
   */
  async try(fn: (value: TimedValue) => Promise<{ done: boolean; retryAfterMs?: number }>): Promise<void> {
    if (this.busy) return;
    this.busy = true;
    try {
      for (let head = this.queue[0]; head; head = this.queue[0]) {
        if (!this.limiter.tryAccept()) break;
        const now = this.clock.now();
        if (now < head.processAt) break;
        const result = await fn(head);
        // The value may have been removed (or re-added) while fn ran.
        const i = this.queue.indexOf(head);
        if (i < 0) continue;
        this.queue.splice(i, 1);
        if (!result.done) this.insert({ ...head, processAt: now + (result.retryAfterMs ?? 0) + 1 });
      }
    } finally {
      this.busy = false;
    }
  }

  /** Changes the rate; a new limiter starts drained when the old one had no token left (as upstream, burst 1). */
  swapLimiter(qps: number): void {
    if (this.limiter.qps === qps || (!(qps > 0) && this.limiter.qps === 0)) return;
    const next = newLimiter(qps, this.clock);
    if (qps > 0 && !this.limiter.tryAccept()) next.tryAccept();
    this.limiter = next;
  }

  private insert(value: TimedValue): void {
    let i = this.queue.length;
    while (i > 0 && (this.queue[i - 1] as TimedValue).processAt > value.processAt) i--;
    this.queue.splice(i, 0, value);
  }
}
