/**
 * A binary heap whose items are also found by key (upstream's backend/heap): the scheduling queue's activeQ and
 * backoffQ. `less(a, b)` true means a comes out first. Adding an item whose key is present replaces it in place.
 */
export class KeyedHeap<T> {
  private readonly items: T[] = [];
  private readonly index = new Map<string, number>();

  constructor(
    private readonly keyOf: (item: T) => string,
    private readonly less: (a: T, b: T) => boolean,
  ) {}

  get size(): number {
    return this.items.length;
  }

  has(key: string): boolean {
    return this.index.has(key);
  }

  get(key: string): T | undefined {
    const i = this.index.get(key);
    return i === undefined ? undefined : this.items[i];
  }

  /** Adds the item, or replaces the one with the same key (and restores the order). */
  addOrUpdate(item: T): void {
    const key = this.keyOf(item);
    const i = this.index.get(key);
    if (i !== undefined) {
      this.items[i] = item;
      this.fix(i);
      return;
    }
    this.items.push(item);
    this.index.set(key, this.items.length - 1);
    this.up(this.items.length - 1);
  }

  delete(key: string): T | undefined {
    const i = this.index.get(key);
    if (i === undefined) return undefined;
    const removed = this.items[i] as T;
    const last = this.items.length - 1;
    if (i !== last) this.swap(i, last);
    this.items.pop();
    this.index.delete(key);
    if (i < this.items.length) this.fix(i);
    return removed;
  }

  peek(): T | undefined {
    return this.items[0];
  }

  pop(): T | undefined {
    const top = this.items[0];
    if (top === undefined) return undefined;
    this.delete(this.keyOf(top));
    return top;
  }

  /** The items in no particular order. */
  list(): T[] {
    return [...this.items];
  }

  private fix(i: number): void {
    if (!this.down(i)) this.up(i);
  }

  private up(i: number): void {
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.less(this.items[i] as T, this.items[parent] as T)) break;
      this.swap(i, parent);
      i = parent;
    }
  }

  /** Moves item i down while a child should come first; true when it moved. */
  private down(start: number): boolean {
    let i = start;
    const n = this.items.length;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      let child = l;
      const r = l + 1;
      if (r < n && this.less(this.items[r] as T, this.items[l] as T)) child = r;
      if (!this.less(this.items[child] as T, this.items[i] as T)) break;
      this.swap(i, child);
      i = child;
    }
    return i > start;
  }

  private swap(a: number, b: number): void {
    const x = this.items[a] as T;
    const y = this.items[b] as T;
    this.items[a] = y;
    this.items[b] = x;
    this.index.set(this.keyOf(y), a);
    this.index.set(this.keyOf(x), b);
  }
}
