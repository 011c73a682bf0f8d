/**
 * The Reflector (client-go's tools/cache/reflector.go): keeps a store in step with one resource on the server by
 * listing it, then watching from the list's resourceVersion.
 *
 * - The first list asks for resourceVersion "0" (any version the server's cache has), in pages of 500. Later lists
 *   ask for the last version seen (not older than what we had), unpaged so the watch cache can answer, unless the
 *   server paged the first answer; a list whose version is gone (410) is retried at once with "" (the newest).
 * - The watch asks for bookmarks and a random timeout of 5 to 10 minutes, to spread reconnects; every event,
 *   bookmarks included, moves the last seen resourceVersion. When the server ends a watch, the next one starts
 *   from there.
 * - A watch that fails with 410 Gone (an ERROR event or a rejected request), or any other error, ends the round: the
 *   reflector waits a backoff (800 ms doubling to 30 s, with jitter, reset after two quiet minutes) and lists
 *   again. Connection refused and 429 on opening a watch back off and re-watch without listing.
 * - While watching, every resyncPeriod it asks the store to resync (when shouldResync says so).
 */

import { type BackoffOptions, ExponentialBackoff } from '../../util/backoff.js';
import type { Clock, TimerHandle } from '../../util/clock.js';
import { realClock } from '../../util/clock.js';
import { type Logger, silentLogger } from '../../util/logger.js';
import { ApiError, isGone, type KubeObject, type ListerWatcher, type ListOptions, type WatchStream } from '../types.js';

/** What the reflector writes to: the informer's processing, or a plain store. */
export interface ReflectorStore<T> {
  add(obj: T): void;
  update(obj: T): void;
  delete(obj: T): void;
  replace(items: T[], resourceVersion: string): void;
  resync(): void;
}

export interface ReflectorOptions {
  /** Names the reflector in logs. */
  name?: string;
  clock?: Clock;
  logger?: Logger;
  /** Milliseconds between resyncs while watching; 0 (the default) for none. */
  resyncPeriod?: number;
  /** Asked before each resync; resyncs when it answers true (always, when not given). */
  shouldResync?: () => boolean;
  /** Page size of lists (client-go's WatchListPageSize); by default 500 for the first list, as described above. */
  pageSize?: number;
  /** Watch timeouts are random between this and twice this; 300 s by default, and never less. */
  minWatchTimeoutSeconds?: number;
  backoff?: BackoffOptions;
  /** [0, 1), for the watch timeout and the backoff jitter; Math.random by default. */
  random?: () => number;
  /** Called with what ended a list-and-watch round in failure; logs by default. */
  watchErrorHandler?: (err: unknown) => void;
}

/** client-go's default page size for lists. */
export const DEFAULT_PAGE_SIZE = 500;
const DEFAULT_MIN_WATCH_TIMEOUT_SECONDS = 300;

/** A watch that ended within a second without any event: something is wrong, so the reflector backs off. */
export class VeryShortWatchError extends Error {
  constructor(name: string) {
    super(`very short watch: ${name}: Unexpected watch close - watch lasted less than a second and no items received`);
    this.name = 'VeryShortWatchError';
  }
}

/** 410 Gone or reason Expired: the resourceVersion asked for has been compacted away. */
export const isExpiredError = isGone;

/** The server has not yet reached the resourceVersion asked for. */
export function isTooLargeResourceVersionError(err: unknown): boolean {
  if (!(err instanceof ApiError)) return false;
  const causes = err.status.details?.causes ?? [];
  if (causes.some((c) => c.type === 'ResourceVersionTooLarge')) return true;
  if (err.reason !== 'Timeout') return false;
  return (
    causes.some((c) => c.message === 'Too large resource version') ||
    (err.status.message ?? '').includes('Too large resource version')
  );
}

const isTooManyRequests = (err: unknown) =>
  err instanceof ApiError && (err.code === 429 || err.reason === 'TooManyRequests');

