/**
 * One timer queue for everything the simulated kubelets of a process wait for (lease renewals, status reports,
 * container steps): a binary heap of due times behind a single timer on the Clock, so thousands of nodes and tens of
 * thousands of pods cost one armed timer rather than one each. Timers fire in due order (ties in the order they were
 * set); a timer's callback may set or cancel others. Callbacks that throw are reported to onError and do not stop
 * the others.
 */
import type { Clock, TimerHandle } from '../util/clock.js';

interface Entry {
  due: number;
  seq: number;
  fn: () => void;
  cancelled: boolean;
}

export class TimerWheel {
  private heap: Entry[] = [];
  private seq = 0;
  private armed: { due: number; handle: TimerHandle } | undefined;
  private stopped = false;
  private live = 0;

  constructor(
    private readonly clock: Clock,
    private readonly onError: (err: unknown) => void = () => {},
  ) {}

  /** Runs fn once, ms milliseconds from now (0: on the next turn of the clock). */
  after(ms: number, fn: () => void): TimerHandle {
    return this.at(this.clock.now() + Math.max(0, ms), fn);
  }

  /** Runs fn once at the clock's time `due` (at once, on the next turn, if that is past). */
  at(due: number, fn: () => void): TimerHandle {
    const entry: Entry = { due, seq: this.seq++, fn, cancelled: false };
    if (this.stopped) return { cancel: () => {} };
    this.push(entry);
    this.live++;
    this.arm();
    return {
      cancel: () => {
        if (entry.cancelled) return;
        entry.cancelled = true;
        this.live--;
      },
    };
  }

  /** Runs fn every periodMs, the first time after firstMs (default periodMs), until cancelled. */
  every(periodMs: number, fn: () => void, firstMs = periodMs): TimerHandle {
    let current: TimerHandle | undefined;
    let cancelled = false;
    const period = Math.max(1, periodMs);
    const schedule = (due: number) => {
      current = this.at(due, () => {
        if (cancelled) return;
        schedule(due + period);
        fn();
      });
    };
    schedule(this.clock.now() + Math.max(0, firstMs));
    return {
      cancel: () => {
        cancelled = true;
        current?.cancel();
      },
    };
  }

  /** Timers waiting (cancelled ones not counted). */
  get size(): number {
    return this.live;
  }

  /** Cancels everything; later timers are ignored. */
  stop(): void {
    this.stopped = true;
    this.armed?.handle.cancel();
    this.armed = undefined;
    for (const e of this.heap) e.cancelled = true;
    this.heap = [];
    this.live = 0;
  }

  private arm(): void {
    this.dropCancelledTop();
    const top = this.heap[0];
    if (!top || this.stopped) {
      this.armed?.handle.cancel();
      this.armed = undefined;
      return;
    }
    if (this.armed && this.armed.due <= top.due) return;
    this.armed?.handle.cancel();
    const due = top.due;
    this.armed = { due, handle: this.clock.after(Math.max(0, due - this.clock.now()), () => this.fire(due)) };
  }

  private fire(due: number): void {
    if (this.armed?.due === due) this.armed = undefined;
    const now = this.clock.now();
    for (;;) {
      this.dropCancelledTop();
      const top = this.heap[0];
      if (!top || top.due > now || this.stopped) break;
      this.pop();
      top.cancelled = true;
      this.live--;
      try {
        top.fn();
      } catch (err) {
        this.onError(err);
      }
    }
    this.arm();
  }

  private dropCancelledTop(): void {
    while (this.heap.length > 0 && this.heap[0]?.cancelled) this.pop();
  }

  private less(a: Entry, b: Entry): boolean {
    return a.due < b.due || (a.due === b.due && a.seq < b.seq);
  }

  private push(entry: Entry): void {
    const heap = this.heap;
    heap.push(entry);
    let i = heap.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const p = heap[parent] as Entry;
      if (!this.less(entry, p)) break;
      heap[i] = p;
      i = parent;
    }
    heap[i] = entry;
  }

  private pop(): Entry | undefined {
    const heap = this.heap;
    const top = heap[0];
    const last = heap.pop();
    if (heap.length === 0 || last === undefined) return top;
    let i = 0;
    const n = heap.length;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      const child = r < n && this.less(heap[r] as Entry, heap[l] as Entry) ? r : l;
      if (!this.less(heap[child] as Entry, last)) break;
      heap[i] = heap[child] as Entry;
      i = child;
    }
    heap[i] = last;
    return top;
  }
}
