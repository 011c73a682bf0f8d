/**
 * Work that runs at a time on a Clock, one item per key (upstream's tainteviction TimedWorkerQueue): addWork keeps
 * an existing item for the key, cancelWork stops one that has not fired yet. Work due now runs at once and cannot
 * be cancelled. An item leaves the queue when its work has finished.
 */
import type { Clock, TimerHandle } from '../../util/clock.js';
import type { Logger } from '../../util/logger.js';

export interface TimedWorker {
  createdAt: number;
  fireAt: number;
  timer: TimerHandle;
  cancelled: boolean;
}

export class TimedWorkerQueue {
  /** Key → its waiting worker, or null while work that needed no timer runs. */
  private readonly workers = new Map<string, TimedWorker | null>();
  private readonly running = new Set<Promise<void>>();

  constructor(
    private readonly work: (key: string, fireAt: number) => Promise<void>,
    private readonly clock: Clock,
    private readonly log: Logger,
  ) {}

  /** Schedules work for key at fireAt (ms), unless the key already has work. */
  addWork(key: string, createdAt: number, fireAt: number): void {
    if (this.workers.has(key)) {
      this.log.v(4).info('Trying to add already existing work, skipping', { item: key, createdAt, fireAt });
      return;
    }
    this.log.v(4).info('Adding TimedWorkerQueue item and to be fired at firedTime', { item: key, createdAt, fireAt });
    const delay = fireAt - createdAt;
    if (delay <= 0) {
      this.workers.set(key, null);
      this.fire(key, fireAt, undefined);
      return;
    }
    const worker: TimedWorker = { createdAt, fireAt, cancelled: false, timer: { cancel: () => {} } };
    worker.timer = this.clock.after(delay, () => this.fire(key, fireAt, worker));
    this.workers.set(key, worker);
  }

  /** Cancels key's work; true when waiting work was cancelled (not when it already runs or there is none). */
  cancelWork(key: string): boolean {
    if (!this.workers.has(key)) return false;
    const worker = this.workers.get(key);
    this.workers.delete(key);
    if (!worker) return false;
    this.log.v(4).info('Cancelling TimedWorkerQueue item', { item: key, time: this.clock.now() });
    worker.cancelled = true;
    worker.timer.cancel();
    return true;
  }

  /** The waiting worker of key, if any. */
  getWorker(key: string): TimedWorker | undefined {
    return this.workers.get(key) ?? undefined;
  }

  /** Cancels everything waiting and waits for the work that runs. */
  async cancelAndWait(): Promise<void> {
    for (const worker of this.workers.values()) {
      if (!worker) continue;
      worker.cancelled = true;
      worker.timer.cancel();
    }
    this.workers.clear();
    await Promise.allSettled([...this.running]);
  }

  private fire(key: string, fireAt: number, worker: TimedWorker | undefined): void {
    if (worker?.cancelled) return;
    const run = (async () => {
      this.log.v(4).info('Firing worker', { item: key, firedTime: fireAt });
      try {
        await this.work(key, fireAt);
      } catch (err) {
        this.log.error('TaintEvictionController: timed worker failed', { item: key, err: String(err) });
      } finally {
        // Only the entry this run belongs to leaves; a newer one added meanwhile stays.
        const current = this.workers.get(key);
        if (current === (worker ?? null)) this.workers.delete(key);
      }
    })();
    this.running.add(run);
    void run.finally(() => this.running.delete(run));
  }
}
