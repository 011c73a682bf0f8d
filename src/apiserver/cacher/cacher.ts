import { type StatusError, statusErrors } from '../../api/status-error.js';
import type { Store, WatchEvent } from '../../storage/types.js';
import { ExponentialBackoff } from '../../util/backoff.js';
import { type Clock, realClock } from '../../util/clock.js';
import type { Logger } from '../../util/logger.js';
import { storedJsonWithRevision, writtenObjectOf } from '../registry/codec.js';
import { deepFreeze, type KubeObject } from '../registry/object.js';

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK';

/**
 * A change in the window. Objects are kept as the stored bytes (JSON) and decoded when a watcher needs them: a
 * decoded object costs several times its JSON in memory, and the cache holds every object of a resource. Bytes
 * rather than strings: a Buffer's contents live outside V8's heap, so they are allocated at their exact size and do
 * not make the garbage-collected heap (and the headroom V8 keeps above it) grow with the number of objects.
 */
interface CachedEvent {
  type: 'ADDED' | 'MODIFIED' | 'DELETED';
  key: string;
  /** The new state, or for DELETED the last state. */
  value: Buffer;
  /** The state before, for MODIFIED and DELETED. */
  prevValue: Buffer | undefined;
  revision: number;
  /** When the cache received it (milliseconds since the epoch), which sizes the window. */
  recordTime: number;
}

interface Stored {
  value: Buffer;
  revision: number;
  /** The object's value of the indexed field, once an event has needed it (saves decoding it as a previous state). */
  indexValue?: string;
  /** The decoded object, frozen, once a reader that only looks has asked for it (see getShared). */
  shared?: KubeObject;
}

/**
 * The bytes in a memory block of their own. A value may be a view into a larger block (a gRPC message holding many
 * events, or Node's shared pool for small buffers); keeping the view would keep the whole block alive.
 */
function own(value: Buffer): Buffer {
  if (value.byteOffset === 0 && value.buffer.byteLength === value.length) return value;
  const copy = Buffer.allocUnsafeSlow(value.length);
  value.copy(copy);
  return copy;
}

/** The decoded objects of one event, computed once however many watchers look. */
class EventView {
  private obj: KubeObject | undefined;
  private prev: KubeObject | undefined | null = null;

  constructor(
    readonly event: CachedEvent,
    private readonly decode: (value: Buffer, revision: number) => KubeObject,
    /** The new state, when this process wrote it and kept the object (no decoding needed). */
    written?: KubeObject,
  ) {
    this.obj = written;
  }

  /** Whether a watcher (or the index) asked for the new state. */
  private used = false;

  get object(): KubeObject {
    this.used = true;
    this.obj ??= this.decode(this.event.value, this.event.revision);
    return this.obj;
  }

  /**
   * The new state if some watcher asked for it (decoded, or as this process wrote it), without decoding it
   * otherwise: objects no watcher looks at (an unbound pod) are not worth keeping for a next update, which may never
   * come, and keeping them would only lengthen their lives.
   */
  get usedObject(): KubeObject | undefined {
    return this.used ? this.obj : undefined;
  }

  private encoded: Buffer | undefined;
  private prevEncoded: Buffer | undefined;

  /** The object as JSON with its resourceVersion: the stored bytes spliced, computed once for every watcher. */
  get json(): Buffer {
    this.encoded ??= this.withRevision(this.event.value, () => this.object);
    return this.encoded;
  }

  /** The state before the change as JSON, with the change's resourceVersion (for a watcher it stopped matching). */
  get prevJson(): Buffer {
    this.prevEncoded ??= this.withRevision(
      this.event.prevValue ?? this.event.value,
      () => this.prevObject ?? this.object,
    );
    return this.prevEncoded;
  }

  private withRevision(value: Buffer, decoded: () => KubeObject): Buffer {
    const raw = storedJsonWithRevision(value, this.event.revision);
    return raw ? Buffer.concat(raw.parts) : Buffer.from(JSON.stringify(decoded()));
  }

