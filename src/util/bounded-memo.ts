/**
 * Values worked out once per key and remembered, for keys that repeat (a field name, an Accept header, a quantity's
 * text): at most `limit` of them, all forgotten at once when it is reached, so that a stream of distinct keys cannot
 * make the memo grow without end, and no bookkeeping is paid on the hits.
 */
export class BoundedMemo<K, V> {
  private readonly values = new Map<K, V>();

  constructor(private readonly limit: number) {}

  /** The value remembered for key, if any. */
  get(key: K): V | undefined {
    return this.values.get(key);
  }

  /** Remembers value for key (forgetting everything first when full); answers the value. */
  remember(key: K, value: V): V {
    if (this.values.size >= this.limit) this.values.clear();
    this.values.set(key, value);
    return value;
  }

  clear(): void {
    this.values.clear();
  }
}
