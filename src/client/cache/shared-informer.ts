/**
 * SharedIndexInformer (client-go's tools/cache/shared_informer.go): one reflector keeps one indexed cache of a
 * resource, and any number of handlers hear about its changes. The reflector's output is applied here directly
 * (the part client-go does with a DeltaFIFO and HandleDeltas): the cache is updated first, then handlers are told.
 *
 * - An object the cache did not have is an add (isInInitialList while the first list is applied); one it had is an
 *   update. An update that did not change the resourceVersion (a resync, or an unchanged item in a relist) goes only
 *   to handlers whose resync is due.
 * - Objects a relist no longer returns are deleted, and handlers get a DeletedFinalStateUnknown tombstone with the
 *   last state the cache knew.
 * - A handler added after start first gets an add (isInInitialList true) for every cached object.
 * - Each handler may ask for a resync period (at least 1 s); the informer checks at the smallest period asked
 *   before it started, and a handler asking for less after the start gets that period instead.
 */
import { type Clock, realClock } from '../../util/clock.js';
import { type Logger, silentLogger } from '../../util/logger.js';
import type { KubeObject, ListerWatcher } from '../types.js';
import {
  determineResyncPeriod,
  MINIMUM_RESYNC_PERIOD,
  type Notification,
  ProcessorListener,
  type ResourceEventHandler,
  type ResourceEventHandlerRegistration,
  SharedProcessor,
} from './processor.js';
import { Reflector, type ReflectorOptions, type ReflectorStore } from './reflector.js';
import { DeletedFinalStateUnknown, Indexer, type Indexers, type Store } from './store.js';

export interface SharedIndexInformerOptions<T> {
  /** Names the informer in logs, e.g. the resource. */
  name?: string;
  clock?: Clock;
  logger?: Logger;
  /** The resync period (ms) of handlers that do not ask for one; 0 (the default) means no resync at all. */
  resyncPeriod?: number;
  /** Indices besides the namespace index. */
  indexers?: Indexers<T>;
  /** Applied to every object before it is cached (client-go's SetTransform), e.g. to drop managedFields. */
  transform?: (obj: T) => T;
  /** Reflector settings, mainly for tests (page size, backoff, randomness). */
  reflector?: Omit<ReflectorOptions, 'name' | 'clock' | 'logger' | 'resyncPeriod' | 'shouldResync'>;
}

const resourceVersionOf = (obj: KubeObject) => obj.metadata?.resourceVersion ?? '';

export class SharedIndexInformer<T extends KubeObject = KubeObject> {
  readonly name: string;
  private readonly clock: Clock;
  private readonly log: Logger;
  private readonly indexer: Indexer<T>;
  private readonly processor: SharedProcessor<T>;
  private readonly transform: (obj: T) => T;
  private readonly defaultResyncPeriod: number;
  private resyncCheckPeriod: number;
  private reflector: Reflector<T> | undefined;
  private started = false;
  private stopped = false;
  private stopping: Promise<void> | undefined;
  private synced = false;
  private syncWaiters: ((synced: boolean) => void)[] = [];

  constructor(
    private readonly lw: ListerWatcher<T>,
    private readonly opts: SharedIndexInformerOptions<T> = {},
  ) {
    this.name = opts.name ?? 'informer';
    this.clock = opts.clock ?? realClock;
    this.log = (opts.logger ?? silentLogger).child(this.name);
    this.indexer = new Indexer<T>({ indexers: opts.indexers ?? {} });
    this.processor = new SharedProcessor<T>(this.log);
    this.transform = opts.transform ?? ((obj) => obj);
    this.defaultResyncPeriod = opts.resyncPeriod ?? 0;
    this.resyncCheckPeriod = this.defaultResyncPeriod;
  }

  /**
   * Adds a handler; resyncPeriod (ms) overrides the informer's default for it. Throws once the informer has
   * stopped.
   */
  addEventHandler(
    handler: ResourceEventHandler<T>,
    opts: { resyncPeriod?: number } = {},
  ): ResourceEventHandlerRegistration {
    if (this.stopped) throw new Error('handler was not added to shared informer because it has stopped already');
    let resyncPeriod = opts.resyncPeriod ?? this.defaultResyncPeriod;
    if (resyncPeriod > 0) {
      if (resyncPeriod < MINIMUM_RESYNC_PERIOD) {
        this.log.info('Warning: resync period is too small. Changing it to the minimum allowed value', {
          resyncPeriod,
          minimumResyncPeriod: MINIMUM_RESYNC_PERIOD,
        });
        resyncPeriod = MINIMUM_RESYNC_PERIOD;
      }
      if (resyncPeriod < this.resyncCheckPeriod) {
        if (this.started) {
          this.log.info(
            'Warning: resync period is smaller than resync check period and the informer has already started. Changing it to the resync check period',
            { resyncPeriod, resyncCheckPeriod: this.resyncCheckPeriod },
          );
          resyncPeriod = this.resyncCheckPeriod;
        } else {
          this.resyncCheckPeriod = resyncPeriod;
          this.processor.resyncCheckPeriodChanged(resyncPeriod);
        }
      }
    }
    const listener = new ProcessorListener<T>(
      handler,
      resyncPeriod,
      determineResyncPeriod(resyncPeriod, this.resyncCheckPeriod, this.log),
      this.clock.now(),
      this.log,
    );
    this.processor.addListener(listener);
    if (!this.started) return listener;
    for (const obj of this.indexer.list()) listener.add({ type: 'add', obj, isInInitialList: true });
    if (this.synced) listener.upstreamHasSynced();
    return listener;
  }