  get prevObject(): KubeObject | undefined {
    if (this.prev === null) {
      this.prev =
        this.event.prevValue === undefined ? undefined : this.decode(this.event.prevValue, this.event.revision);
    }
    return this.prev;
  }
}

export interface CacheWatchRequest {
  /** Events after this revision; undefined: first the current state as ADDED events, then changes. */
  fromRevision: number | undefined;
  /** Only keys under this prefix (a namespace, or the whole resource). */
  prefix: string;
  /** Which objects the watcher wants; an object that stops matching is sent to it as DELETED. */
  matches: (obj: KubeObject) => boolean;
  /**
   * A test of the stored bytes asked before anything is decoded: a value that fails it does not match, and is never
   * decoded for this watcher (a cheap necessary condition of matches, e.g. that a pod is bound to a node).
   */
  matchesStored?: (value: Buffer) => boolean;
  /**
   * matchesStored alone decides what the watcher wants (matches is not asked): the state before a change is then
   * never decoded to learn whether it matched.
   */
  storedTestDecides?: boolean;
  /**
   * A change the watcher can tell, from its type, key and stored bytes (the state it is sent in), it has no use for:
   * it is neither decoded for the watcher nor given to it (e.g. an update of a pod that changes nothing the Node
   * authorizer's graph keeps).
   */
  skipStored?(type: WatchEventType, key: string, value: Buffer): boolean;
  /**
   * A change as the watcher sees it. The object is shared (with every watcher of the change, and afterwards with the
   * object's next update, see takeRecent): read it while handling the change; never change or keep it.
   */
  onEvent(type: WatchEventType, object: KubeObject, revision: number): void;
  /**
   * When set, changes after the start are given to this instead of onEvent, as the object's JSON (the stored bytes
   * with the resourceVersion spliced in, never decoded and encoded again): for a watcher that writes objects as
   * they are stored.
   */
  onEncodedEvent?(type: WatchEventType, json: Buffer, revision: number): void;
  /** The watcher wants every object under the prefix: matches is not asked, and nothing is decoded for it. */
  everything?: boolean;
  /**
   * The value of the cache's indexed field that matches requires (a field selector's `spec.nodeName=node-1`): the
   * watcher is offered only changes of objects that have or had this value. Ignored by a cache without an index.
   */
  indexValue?: string;
  /**
   * matches is exactly this test of the indexed field's value (`spec.nodeName=node-1`, `spec.nodeName!=`): the cache
   * decides from the index values it reads once per event, without asking matches, so nothing more is decoded for
   * this watcher. Ignored by a cache without an index.
   */
  indexTest?: (value: string) => boolean;
  /** The watch ended from the cache's side: 'expired' (too old, or the cache was rebuilt) or 'closed'. */
  onEnd(reason: 'expired' | 'closed'): void;
}

/** Whether req wants the object stored as value; object() decodes it, and is not called when the bytes' test fails. */
function wants(req: CacheWatchRequest, value: Buffer, object: () => KubeObject | undefined): boolean {
  if (req.matchesStored && !req.matchesStored(value)) return false;
  if (req.storedTestDecides) return true;
  const obj = object();
  return obj !== undefined && req.matches(obj);
}

export interface CacheWatch {
  /** The revision the watch started from (the snapshot's revision when it began with the current state). */
  readonly startRevision: number;
  stop(): void;
}

interface Watcher {
  req: CacheWatchRequest;
  active: boolean;
  /** The index value the watcher is filed under, when the cache has an index and the watcher gave one. */
  indexValue?: string;
}

