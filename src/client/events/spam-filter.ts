/**
 * The per source+object spam filter of client-go's event correlator: each key (source, involved object, event type)
 * gets a token bucket that starts full with `burst` tokens and refills at `qps`; an event is dropped when its
 * bucket is empty. Buckets live in a bounded LRU cache.
 */
import type { Clock } from '../../util/clock.js';
import { TokenBucket } from '../../util/token-bucket.js';

/** A map bounded to `size` entries that forgets the least recently used one. */
export class LruCache<V> {
  private readonly entries = new Map<string, V>();

  constructor(private readonly size: number) {}

  get(key: string): V | undefined {
    const value = this.entries.get(key);
    if (value !== undefined) {
      this.entries.delete(key);
      this.entries.set(key, value);
    }
    return value;
  }

  add(key: string, value: V): void {
    this.entries.delete(key);
    this.entries.set(key, value);
    while (this.entries.size > this.size) {
      const oldest = this.entries.keys().next().value;
      if (oldest === undefined) break;
      this.entries.delete(oldest);
    }
  }

  get length(): number {
    return this.entries.size;
  }
}

export class EventSourceObjectSpamFilter<E> {
  private readonly cache: LruCache<TokenBucket>;

  constructor(
    cacheSize: number,
    private readonly burst: number,
    private readonly qps: number,
    private readonly clock: Clock,
    private readonly keyOf: (event: E) => string,
  ) {
    this.cache = new LruCache(cacheSize);
  }

  /** True when the event must be dropped. */
  filter(event: E): boolean {
    const key = this.keyOf(event);
    let bucket = this.cache.get(key);
    if (!bucket) bucket = new TokenBucket(this.qps, this.burst, this.clock);
    const drop = !bucket.tryTake();
    this.cache.add(key, bucket);
    return drop;
  }
}
