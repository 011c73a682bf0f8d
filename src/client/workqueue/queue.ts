/**
 * The basic work queue of client-go (util/workqueue): a FIFO of keys with two sets that give it its guarantees.
 *
 * - dirty: every key waiting to be processed. Adding a key that is already dirty does nothing, so a burst of
 *   events for one object yields one unit of work.
 * - processing: every key a worker holds (between get() and done()). A key added while it is being processed is
 *   marked dirty but not queued; done() queues it again. So no two workers ever hold the same key, and no change
 *   is lost.
 *
 * After shutDown() new keys are ignored; get() keeps handing out what is queued and then answers shutdown.
 */

export type QueueItem<K> = { key: K; shutdown: false } | { shutdown: true };

export interface WorkQueueOptions {
  /** Names the queue in logs (and, later, metrics). */
  name?: string;
}

/** A first-in first-out list with O(1) push and shift. */
class Fifo<K> {
  private items: K[] = [];
  private head = 0;

  get length(): number {
    return this.items.length - this.head;
  }

  push(item: K): void {
    this.items.push(item);
  }

  shift(): K | undefined {
    if (this.head >= this.items.length) return undefined;
    const item = this.items[this.head];
    this.items[this.head] = undefined as K;
    this.head++;
    if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return item;
  }
}

const SHUTDOWN: QueueItem<never> = { shutdown: true };

export class WorkQueue<K = string> {
  readonly name: string;
  private readonly queue = new Fifo<K>();
  private readonly dirty = new Set<K>();
  private readonly processing = new Set<K>();
  private readonly getters: ((item: QueueItem<K>) => void)[] = [];
  private drainWaiters: (() => void)[] = [];
  private stopping = false;
  private draining = false;

  constructor(opts: WorkQueueOptions = {}) {
    this.name = opts.name ?? '';
  }

  /** Marks key as needing processing. Ignored once the queue is shutting down. */
  add(key: K): void {
    if (this.stopping || this.dirty.has(key)) return;
    this.dirty.add(key);
    if (this.processing.has(key)) return;
    this.queue.push(key);
    this.handOut();
  }

  /** The number of keys waiting (not those being processed); for information only. */
  len(): number {
    return this.queue.length;
  }

  /**
   * Waits for a key to process. The caller must call done(key) when finished with it. Answers shutdown once the
   * queue is shutting down and empty.
   */
  get(): Promise<QueueItem<K>> {
    if (this.queue.length > 0) return Promise.resolve(this.take());
    if (this.stopping) return Promise.resolve(SHUTDOWN);
    return new Promise((resolve) => this.getters.push(resolve));
  }

  /** Ends the processing of key; if it was added again meanwhile, it goes back into the queue. */
  done(key: K): void {
    this.processing.delete(key);
    if (this.dirty.has(key)) {
      this.queue.push(key);
      this.handOut();
    } else if (this.processing.size === 0) {
      this.releaseDrainWaiters();
    }
  }

  /** Stops accepting keys; workers get what is queued, then shutdown. Does not wait for workers. */
  shutDown(): void {
    this.stopping = true;
    this.draining = false;
    this.wakeGetters();
    this.releaseDrainWaiters();
  }

  /**
   * Like shutDown, then waits until no key is being processed. A later shutDown() stops the wait. Workers must call
   * done() for every key they got, or this never resolves.
   */
  shutDownWithDrain(): Promise<void> {
    this.stopping = true;
    this.draining = true;
    this.wakeGetters();
    if (this.processing.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.drainWaiters.push(resolve));
  }

  shuttingDown(): boolean {
    return this.stopping;
  }

  private take(): QueueItem<K> {
    const key = this.queue.shift() as K;
    this.processing.add(key);
    this.dirty.delete(key);
    return { key, shutdown: false };
  }

  /** Gives queued keys to waiting getters. */
  private handOut(): void {
    while (this.getters.length > 0 && this.queue.length > 0) {
      const resolve = this.getters.shift();
      resolve?.(this.take());
    }
  }

  /** While shutting down with an empty queue, every waiting getter learns of the shutdown. */
  private wakeGetters(): void {
    if (this.queue.length > 0) return;
    for (const resolve of this.getters.splice(0)) resolve(SHUTDOWN);
  }

  private releaseDrainWaiters(): void {
    if (this.drainWaiters.length === 0) return;
    if (this.draining && this.processing.size > 0) return;
    for (const resolve of this.drainWaiters.splice(0)) resolve();
  }
}