export interface CacherOptions {
  /** The fewest recent events the window keeps once it has filled (default 10,000). */
  capacity?: number;
  /** The most recent events the window may grow to (default 102,400, upstream's upper bound). */
  maxCapacity?: number;
  /**
   * How long an event counts as fresh (default 75 s, upstream's: the bookmark period plus 15 s). A full window
   * whose oldest event is fresh doubles, up to maxCapacity, so that a watcher that reconnects within this time
   * can resume however fast changes come; one whose newest quarter is all stale halves, down to capacity.
   */
  freshMs?: number;
  clock?: Clock;
  /** Reads the indexed field of a (stored-form) object, when the resource has one (upstream's trigger function). */
  index?: ((obj: KubeObject) => string) | undefined;
  /**
   * What upstream's cache calls the type it lists, in the error it answers while it cannot load (see
   * cacheTypeDescription); by default the prefix.
   */
  typeDescription?: string;
}

/**
 * The type upstream's watch cache names when its list fails: the Go type of the resource's internal version
 * (`*core.Secret`, `*apps.Deployment`), or for a custom resource its group, version and kind
 * (`stable.example.com/v1, Kind=CronTab`).
 */
export function cacheTypeDescription(group: string, kind: string, customVersion?: string): string {
  if (customVersion !== undefined) return `${group}/${customVersion}, Kind=${kind}`;
  const pkg =
    group === '' || group === 'events.k8s.io'
      ? 'core' // events.k8s.io's Events are core's, stored once
      : group === 'internal.apiserver.k8s.io'
        ? 'apiserverinternal'
        : (group.split('.')[0] as string);
  return `*${pkg}.${kind}`;
}

/** How long a cache that could not load waits before it tries again: from 100 ms, doubling, up to 5 s. */
const RETRY_BACKOFF = { initialMs: 100, maxMs: 5000, jitter: 0 };

/**
 * How many recently changed objects' decoded states the cache keeps for their next update (see takeRecent), how
 * many bytes of stored JSON they may come from together, and the largest one kept: decoded objects cost several
 * times their JSON, and a resource of large objects (custom resource definitions) must not pile them up.
 */
const RECENT_DECODED = 512;
const RECENT_DECODED_BYTES = 4 * 1024 * 1024;
const RECENT_DECODED_MAX_OBJECT_BYTES = 64 * 1024;
/** How many prefixes' lists listSharedNow keeps at most between changes. */
const MAX_KEPT_LISTS = 1024;

/** Thrown when a watch asks for history the cache no longer holds. */
export class TooOldError extends Error {
  constructor(
    readonly requested: number,
    readonly oldest: number,
  ) {
    super(`too old resource version: ${requested} (${oldest})`);
  }
}

/**
 * The watch cache of one resource (ARCHITECTURE.md "A watch"): fed by one storage watch, it keeps every object's
 * current state and a window of recent events, answers LISTs that may be served from memory, and fans events out
 * to any number of watchers, each with its own namespace and selector filter.
 */
export class Cacher {
  private readonly items = new Map<string, Stored>();
  /**
   * The decoded new state of recent changes that a watcher had decoded anyway (the Node authorizer's graph, the
   * index, a selector), by key, at most RECENT_DECODED of them: the next update of the object takes it (once) as its
   * current state instead of reading storage and decoding again. Only the latest change of a key is kept.
   */
  private readonly recentDecoded = new Map<string, { obj: KubeObject; size: number }>();
  /** The stored size of the objects in recentDecoded. */
  private recentDecodedBytes = 0;
  /** The keys of items in order; undefined after a key was added or removed. */
  private sortedKeys: string[] | undefined;
  /** listSharedNow's answers by prefix, for the state at listsRevision. */
  private readonly lists = new Map<string, readonly Readonly<KubeObject>[]>();
  private listsRevision = -1;
  private window: CachedEvent[] = [];
  private windowHead = 0;
  /** The window holds every event after this revision. */
  private windowStart = 0;
  private rev = 0;
  private readonly watchers = new Set<Watcher>();
  /** Watchers without an index value; every change is offered to them. */
  private readonly unindexed = new Set<Watcher>();
  /** How many of the unindexed watchers have an indexTest (the cache then reads index values for every event). */
  private indexTested = 0;
  /** Watchers filed under the index value they require. */
  private readonly indexed = new Map<string, Set<Watcher>>();
  /** The window's current size limit, between minCapacity and maxCapacity. */
  private capacity: number;
  private readonly minCapacity: number;
  private readonly maxCapacity: number;
  private readonly freshMs: number;
  private readonly clock: Clock;
  private readonly index: ((obj: KubeObject) => string) | undefined;
  private storageWatch: { close(): void } | undefined;
  /** The load in flight, if any. */
  private loading: Promise<void> | undefined;
  /** Why the last load failed, while the cache waits to try again (readers fail at once meanwhile). */
  private failure: Error | undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  private readonly retryBackoff = new ExponentialBackoff(realClock, RETRY_BACKOFF);
  /** When the cache was made or last stopped being loaded (its downtime sets the Retry-After of its refusals). */
  private unloadedSince: number;
  private readonly typeDescription: string;
  /** The current state is loaded and followed (readers need not wait for start()). */
  private loaded = false;

