/**
 * How a shared informer fans notifications out to its handlers (client-go's sharedProcessor and
 * processorListener). Each handler has its own unbounded buffer and gets its notifications in order, a little after
 * the cache changed (on the microtask queue), never inside the informer's own processing. A handler that throws is
 * logged and does not stop the others or the informer. Resync notifications go only to the handlers whose resync
 * period is due.
 */
import type { Logger } from '../../util/logger.js';
import type { KubeObject } from '../types.js';
import type { DeletedFinalStateUnknown } from './store.js';

/** What a handler may implement (client-go's ResourceEventHandlerFuncs: each one optional). */
export interface ResourceEventHandler<T = KubeObject> {
  /** isInInitialList: the object came with the informer's first list (or is an existing item for a late handler). */
  onAdd?(obj: T, isInInitialList: boolean): void;
  /** Also called on resync with the same object twice. */
  onUpdate?(oldObj: T, newObj: T): void;
  /** Gets a DeletedFinalStateUnknown when the deletion was noticed only by a relist. */
  onDelete?(obj: T | DeletedFinalStateUnknown<T>): void;
}

/** The handle addEventHandler returns. */
export interface ResourceEventHandlerRegistration {
  /** True once the informer has synced and this handler has been given every item of the initial list. */
  hasSynced(): boolean;
  /** Resolves true once hasSynced(), false if the informer stopped first. */
  whenSynced(): Promise<boolean>;
}

export type Notification<T> =
  | { type: 'add'; obj: T; isInInitialList: boolean }
  | { type: 'update'; oldObj: T; newObj: T }
  | { type: 'delete'; obj: T | DeletedFinalStateUnknown<T> };

/** client-go's minimumResyncPeriod. */
export const MINIMUM_RESYNC_PERIOD = 1000;

/** The resync period a handler really gets, given the informer's resync check period. */
export function determineResyncPeriod(desired: number, check: number, log: Logger): number {
  if (desired === 0) return 0;
  if (check === 0) {
    log.info("Warning: the specified resyncPeriod is invalid because this shared informer doesn't support resyncing", {
      desired,
    });
    return 0;
  }
  if (desired < check) {
    log.info('Warning: the specified resyncPeriod is being increased to the minimum resyncCheckPeriod', {
      desired,
      resyncCheckPeriod: check,
    });
    return check;
  }
  return desired;
}

export class ProcessorListener<T> implements ResourceEventHandlerRegistration {
  private buffer: Notification<T>[] = [];
  private head = 0;
  private scheduled = false;
  private running = false;
  private stopped = false;
  /** Initial-list adds given to this listener and not yet handled. */
  private initialPending = 0;
  private upstreamSynced = false;
  private syncWaiters: ((synced: boolean) => void)[] = [];
  resyncPeriod: number;
  private nextResync = 0;

  constructor(
    private readonly handler: ResourceEventHandler<T>,
    readonly requestedResyncPeriod: number,
    resyncPeriod: number,
    now: number,
    private readonly log: Logger,
  ) {
    this.resyncPeriod = resyncPeriod;
    this.determineNextResync(now);
  }

  add(n: Notification<T>): void {
    if (this.stopped) return;
    if (n.type === 'add' && n.isInInitialList) this.initialPending++;
    this.buffer.push(n);
    this.schedule();
  }

  /** Starts delivering what is buffered and what comes later. */
  start(): void {
    this.running = true;
    this.schedule();
  }

  stop(): void {
    this.stopped = true;
    this.buffer = [];
    this.head = 0;
    for (const resolve of this.syncWaiters.splice(0)) resolve(false);
  }

  upstreamHasSynced(): void {
    this.upstreamSynced = true;
    this.checkSynced();
  }

  hasSynced(): boolean {
    return this.upstreamSynced && this.initialPending === 0;
  }

  whenSynced(): Promise<boolean> {
    if (this.hasSynced()) return Promise.resolve(true);
    if (this.stopped) return Promise.resolve(false);
    return new Promise((resolve) => this.syncWaiters.push(resolve));
  }

  shouldResync(now: number): boolean {
    return this.resyncPeriod !== 0 && now >= this.nextResync;
  }

  determineNextResync(now: number): void {
    this.nextResync = now + this.resyncPeriod;
  }

  private schedule(): void {
    if (this.scheduled || !this.running || this.stopped) return;
    this.scheduled = true;
    queueMicrotask(() => this.drain());
  }

  private drain(): void {
    this.scheduled = false;
    while (!this.stopped && this.head < this.buffer.length) {
      const n = this.buffer[this.head] as Notification<T>;
      this.buffer[this.head] = undefined as never;
      this.head++;
      this.deliver(n);
      if (n.type === 'add' && n.isInInitialList) {
        this.initialPending--;
        this.checkSynced();
      }
    }
    if (!this.stopped) {
      this.buffer = [];
      this.head = 0;
    }
  }

  private deliver(n: Notification<T>): void {
    try {
      let result: unknown;
      if (n.type === 'add') result = this.handler.onAdd?.(n.obj, n.isInInitialList);
      else if (n.type === 'update') result = this.handler.onUpdate?.(n.oldObj, n.newObj);
      else result = this.handler.onDelete?.(n.obj);
      if (result && typeof (result as Promise<unknown>).then === 'function') {
        (result as Promise<unknown>).then(undefined, (err: unknown) => this.failed(n, err));
      }
    } catch (err) {
      this.failed(n, err);
    }
  }

  private failed(n: Notification<T>, err: unknown): void {
    this.log.error('Event handler failed', {
      notification: n.type,
      err: err instanceof Error ? err.message : String(err),
    });
  }

  private checkSynced(): void {
    if (!this.hasSynced()) return;
    for (const resolve of this.syncWaiters.splice(0)) resolve(true);
  }
}

export class SharedProcessor<T> {
  /** Each listener, with whether it takes part in the current resync. */
  private readonly listeners = new Map<ProcessorListener<T>, boolean>();
  private started = false;

  constructor(private readonly log: Logger) {}

  addListener(listener: ProcessorListener<T>): void {
    this.listeners.set(listener, false);
    if (this.started) listener.start();
  }

  removeListener(listener: ProcessorListener<T>): boolean {
    if (!this.listeners.delete(listener)) return false;
    listener.stop();
    return true;
  }

  has(listener: ProcessorListener<T>): boolean {
    return this.listeners.has(listener);
  }

  /** Gives n to every listener, or, for a resync notification, to those resyncing now. */
  distribute(n: Notification<T>, isSync: boolean): void {
    for (const [listener, syncing] of this.listeners) if (!isSync || syncing) listener.add(n);
  }

  run(): void {
    this.started = true;
    for (const listener of this.listeners.keys()) listener.start();
  }

  stop(): void {
    for (const listener of this.listeners.keys()) listener.stop();
    this.listeners.clear();
    this.started = false;
  }

  upstreamHasSynced(): void {
    for (const listener of this.listeners.keys()) listener.upstreamHasSynced();
  }

  /** Marks the listeners whose resync is due (and schedules their next one); true when there is any. */
  shouldResync(now: number): boolean {
    let any = false;
    for (const listener of this.listeners.keys()) {
      const due = listener.shouldResync(now);
      this.listeners.set(listener, due);
      if (due) {
        any = true;
        listener.determineNextResync(now);
      }
    }
    return any;
  }

  resyncCheckPeriodChanged(period: number): void {
    for (const listener of this.listeners.keys()) {
      listener.resyncPeriod = determineResyncPeriod(listener.requestedResyncPeriod, period, this.log);
    }
  }
}
