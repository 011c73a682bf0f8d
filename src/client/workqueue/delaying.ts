/**
 * The delaying layer of the work queue (client-go's DelayingInterface): addAfter(key, ms) adds the key once the
 * delay has passed on the queue's Clock. A key waiting already keeps the earlier of its two ready times, so a
 * shorter delay asked later moves it forward and a longer one changes nothing.
 */
import { type Clock, realClock, type TimerHandle } from '../../util/clock.js';
import { WorkQueue, type WorkQueueOptions } from './queue.js';

export interface DelayingQueueOptions extends WorkQueueOptions {
  clock?: Clock;
}

interface Waiting<K> {
  key: K;
  readyAt: number;
  /** Breaks ties between equal ready times: first asked, first added. */
  seq: number;
  /** Position in the heap. */
  index: number;
}

/** A binary min-heap of waiting keys by ready time, each entry knowing its position so it can move up. */
class WaitingHeap<K> {
  readonly entries: Waiting<K>[] = [];

  peek(): Waiting<K> | undefined {
    return this.entries[0];
  }

  push(entry: Waiting<K>): void {
    entry.index = this.entries.length;
    this.entries.push(entry);
    this.up(entry.index);
  }

  pop(): Waiting<K> | undefined {
    const top = this.entries[0];
    const last = this.entries.pop();
    if (top === undefined || last === undefined) return undefined;
    if (last !== top) {
      this.entries[0] = last;
      last.index = 0;
      this.down(0);
    }
    return top;
  }

  /** Restores order after entry's readyAt got smaller. */
  moved(entry: Waiting<K>): void {
    this.up(entry.index);
  }

  private less(i: number, j: number): boolean {
    const a = this.entries[i] as Waiting<K>;
    const b = this.entries[j] as Waiting<K>;
    return a.readyAt < b.readyAt || (a.readyAt === b.readyAt && a.seq < b.seq);
  }

  private swap(i: number, j: number): void {
    const a = this.entries[i] as Waiting<K>;
    const b = this.entries[j] as Waiting<K>;
    this.entries[i] = b;
    this.entries[j] = a;
    a.index = j;
    b.index = i;
  }

  private up(i: number): void {
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.less(i, parent)) return;
      this.swap(i, parent);
      i = parent;
    }
  }

  private down(i: number): void {
    const n = this.entries.length;
    for (;;) {
      const left = 2 * i + 1;
      const right = left + 1;
      let smallest = i;
      if (left < n && this.less(left, smallest)) smallest = left;
      if (right < n && this.less(right, smallest)) smallest = right;
      if (smallest === i) return;
      this.swap(i, smallest);
      i = smallest;
    }
  }
}

export class DelayingQueue<K = string> extends WorkQueue<K> {
  protected readonly clock: Clock;
  private readonly heap = new WaitingHeap<K>();
  private readonly waitingByKey = new Map<K, Waiting<K>>();
  private seq = 0;
  private timer: TimerHandle | undefined;
  private timerDue = Number.POSITIVE_INFINITY;

  constructor(opts: DelayingQueueOptions = {}) {
    super(opts);
    this.clock = opts.clock ?? realClock;
  }

  /** Adds key after ms milliseconds (at once when ms <= 0). Ignored once the queue is shutting down. */
  addAfter(key: K, ms: number): void {
    if (this.shuttingDown()) return;
    if (!(ms > 0)) {
      this.add(key);
      return;
    }
    const readyAt = this.clock.now() + ms;
    const existing = this.waitingByKey.get(key);
    if (existing) {
      if (readyAt < existing.readyAt) {
        existing.readyAt = readyAt;
        this.heap.moved(existing);
      }
    } else {
      const entry: Waiting<K> = { key, readyAt, seq: this.seq++, index: -1 };
      this.heap.push(entry);
      this.waitingByKey.set(key, entry);
    }
    this.arm();
  }

  /** How many keys wait for their delay to pass. */
  waitingLen(): number {
    return this.waitingByKey.size;
  }

  override shutDown(): void {
    this.stopTimer();
    super.shutDown();
  }

  override shutDownWithDrain(): Promise<void> {
    this.stopTimer();
    return super.shutDownWithDrain();
  }

  /** Keeps one timer, due when the earliest waiting key is ready. */
  private arm(): void {
    const next = this.heap.peek();
    if (next === undefined) {
      this.timer?.cancel();
      this.timer = undefined;
      this.timerDue = Number.POSITIVE_INFINITY;
      return;
    }
    if (this.timer && this.timerDue <= next.readyAt) return;
    this.timer?.cancel();
    this.timerDue = next.readyAt;
    this.timer = this.clock.after(Math.max(0, next.readyAt - this.clock.now()), () => {
      this.timer = undefined;
      this.timerDue = Number.POSITIVE_INFINITY;
      this.addReady();
    });
  }

  private addReady(): void {
    if (this.shuttingDown()) return;
    const now = this.clock.now();
    for (let next = this.heap.peek(); next !== undefined && next.readyAt <= now; next = this.heap.peek()) {
      this.heap.pop();
      this.waitingByKey.delete(next.key);
      this.add(next.key);
    }
    this.arm();
  }

  private stopTimer(): void {
    this.timer?.cancel();
    this.timer = undefined;
    this.timerDue = Number.POSITIVE_INFINITY;
  }
}