  /** Whether the cache holds the current state and follows it (upstream's informer HasSynced). */
  get synced(): boolean {
    return this.loaded;
  }
  private stopped = false;

  constructor(
    private readonly store: Store,
    private readonly prefix: string,
    private readonly decode: (value: Buffer, revision: number) => KubeObject,
    private readonly log: Logger,
    opts: CacherOptions | number = {},
  ) {
    // A bare number is a window of that size exactly.
    const options = typeof opts === 'number' ? { capacity: opts, maxCapacity: opts } : opts;
    this.minCapacity = options.capacity ?? 10_000;
    this.maxCapacity = Math.max(this.minCapacity, options.maxCapacity ?? 102_400);
    this.capacity = this.minCapacity;
    this.freshMs = options.freshMs ?? 75_000;
    this.clock = options.clock ?? realClock;
    this.index = options.index;
    this.typeDescription = options.typeDescription ?? prefix;
    this.unloadedSince = this.clock.now();
  }

  /**
   * Loads the current state and starts following changes; resolves when the cache is usable. A load that fails
   * (storage holds a value that cannot be read, such as one no encryption key opens) is tried again after a while,
   * until it works or the cache stops; until then start(), and so every reader, fails at once with upstream's
   * answer of a watch cache that is not ready: 429 `storage is (re)initializing: failed to list <type>: <why>`.
   */
  start(): Promise<void> {
    if (this.loaded || this.stopped) return Promise.resolve();
    if (this.failure) return Promise.reject(this.unready());
    this.loading ??= this.attemptLoad();
    return this.loading;
  }

  /** One load; when it fails, the next is scheduled and the load's waiters get the refusal. */
  private attemptLoad(): Promise<void> {
    const attempt = this.load().then(
      () => {
        this.loading = undefined;
        this.failure = undefined;
        this.retryBackoff.reset();
      },
      (err: unknown) => {
        this.loading = undefined;
        this.failure = err instanceof Error ? err : new Error(String(err));
        this.log.error('watch cache could not load; trying again', { prefix: this.prefix, err: this.failure.message });
        if (!this.stopped) {
          this.retryTimer = setTimeout(() => {
            this.retryTimer = undefined;
            if (!this.stopped && !this.loaded && !this.loading) this.loading = this.attemptLoad();
          }, this.retryBackoff.next());
          this.retryTimer.unref();
        }
        throw this.unready();
      },
    );
    // A retry nobody waits for must not be an unhandled rejection.
    attempt.catch(() => {});
    return attempt;
  }

  /**
   * Upstream's refusal while its cache is not ready (ResilientWatchCacheInitialization, on in v1.33): 429 with the
   * error of the cache's last list, Retry-After growing with the time the cache has been down (1 s to 30 s).
   */
  private unready(): StatusError {
    const downSeconds = (this.clock.now() - this.unloadedSince) / 1000;
    const retryAfter = Math.trunc(Math.min(30, Math.max(1, Math.exp(0.06 * downSeconds))));
    const why = this.failure ? `: failed to list ${this.typeDescription}: ${this.failure.message}` : '';
    return statusErrors.tooManyRequests(`storage is (re)initializing${why}`, retryAfter);
  }

