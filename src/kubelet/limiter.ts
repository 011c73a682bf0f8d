/**
 * Bounds how many API calls the simulated kubelets of a process have in flight at once, so that registering
 * thousands of nodes, or reporting the status of thousands of pods, queues here instead of opening thousands of
 * streams on the one connection.
 */
export class Limiter {
  private active = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly max: number) {}

  async run<T>(fn: () => Promise<T>): Promise<T> {
    if (this.active >= this.max) await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.active++;
    try {
      return await fn();
    } finally {
      this.active--;
      this.waiting.shift()?.();
    }
  }

  get inFlight(): number {
    return this.active;
  }
}