  /** Stops notifying the handler behind registration. */
  removeEventHandler(registration: ResourceEventHandlerRegistration): void {
    if (registration instanceof ProcessorListener) this.processor.removeListener(registration);
  }

  /** Starts listing and watching in the background; stops when signal aborts. A second call does nothing. */
  run(signal?: AbortSignal): void {
    if (this.started) {
      this.log.info('Warning: the sharedIndexInformer has started, run more than once is not allowed');
      return;
    }
    if (this.stopped) return;
    this.started = true;
    this.reflector = new Reflector<T>(this.lw, this.deltas, {
      ...this.opts.reflector,
      name: this.name,
      clock: this.clock,
      logger: this.log,
      resyncPeriod: this.resyncCheckPeriod,
      shouldResync: () => this.processor.shouldResync(this.clock.now()),
    });
    this.processor.run();
    this.reflector.run();
    if (signal) {
      if (signal.aborted) void this.stop();
      else signal.addEventListener('abort', () => void this.stop(), { once: true });
    }
  }

  /** Stops the reflector and the handlers (notifications not yet delivered are dropped). */
  stop(): Promise<void> {
    if (!this.stopping) {
      this.stopped = true;
      this.stopping = (async () => {
        await this.reflector?.stop();
        this.processor.stop();
        for (const resolve of this.syncWaiters.splice(0)) resolve(false);
      })();
    }
    return this.stopping;
  }

  hasStarted(): boolean {
    return this.started;
  }

  isStopped(): boolean {
    return this.stopped;
  }

  /** True once the first list has been applied to the cache. */
  hasSynced(): boolean {
    return this.synced;
  }

  /** Resolves true once synced, false if the informer stops first. */
  whenSynced(): Promise<boolean> {
    if (this.synced) return Promise.resolve(true);
    if (this.stopped) return Promise.resolve(false);
    return new Promise((resolve) => this.syncWaiters.push(resolve));
  }

  /** The resourceVersion the cache is at ('' before the first list). */
  lastSyncResourceVersion(): string {
    return this.reflector?.lastSyncResourceVersion() ?? '';
  }

  getStore(): Store<T> {
    return this.indexer;
  }

  getIndexer(): Indexer<T> {
    return this.indexer;
  }

  /** Adds indices (existing objects are indexed at once); throws once stopped or on a name conflict. */
  addIndexers(indexers: Indexers<T>): void {
    if (this.stopped) throw new Error('indexer was not added because it has stopped already');
    this.indexer.addIndexers(indexers);
  }

  /** Where the reflector writes: apply to the cache, then notify. */
  private readonly deltas: ReflectorStore<T> = {
    add: (obj) => this.addOrUpdate(this.transform(obj), false),
    update: (obj) => this.addOrUpdate(this.transform(obj), false),
    delete: (obj) => {
      const transformed = this.transform(obj);
      if (this.indexer.get(transformed) === undefined) return;
      this.indexer.delete(transformed);
      this.notify({ type: 'delete', obj: transformed }, false);
    },
    replace: (items) => {
      const isInInitialList = !this.synced;
      const listed = new Set<string>();
      for (const item of items) {
        const obj = this.transform(item);
        listed.add(this.indexer.keyOf(obj));
        this.addOrUpdate(obj, isInInitialList);
      }
      for (const key of this.indexer.listKeys()) {
        if (listed.has(key)) continue;
        const last = this.indexer.getByKey(key) as T;
        this.indexer.delete(last);
        this.notify({ type: 'delete', obj: new DeletedFinalStateUnknown(key, last) }, false);
      }
      if (!this.synced) this.markSynced();
    },
    resync: () => {
      for (const obj of this.indexer.list()) this.notify({ type: 'update', oldObj: obj, newObj: obj }, true);
    },
  };

  private addOrUpdate(obj: T, isInInitialList: boolean): void {
    const old = this.indexer.get(obj);
    if (old !== undefined) {
      this.indexer.update(obj);
      this.notify({ type: 'update', oldObj: old, newObj: obj }, resourceVersionOf(old) === resourceVersionOf(obj));
    } else {
      this.indexer.add(obj);
      this.notify({ type: 'add', obj, isInInitialList }, false);
    }
  }

  private notify(n: Notification<T>, isSync: boolean): void {
    this.processor.distribute(n, isSync);
  }

  private markSynced(): void {
    this.synced = true;
    this.processor.upstreamHasSynced();
    for (const resolve of this.syncWaiters.splice(0)) resolve(true);
  }
}
