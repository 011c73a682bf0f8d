import type { Logger } from '../util/logger.js';
import { errors, type StorageError, type Watch, type WatchEvent, type WatchListener } from './types.js';

interface Subscriber {
  prefix: string;
  listener: WatchListener;
  open: boolean;
}

/**
 * Fans committed changes out to in-process watchers, for the backends that commit in this process (memory, sqlite).
 *
 * Deliveries are queued and drained in one loop on a microtask (never inside the caller's own stack), so a listener
 * that writes to the store from inside its callback cannot make another watcher see events out of order.
 */
export class WatchHub {
  private subscribers = new Set<Subscriber>();
  private queue: Array<() => void> = [];
  private draining = false;

  constructor(private readonly log: Logger) {}

  /**
   * Registers a watcher. backlog() runs at once and returns the changes after afterRevision that are already
   * committed (or throws Compacted); they are delivered before anything published later.
   */
  subscribe(prefix: string, listener: WatchListener, backlog: () => WatchEvent[]): Watch {
    const sub: Subscriber = { prefix, listener, open: true };
    let events: WatchEvent[];
    try {
      events = backlog();
    } catch (err) {
      this.enqueue(() => this.fail(sub, err as StorageError));
      return { close: () => this.remove(sub) };
    }
    this.subscribers.add(sub);
    if (events.length > 0) this.enqueue(() => this.deliver(sub, events));
    return { close: () => this.remove(sub) };
  }

  /** Delivers committed changes, in revision order, to every watcher whose prefix they fall under. */
  publish(events: WatchEvent[]): void {
    if (events.length === 0 || this.subscribers.size === 0) return;
    for (const sub of this.subscribers) {
      const mine = events.filter((e) => e.key.startsWith(sub.prefix));
      if (mine.length > 0) this.enqueue(() => this.deliver(sub, mine));
    }
  }

  /** Ends every watch with Closed. */
  closeAll(): void {
    for (const sub of this.subscribers) this.enqueue(() => this.fail(sub, errors.closed()));
    this.subscribers.clear();
  }

  get size(): number {
    return this.subscribers.size;
  }

  private remove(sub: Subscriber): void {
    sub.open = false;
    this.subscribers.delete(sub);
  }

  private deliver(sub: Subscriber, events: WatchEvent[]): void {
    for (const e of events) {
      if (!sub.open) return;
      try {
        sub.listener.onEvent(e);
      } catch (err) {
        this.log.error('watch listener threw', { prefix: sub.prefix, err: String(err) });
      }
    }
  }

  private fail(sub: Subscriber, err: StorageError): void {
    if (!sub.open) return;
    sub.open = false;
    this.subscribers.delete(sub);
    try {
      sub.listener.onError(err);
    } catch (e) {
      this.log.error('watch listener threw', { prefix: sub.prefix, err: String(e) });
    }
  }

  private enqueue(task: () => void): void {
    this.queue.push(task);
    if (this.draining) return;
    this.draining = true;
    queueMicrotask(() => this.drain());
  }

  private drain(): void {
    try {
      for (let i = 0; i < this.queue.length; i++) this.queue[i]?.();
    } finally {
      this.queue = [];
      this.draining = false;
    }
  }
}