function isConnectionRefused(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e && typeof e === 'object' && depth < 5; depth++) {
    if ((e as { code?: unknown }).code === 'ECONNREFUSED') return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}

/** Errors on opening a watch after which re-watching (after a backoff) is better than listing again. */
export const isWatchErrorRetriable = (err: unknown) => isConnectionRefused(err) || isTooManyRequests(err);

const STOPPED: unique symbol = Symbol('stopped');

export class Reflector<T extends KubeObject = KubeObject> {
  readonly name: string;
  private readonly clock: Clock;
  private readonly log: Logger;
  private readonly backoff: ExponentialBackoff;
  private readonly random: () => number;
  private readonly minWatchTimeout: number;
  private readonly watchErrorHandler: (err: unknown) => void;
  private lastSyncRv = '';
  /** The last list or watch said our version is gone or too new: list at "" next. */
  private rvUnavailable = false;
  /** The first list came back in pages: the server pages, so keep paging. */
  private paginatedResult = false;
  private stopped = false;
  private running: Promise<void> | undefined;
  private resolveStopped!: (v: typeof STOPPED) => void;
  private readonly stoppedSignal = new Promise<typeof STOPPED>((resolve) => {
    this.resolveStopped = resolve;
  });
  private currentWatch: WatchStream<T> | undefined;
  private wakeSleeper: (() => void) | undefined;
  private resyncTimer: TimerHandle | undefined;

  constructor(
    private readonly lw: ListerWatcher<T>,
    private readonly store: ReflectorStore<T>,
    private readonly opts: ReflectorOptions = {},
  ) {
    this.name = opts.name ?? 'reflector';
    this.clock = opts.clock ?? realClock;
    this.log = opts.logger ?? silentLogger;
    this.random = opts.random ?? Math.random;
    this.backoff = new ExponentialBackoff(this.clock, { random: this.random, ...opts.backoff });
    this.minWatchTimeout = Math.max(DEFAULT_MIN_WATCH_TIMEOUT_SECONDS, opts.minWatchTimeoutSeconds ?? 0);
    this.watchErrorHandler = opts.watchErrorHandler ?? ((err) => this.defaultWatchErrorHandler(err));
  }

  /** Starts listing and watching in the background until stop(). */
  run(): void {
    if (this.running || this.stopped) return;
    this.running = this.loop();
  }

  /** Stops, closes the open watch, and resolves once the background loop has ended. */
  async stop(): Promise<void> {
    if (!this.stopped) {
      this.stopped = true;
      this.resolveStopped(STOPPED);
      this.currentWatch?.close();
      this.wakeSleeper?.();
      this.resyncTimer?.cancel();
    }
    await this.running;
  }

  /** The resourceVersion of the last list or watch event seen ('' before the first list). */
  lastSyncResourceVersion(): string {
    return this.lastSyncRv;
  }

  private async loop(): Promise<void> {
    this.log.v(3).info('Starting reflector', { reflector: this.name, resyncPeriod: this.opts.resyncPeriod ?? 0 });
    while (!this.stopped) {
      try {
        await this.listAndWatch();
      } catch (err) {
        if (!this.stopped) this.watchErrorHandler(err);
      }
      if (this.stopped) break;
      await this.sleep(this.backoff.next());
    }
    this.log.v(3).info('Stopping reflector', { reflector: this.name });
  }

  private async listAndWatch(): Promise<void> {
    this.log.v(3).info('Listing and watching', { reflector: this.name });
    if (!(await this.list())) return;
    this.log.v(2).info('Caches populated', { reflector: this.name });
    this.startResync();
    try {
      await this.watch();
    } finally {
      this.resyncTimer?.cancel();
      this.resyncTimer = undefined;
    }
  }