  get revision(): number {
    return this.rev;
  }

  /** Whether the current state is loaded, so that a reader need not wait for start(). */
  get isLoaded(): boolean {
    return this.loaded;
  }

  get size(): number {
    return this.items.size;
  }

  /** The cached objects under prefix that match, in key order, and the revision they are current at. */
  async list(
    prefix: string,
    matches: (obj: KubeObject) => boolean,
  ): Promise<{ items: KubeObject[]; revision: number }> {
    await this.start();
    const items: KubeObject[] = [];
    for (const k of this.keysUnder(prefix)) {
      const obj = this.objectAt(k) as KubeObject;
      if (matches(obj)) items.push(obj);
    }
    return { items, revision: this.rev };
  }

  /** Every cached object under prefix as its stored bytes and revision, in key order, undecoded. */
  async listStored(prefix: string): Promise<{ items: { value: Buffer; revision: number }[]; revision: number }> {
    await this.start();
    const items = this.keysUnder(prefix).map((k) => this.items.get(k) as Stored);
    return { items, revision: this.rev };
  }

  /** The keys under prefix in order: a range of the sorted key list, which is rebuilt only after keys come or go. */
  private keysUnder(prefix: string): string[] {
    this.sortedKeys ??= [...this.items.keys()].sort();
    const keys = this.sortedKeys;
    let lo = 0;
    let hi = keys.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((keys[mid] as string) < prefix) lo = mid + 1;
      else hi = mid;
    }
    let end = lo;
    while (end < keys.length && (keys[end] as string).startsWith(prefix)) end++;
    return keys.slice(lo, end);
  }

  async get(key: string): Promise<KubeObject | undefined> {
    await this.start();
    return this.objectAt(key);
  }

  /**
   * The object decoded once and frozen, the same one for every caller until it changes: for readers that only look
   * (the admission plugins' lookups of a namespace or a service account on every pod create). Kept with the cached
   * value, so use it for objects read often, not for every object of a large resource.
   */
  async getShared(key: string): Promise<Readonly<KubeObject> | undefined> {
    if (!this.loaded) await this.start();
    return this.getSharedNow(key) ?? undefined;
  }

  /**
   * getShared without waiting: the object, or null when there is none; undefined while the cache has not loaded yet
   * (getShared then waits for it). For the readers on every request, which need not go through a promise.
   */
  getSharedNow(key: string): Readonly<KubeObject> | null | undefined {
    if (!this.loaded) return undefined;
    const stored = this.items.get(key);
    return stored ? this.shared(stored) : null;
  }

  /**
   * The objects under prefix, in key order, each decoded once and frozen as getShared gives them: for readers that
   * only look, at every request, at a resource with few objects (PriorityClasses, LimitRanges, ResourceQuotas).
   */
  async listShared(prefix: string): Promise<readonly Readonly<KubeObject>[]> {
    if (!this.loaded) await this.start();
    // Still not loaded only when the cache was stopped meanwhile: it holds nothing then.
    return this.listSharedNow(prefix) ?? [];
  }

  /**
   * listShared without waiting; undefined while the cache has not loaded yet. Each prefix's answer is kept until
   * the cache changes: admission asks for the same namespace's few objects on every request.
   */
  listSharedNow(prefix: string): readonly Readonly<KubeObject>[] | undefined {
    if (!this.loaded) return undefined;
    if (this.listsRevision !== this.rev || this.lists.size >= MAX_KEPT_LISTS) {
      this.lists.clear();
      this.listsRevision = this.rev;
    }
    let list = this.lists.get(prefix);
    if (!list) {
      list = Object.freeze(this.keysUnder(prefix).map((k) => this.shared(this.items.get(k) as Stored)));
      this.lists.set(prefix, list);
    }
    return list;
  }

  private shared(stored: Stored): Readonly<KubeObject> {
    stored.shared ??= deepFreeze(this.decode(stored.value, stored.revision));
    return stored.shared;
  }

  private objectAt(key: string): KubeObject | undefined {
    const stored = this.items.get(key);
    return stored ? this.decode(stored.value, stored.revision) : undefined;
  }

  async watch(req: CacheWatchRequest): Promise<CacheWatch> {
    await this.start();
    const w: Watcher = { req, active: true };
    let startRevision = this.rev;
    if (req.fromRevision === undefined) {
      for (const k of this.keysUnder(req.prefix)) {
        const stored = this.items.get(k) as Stored;
        let obj: KubeObject | undefined;
        const object = () => {
          obj ??= this.decode(stored.value, stored.revision);
          return obj;
        };
        // wants() may decide from the stored bytes alone without decoding (storedTestDecides).
        if (wants(req, stored.value, object)) req.onEvent('ADDED', object(), this.rev);
      }
    } else {
      if (req.fromRevision < this.windowStart) throw new TooOldError(req.fromRevision, this.windowStart + 1);
      startRevision = req.fromRevision;
      for (const e of this.eventsAfter(req.fromRevision)) this.deliver(w, new EventView(e, this.decode));
    }
    this.addWatcher(w);
    return {
      startRevision,
      stop: () => {
        w.active = false;
        this.removeWatcher(w);
      },
    };
  }

  private addWatcher(w: Watcher): void {
    this.watchers.add(w);
    const value = this.index ? w.req.indexValue : undefined;
    if (value === undefined) {
      this.unindexed.add(w);
      if (w.req.indexTest) this.indexTested++;
      return;
    }
    w.indexValue = value;
    let set = this.indexed.get(value);
    if (!set) {
      set = new Set();
      this.indexed.set(value, set);
    }
    set.add(w);
  }

  private removeWatcher(w: Watcher): void {
    this.watchers.delete(w);
    if (w.indexValue === undefined) {
      if (this.unindexed.delete(w) && w.req.indexTest) this.indexTested--;
      return;
    }
    const set = this.indexed.get(w.indexValue);
    set?.delete(w);
    if (set?.size === 0) this.indexed.delete(w.indexValue);
  }

  stop(): void {
    this.stopped = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.storageWatch?.close();
    for (const w of this.watchers) this.end(w, 'closed');
  }

  private async load(): Promise<void> {
    if (this.loaded) this.unloadedSince = this.clock.now();
    this.loaded = false;
    this.items.clear();
    this.recentDecoded.clear();
    this.recentDecodedBytes = 0;
    this.sortedKeys = undefined;
    this.lists.clear();
    let startKey: string | undefined;
    let revision: number | undefined;
    for (;;) {
      const page = await this.store.list(this.prefix, {
        limit: 1000,
        ...(revision === undefined ? {} : { revision }),
        ...(startKey === undefined ? {} : { startKey }),
      });
      revision = page.revision;
      for (const kv of page.items) this.items.set(kv.key, { value: own(kv.value), revision: kv.modRevision });
      if (!page.more || page.items.length === 0) break;
      startKey = `${page.items[page.items.length - 1]?.key}\u0000`;
    }
    // Stopped while it listed (a retry may have been under way): nothing to follow.
    if (this.stopped) return;
    this.rev = revision ?? 0;
    this.loaded = true;
    this.windowStart = this.rev;
    this.window = [];
    this.windowHead = 0;
    this.capacity = this.minCapacity;
    this.storageWatch = this.store.watch(this.prefix, this.rev, {
      onEvent: (e) => this.apply(e),
      onError: (err) => {
        if (this.stopped) return;
        if (err.code !== 'Closed') {
          this.log.error('watch cache lost its storage watch; reloading', { prefix: this.prefix, err: err.message });
          // The reload starts (and the state is marked unloaded) before the watchers hear of the end, so that one
          // that watches again at once waits for the reloaded state rather than seeing the cleared one.
          this.loading = this.attemptLoad();
        }
        for (const w of this.watchers) this.end(w, err.code === 'Closed' ? 'closed' : 'expired');
      },
    });
  }

  private apply(e: WatchEvent): void {
    const prev = this.items.get(e.key);
    let event: CachedEvent;
    let current: Stored | undefined;
    let written: KubeObject | undefined;
    const recordTime = this.clock.now();
    if (!prev || e.type === 'delete') this.sortedKeys = undefined;
    if (e.type === 'delete') {
      this.items.delete(e.key);
      const last = prev?.value ?? e.prevValue;
      // A deleted object is reported in its last state, with the deletion's revision.
      event = { type: 'DELETED', key: e.key, value: last, prevValue: prev?.value, revision: e.revision, recordTime };
    } else {
      written = writtenObjectOf(e.value, e.revision);
      const value = own(e.value);
      current = { value, revision: e.revision };
      this.items.set(e.key, current);
      const type = prev ? 'MODIFIED' : 'ADDED';
      event = { type, key: e.key, value, prevValue: prev?.value, revision: e.revision, recordTime };
    }
    this.rev = e.revision;
    this.remember(event);
    this.forgetDecoded(e.key);
    if (this.watchers.size === 0) return;
    const view = new EventView(event, this.decode, written);
    this.fanOut(view, prev, current);
    const decoded = current ? view.usedObject : undefined;
    if (decoded) this.rememberDecoded(e.key, decoded, event.value.length);
  }

  /** Keeps obj (decoded from size stored bytes) for the key's next update, within the count and byte budgets. */
  private rememberDecoded(key: string, obj: KubeObject, size: number): void {
    this.forgetDecoded(key);
    if (size > RECENT_DECODED_MAX_OBJECT_BYTES) return;
    this.recentDecoded.set(key, { obj, size });
    this.recentDecodedBytes += size;
    while (this.recentDecoded.size > RECENT_DECODED || this.recentDecodedBytes > RECENT_DECODED_BYTES) {
      this.forgetDecoded(this.recentDecoded.keys().next().value as string);
    }
  }

  private forgetDecoded(key: string): void {
    const kept = this.recentDecoded.get(key);
    if (!kept) return;
    this.recentDecoded.delete(key);
    this.recentDecodedBytes -= kept.size;
  }

  /**
   * The object's state as the latest change the cache applied left it, decoded, when a watcher had it decoded
   * (else undefined). Given once: the caller owns it and may keep it. It may be older than storage (a change not yet
   * applied), so a caller writes with it only conditionally on its resourceVersion.
   */
  takeRecent(key: string): KubeObject | undefined {
    const kept = this.recentDecoded.get(key);
    if (kept) this.forgetDecoded(key);
    return kept?.obj;
  }

  /**
   * The object's latest state in the cache, decoded from its stored bytes for the caller to own (undefined before
   * the cache has loaded, or when it holds no such key). Like takeRecent's, it may be older than storage.
   */
  latestNow(key: string): KubeObject | undefined {
    return this.loaded ? this.objectAt(key) : undefined;
  }

  /** Offers a change to the watchers that may want it. */
  private fanOut(view: EventView, prev: Stored | undefined, current: Stored | undefined): void {
    const event = view.event;
    const index = this.index;
    if (!index || (this.indexed.size === 0 && this.indexTested === 0)) {
      for (const w of this.watchers) this.deliver(w, view);
      return;
    }
    // The index value the object had before this change (undefined: it did not exist) and has now (undefined:
    // deleted); the value of an object kept from before is remembered with it.
    let before: string | undefined;
    if (prev) before = prev.indexValue ??= index(view.prevObject ?? view.object);
    else if (event.type === 'DELETED') before = index(view.object);
    let now: string | undefined;
    if (current) now = current.indexValue = index(view.object);
    const values = { now, before };
    for (const w of this.unindexed) this.deliver(w, view, values);
    // Indexed watchers want objects with their value, so only those filed under the value the object has now
    // or had before can see this change.
    for (const value of now === before || now === undefined ? [before] : [before, now]) {
      if (value === undefined) continue;
      const set = this.indexed.get(value);
      if (set) for (const w of set) this.deliver(w, view, values);
    }
  }

  private remember(e: CachedEvent): void {
    if (this.window.length === this.capacity) this.resize(e.recordTime);
    if (this.window.length < this.capacity) {
      this.window.push(e);
      return;
    }
    const evicted = this.window[this.windowHead] as CachedEvent;
    this.windowStart = evicted.revision;
    this.window[this.windowHead] = e;
    this.windowHead = (this.windowHead + 1) % this.capacity;
  }

  /** Before adding to a full window: grows it while its oldest event is fresh, shrinks it once most are stale. */
  private resize(now: number): void {
    const n = this.capacity;
    const at = (i: number) => this.window[(this.windowHead + i) % n] as CachedEvent;
    let to = n;
    if (now - at(0).recordTime < this.freshMs) to = Math.min(n * 2, this.maxCapacity);
    else if (now - at(n - Math.floor(n / 4)).recordTime > this.freshMs)
      to = Math.max(Math.floor(n / 2), this.minCapacity);
    if (to === n) return;
    // Laid out oldest first; a smaller window keeps the newest events.
    const ordered = [...this.window.slice(this.windowHead), ...this.window.slice(0, this.windowHead)];
    const dropped = ordered.length - to;
    if (dropped > 0) this.windowStart = (ordered[dropped - 1] as CachedEvent).revision;
    this.window = dropped > 0 ? ordered.slice(dropped) : ordered;
    this.windowHead = 0;
    this.capacity = to;
  }

  private *eventsAfter(revision: number): Generator<CachedEvent> {
    const n = this.window.length;
    for (let i = 0; i < n; i++) {
      const e = this.window[(this.windowHead + i) % n] as CachedEvent;
      if (e.revision > revision) yield e;
    }
  }

  /**
   * Sends e to w as w sees it: filtered, with selector transitions turned into ADDED / DELETED. indexed: the index
   * values the object has now and had before, when the cache read them for this event.
   */
  private deliver(w: Watcher, view: EventView, indexed?: { now?: string; before?: string }): void {
    const e = view.event;
    const req = w.req;
    if (!w.active || !e.key.startsWith(req.prefix)) return;
    let type: WatchEventType | undefined;
    if (req.everything) {
      type = e.type;
    } else if (indexed && req.indexTest) {
      const before = indexed.before !== undefined && req.indexTest(indexed.before);
      const now = e.type !== 'DELETED' && indexed.now !== undefined && req.indexTest(indexed.now);
      if (e.type === 'DELETED') type = before ? 'DELETED' : undefined;
      else if (now && before) type = 'MODIFIED';
      else if (now) type = 'ADDED';
      else if (before) type = 'DELETED';
    } else if (e.type === 'DELETED') {
      if (wants(req, e.prevValue ?? e.value, () => view.prevObject ?? view.object)) type = 'DELETED';
    } else {
      const now = wants(req, e.value, () => view.object);
      const before = e.prevValue !== undefined && wants(req, e.prevValue, () => view.prevObject);
      if (now && before) type = 'MODIFIED';
      else if (now) type = 'ADDED';
      else if (before) type = 'DELETED';
    }
    if (type === undefined) return;
    // An object that stopped matching leaves as it was before the change, with the change's revision (as upstream's
    // cache watcher sends it); an object deleted from storage is already sent in its last state.
    const before = type === 'DELETED' && e.type !== 'DELETED';
    if (req.skipStored?.(type, e.key, before || e.type === 'DELETED' ? (e.prevValue ?? e.value) : e.value)) return;
    if (req.onEncodedEvent) req.onEncodedEvent(type, before ? view.prevJson : view.json, e.revision);
    else req.onEvent(type, before ? (view.prevObject ?? view.object) : view.object, e.revision);
  }

  private end(w: Watcher, reason: 'expired' | 'closed'): void {
    if (!w.active) return;
    w.active = false;
    this.removeWatcher(w);
    w.req.onEnd(reason);
  }
}
