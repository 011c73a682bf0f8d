/**
 * Bounds how many API calls the simulated kubelets of a process have in flight at once, so that registering
 * thousands of nodes, or reporting the status of thousands of pods, queues here instead of opening thousands of
 * streams on the one connection.
 */
export class Limiter {
  private active = 0;
  /** Callers waiting for a slot, oldest first from `head` (an array's shift() would cost O(n) per call). */
  private waiting: (() => void)[] = [];
  private head = 0;

  constructor(private readonly max: number) {}

  async run<T>(fn: () => Promise<T>): Promise<T> {
    if (this.active >= this.max) await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.active++;
    try {
      return await fn();
    } finally {
      this.active--;
      this.wakeNext();
    }
  }

  private wakeNext(): void {
    if (this.head >= this.waiting.length) return;
    const next = this.waiting[this.head++];
    if (this.head > 1024 && this.head * 2 > this.waiting.length) {
      this.waiting = this.waiting.slice(this.head);
      this.head = 0;
    }
    next?.();
  }

  get inFlight(): number {
    return this.active;
  }
}