  /** Lists and replaces the store's content; false when stopped meanwhile. */
  private async list(): Promise<boolean> {
    const rv = this.relistResourceVersion();
    let pageSize = DEFAULT_PAGE_SIZE;
    if (this.opts.pageSize) pageSize = this.opts.pageSize;
    else if (!this.paginatedResult && rv !== '' && rv !== '0') pageSize = 0;
    let result: PagedList<T> | typeof STOPPED;
    try {
      result = await this.pagedList(rv, pageSize);
    } catch (err) {
      if (this.stopped) return false;
      if (!isExpiredError(err) && !isTooLargeResourceVersionError(err)) throw err;
      this.rvUnavailable = true;
      result = await this.pagedList(this.relistResourceVersion(), pageSize);
    }
    if (result === STOPPED || this.stopped) return false;
    if (rv === '0' && result.paginated) this.paginatedResult = true;
    this.rvUnavailable = false;
    this.store.replace(result.items, result.resourceVersion);
    this.lastSyncRv = result.resourceVersion;
    return true;
  }

  /** Lists in pages as client-go's pager does; a continuation that expired falls back to one full list. */
  private async pagedList(rv: string, pageSize: number): Promise<PagedList<T> | typeof STOPPED> {
    const first: ListOptions = withRv({}, rv);
    if (pageSize > 0) first.limit = pageSize;
    let opts = first;
    const items: T[] = [];
    let resourceVersion: string | undefined;
    let paginated = false;
    for (;;) {
      let page: Awaited<ReturnType<ListerWatcher<T>['list']>> | typeof STOPPED;
      try {
        page = await this.race(this.lw.list(opts));
      } catch (err) {
        if (!(err instanceof ApiError && err.reason === 'Expired') || !opts.continue) throw err;
        const full = await this.race(this.lw.list(withRv({}, rv)));
        if (full === STOPPED) return STOPPED;
        return { items: full.items ?? [], resourceVersion: full.metadata?.resourceVersion ?? '', paginated };
      }
      if (page === STOPPED) return STOPPED;
      resourceVersion ??= page.metadata?.resourceVersion ?? '';
      for (const item of page.items ?? []) items.push(item);
      const next = page.metadata?.continue;
      if (!next) return { items, resourceVersion, paginated };
      opts = { ...(pageSize > 0 ? { limit: pageSize } : {}), continue: next };
      paginated = true;
    }
  }

  /** Watches until the round should end in a relist; returns early when stopped. */
  private async watch(): Promise<void> {
    while (!this.stopped) {
      const start = this.clock.now();
      const rv = this.lastSyncRv;
      const max = 2 * this.minWatchTimeout;
      const opts: ListOptions = withRv({}, rv);
      opts.timeoutSeconds = Math.floor(this.minWatchTimeout + this.random() * (max - this.minWatchTimeout));
      opts.allowWatchBookmarks = true;
      // From "" or "0" the server first sends synthetic ADDED events in no particular order.
      const propagateRvFromStart = rv !== '' && rv !== '0';
      let pending: Promise<WatchStream<T>> | undefined;
      let stream: WatchStream<T> | typeof STOPPED;
      try {
        pending = this.lw.watch(opts);
        stream = await this.race(pending);
      } catch (err) {
        if (this.stopped) return;
        if (isWatchErrorRetriable(err)) {
          this.log.v(4).info('Watch failed - backing off', { reflector: this.name, err: String(err) });
          await this.sleep(this.backoff.next());
          continue;
        }
        throw err;
      }
      if (stream === STOPPED || this.stopped) {
        void pending?.then(
          (s) => s.close(),
          () => {},
        );
        return;
      }
      this.currentWatch = stream;
      let error: unknown;
      try {
        await this.handleWatch(stream, start, propagateRvFromStart);
      } catch (err) {
        error = err;
      } finally {
        stream.close();
        this.currentWatch = undefined;
      }
      if (this.stopped || error === undefined) continue;
      if (isExpiredError(error)) {
        this.log.v(4).info('Watch closed', { reflector: this.name, err: String(error) });
      } else if (isTooManyRequests(error)) {
        this.log.v(2).info('Watch returned 429 - backing off', { reflector: this.name });
        await this.sleep(this.backoff.next());
        continue;
      } else {
        this.log.info('Warning: watch ended with error', { reflector: this.name, err: String(error) });
      }
      return;
    }
  }

  /** Applies a watch's events to the store until it ends; throws for an ERROR event or a very short watch. */
  private async handleWatch(stream: WatchStream<T>, start: number, propagateRvFromStart: boolean): Promise<void> {
    let eventCount = 0;
    let besidesAdded = false;
    try {
      for await (const event of stream) {
        if (this.stopped) return;
        if (event.type === 'ERROR') throw ApiError.fromStatus(event.object);
        const meta = event.object?.metadata;
        if (meta == null || typeof meta !== 'object') {
          this.log.error('Unable to understand watch event', { reflector: this.name, type: event.type });
          continue;
        }
        switch (event.type) {
          case 'ADDED':
            this.apply('add', event.object);
            break;
          case 'MODIFIED':
            besidesAdded = true;
            this.apply('update', event.object);
            break;
          case 'DELETED':
            besidesAdded = true;
            this.apply('delete', event.object);
            break;
          case 'BOOKMARK':
            besidesAdded = true;
            break;
          default:
            this.log.error('Unknown watch event', { reflector: this.name, type: String(event.type) });
        }
        if (propagateRvFromStart || besidesAdded) this.lastSyncRv = meta.resourceVersion ?? this.lastSyncRv;
        eventCount++;
      }
    } catch (err) {
      if (err instanceof ApiError || this.stopped) throw err;
      // A stream that broke (connection reset, unexpected end) counts as a normal end, as client-go's does.
      this.log.v(4).info('Watch stream ended', { reflector: this.name, err: String(err) });
    }
    if (!this.stopped && eventCount === 0 && this.clock.now() - start < 1000) throw new VeryShortWatchError(this.name);
    this.log.v(4).info('Watch close', { reflector: this.name, totalItems: eventCount });
  }

  private apply(op: 'add' | 'update' | 'delete', obj: T): void {
    try {
      this.store[op](obj);
    } catch (err) {
      this.log.error(`Unable to ${op} watch event object in store`, { reflector: this.name, err: String(err) });
    }
  }

  private relistResourceVersion(): string {
    if (this.rvUnavailable) return '';
    return this.lastSyncRv === '' ? '0' : this.lastSyncRv;
  }

  private startResync(): void {
    const period = this.opts.resyncPeriod ?? 0;
    if (!(period > 0) || this.stopped) return;
    this.resyncTimer = this.clock.after(period, () => {
      if (this.stopped) return;
      if (this.opts.shouldResync?.() ?? true) {
        this.log.v(4).info('Forcing resync', { reflector: this.name });
        try {
          this.store.resync();
        } catch (err) {
          this.log.error('Resync failed', { reflector: this.name, err: String(err) });
        }
      }
      this.startResync();
    });
  }

  private defaultWatchErrorHandler(err: unknown): void {
    if (isExpiredError(err)) {
      this.log.v(4).info('Watch closed', { reflector: this.name, err: String(err) });
    } else {
      this.log.error('Failed to watch', { reflector: this.name, err: String(err) });
    }
  }

  /** Resolves with p, or with STOPPED as soon as the reflector stops (p's late outcome is then ignored). */
  private race<R>(p: Promise<R>): Promise<R | typeof STOPPED> {
    p.catch(() => {});
    return Promise.race([p, this.stoppedSignal]);
  }

  private sleep(ms: number): Promise<void> {
    if (this.stopped) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = this.clock.after(ms, () => {
        this.wakeSleeper = undefined;
        resolve();
      });
      this.wakeSleeper = () => {
        timer.cancel();
        this.wakeSleeper = undefined;
        resolve();
      };
    });
  }
}

interface PagedList<T> {
  items: T[];
  resourceVersion: string;
  paginated: boolean;
}

/** Sets resourceVersion unless it is '' (which the server reads as unset anyway). */
function withRv(opts: ListOptions, rv: string): ListOptions {
  if (rv !== '') opts.resourceVersion = rv;
  return opts;
}
