import { statusErrors } from '../../api/status-error.js';
import { isStorageError } from '../../storage/types.js';
import { type CacheWatch, TooOldError, type WatchEventType } from '../cacher/cacher.js';
import { type RawJson, storageToStatus, storedJsonWithRevision } from './codec.js';
import { CONTINUE_EXPIRED, decodeContinue, encodeContinue } from './continue-token.js';
import type { KubeObject } from './object.js';
import { listPrefix } from './resource.js';
import type { GenericStore } from './store.js';

/** Which objects a list or watch wants (label and field selectors already parsed). */
export interface Selection {
  matches(obj: KubeObject): boolean;
  /** True when nothing is filtered out. */
  everything: boolean;
  /** The value the field selector requires the field to equal, if it has such a term. */
  requiredFieldValue?(field: string): string | undefined;
  /**
   * When the selection is one term on this field and nothing else (no other term, no label selector): that term as
   * a test of the field's value.
   */
  onlyFieldTest?(field: string): ((value: string) => boolean) | undefined;
}

export interface ListRequest {
  selection: Selection;
  limit?: number;
  continue?: string;
  resourceVersion?: string;
  resourceVersionMatch?: string;
  /** The caller writes plain JSON and accepts items as stored bytes (RawJson) when no decoding is needed. */
  raw?: boolean;
}

export interface ListResult<T = KubeObject> {
  items: T[];
  resourceVersion: string;
  continue?: string;
  /** How many objects follow this page, when the list is paginated and unfiltered (as upstream counts them). */
  remainingItemCount?: number;
}

function parseRV(rv: string): number {
  if (!/^\d+$/.test(rv)) throw statusErrors.badRequest(`invalid resource version: ${JSON.stringify(rv)}`);
  return Number(rv);
}

/**
 * LIST with upstream's resourceVersion semantics: unset = a consistent read of the latest state (from storage);
 * "0" = any recent state (from the watch cache); N with Exact = the state at N (from storage's history);
 * N with NotOlderThan (or unset match without a limit) = the latest state, once it is at least N. limit/continue
 * read pages at one fixed revision.
 */
export async function listObjects(
  store: GenericStore,
  namespace: string,
  req: ListRequest & { raw: true },
): Promise<ListResult<KubeObject | RawJson>>;
export async function listObjects(store: GenericStore, namespace: string, req: ListRequest): Promise<ListResult>;
export async function listObjects(
  store: GenericStore,
  namespace: string,
  req: ListRequest,
): Promise<ListResult<KubeObject | RawJson>> {
  const prefix = listPrefix(store.def, namespace);
  const rv = req.resourceVersion ?? '';
  const match = req.resourceVersionMatch ?? '';
  if (match && match !== 'Exact' && match !== 'NotOlderThan') {
    throw statusErrors.badRequest(`unsupported resourceVersionMatch value ${JSON.stringify(match)}`);
  }
  if (match && rv === '') {
    throw statusErrors.badRequest('resourceVersionMatch is forbidden unless resourceVersion is provided');
  }
  if (req.continue && rv !== '') {
    throw statusErrors.badRequest('specifying resource version is not allowed when using continue');
  }
  const limit = req.limit && req.limit > 0 ? req.limit : undefined;

  // What upstream's watch cache serves: any state, a state not older than N, and (at storage's current revision)
  // the latest; the latest is read from storage here, which gives the same state. While the cache is not loaded,
  // upstream sends such a list with a limit and no selector to storage, and refuses any other with the cache's 429
  // (ResilientWatchCacheInitialization); start() waits for a load in flight, or throws that refusal.
  const cacheServes =
    !req.continue && match !== 'Exact' && (rv === '' || rv === '0' || match === 'NotOlderThan' || !limit);
  if (cacheServes && !store.cacher.isLoaded && !(limit && req.selection.everything)) await store.cacher.start();
  const fromCache = cacheServes && rv !== '' && store.cacher.isLoaded;
  if (fromCache) {
    const min = rv === '0' ? 0 : parseRV(rv);
    if (req.raw && req.selection.everything && !store.def.conversion) {
      const { items: stored, revision } = await store.cacher.listStored(prefix);
      if (revision < min) {
        throw statusErrors.timeout(`Too large resource version: ${min}, current: ${revision}`, 1);
      }
      const items = stored.map((s) => storedJsonWithRevision(s.value, s.revision) ?? store.decode(s.value, s.revision));
      return { items, resourceVersion: String(revision) };
    }
    const { items: stored, revision } = await store.cacher.list(prefix, (o) =>
      req.selection.matches(store.fromStored(o)),
    );
    const items = stored.map((o) => store.fromStored(o));
    if (revision < min) {
      throw statusErrors.timeout(`Too large resource version: ${min}, current: ${revision}`, 1);
    }
    return { items, resourceVersion: String(revision) };
  }

  let revision: number | undefined;
  let startKey: string | undefined;
  /** For a list the cache would serve, read from storage while the cache is not loaded: the oldest state it takes. */
  let minRevision = 0;
  if (req.continue) {
    const token = decodeContinue(req.continue, prefix);
    revision = token.revision;
    startKey = token.startKey;
  } else if (cacheServes) {
    if (rv !== '') minRevision = parseRV(rv);
  } else if (rv !== '') {
    revision = parseRV(rv);
  }
  const items: KubeObject[] = [];
  let next: string | undefined;
  let remaining: number | undefined;
  try {
    for (;;) {
      const want = limit === undefined ? undefined : Math.max(limit - items.length, req.selection.everything ? 0 : 100);
      const page = await store.storage.list(prefix, {
        ...(revision === undefined ? {} : { revision }),
        ...(startKey === undefined ? {} : { startKey }),
        ...(want === undefined ? {} : { limit: want }),
        // Upstream counts what follows a page only when nothing is filtered out (a selector would make it a guess).
        ...(req.selection.everything ? { countRemaining: true } : {}),
      });
      if (page.revision < minRevision) {
        throw statusErrors.timeout(`Too large resource version: ${minRevision}, current: ${page.revision}`, 1);
      }
      revision = page.revision;
      let i = 0;
      for (; i < page.items.length; i++) {
        const kv = page.items[i] as (typeof page.items)[number];
        const obj = store.decode(kv.value, kv.modRevision);
        if (req.selection.matches(obj)) items.push(obj);
        if (limit !== undefined && items.length >= limit) break;
      }
      const last = page.items[Math.min(i, page.items.length - 1)];
      if (limit !== undefined && items.length >= limit) {
        if (i < page.items.length - 1 || page.more) next = `${last?.key}\u0000`;
        if (req.selection.everything) remaining = page.remaining;
        break;
      }
      if (!page.more || !last) break;
      startKey = `${last.key}\u0000`;
    }
  } catch (err) {
    if (isStorageError(err, 'Compacted')) {
      throw statusErrors.resourceExpired(
        req.continue ? CONTINUE_EXPIRED : 'The resourceVersion for the provided list is too old.',
      );
    }
    if (isStorageError(err, 'FutureRevision')) {
      const current = await store.storage.currentRevision();
      throw statusErrors.timeout(`Too large resource version: ${revision}, current: ${current}`, 1);
    }
    throw storageToStatus(err, store.def, '');
  }
  const result: ListResult<KubeObject | RawJson> = { items, resourceVersion: String(revision ?? 0) };
  if (next !== undefined && revision !== undefined) {
    result.continue = encodeContinue(revision, next, prefix);
    if (remaining !== undefined) result.remainingItemCount = remaining;
  }
  return result;
}

export interface WatchRequest {
  selection: Selection;
  resourceVersion?: string;
  resourceVersionMatch?: string;
  sendInitialEvents?: boolean;
  allowWatchBookmarks?: boolean;
}

export interface WatchSink {
  event(type: WatchEventType, object: KubeObject): void;
  /**
   * When set (for a client that gets objects as JSON, as stored), changes after the start come here as the object's
   * JSON with its resourceVersion, taken from the watch cache's stored bytes rather than decoded and encoded again.
   */
  encodedEvent?(type: WatchEventType, json: Buffer, revision: number): void;
  /** The watch failed or ended from the server's side: send an ERROR event with this status (if any) and finish. */
  end(error?: { code: number; reason: string; message: string }): void;
}

/**
 * WATCH with upstream's semantics: unset or "0" resourceVersion starts with the current state as ADDED events;
 * N starts after N (or ends at once with 410 Expired when N is older than the cache's window); sendInitialEvents
 * sends the current state first and then a bookmark annotated k8s.io/initial-events-end.
 */
export async function watchObjects(
  store: GenericStore,
  namespace: string,
  req: WatchRequest,
  sink: WatchSink,
): Promise<CacheWatch | undefined> {
  validateWatchRequest(req);
  const rv = req.resourceVersion ?? '';
  let fromRevision: number | undefined;
  if (req.sendInitialEvents === true) fromRevision = undefined;
  else if (rv === '' || rv === '0') fromRevision = req.sendInitialEvents === false ? store.cacher.revision : undefined;
  else fromRevision = parseRV(rv);
  const prefix = listPrefix(store.def, namespace);
  const indexField = store.def.strategy.watchIndexField;
  const indexValue = indexField === undefined ? undefined : req.selection.requiredFieldValue?.(indexField);
  const indexTest = indexField === undefined ? undefined : req.selection.onlyFieldTest?.(indexField);
  try {
    const watch = await store.cacher.watch({
      fromRevision,
      prefix,
      ...(indexValue === undefined ? {} : { indexValue }),
      ...(indexTest ? { indexTest } : {}),
      matches: (o) => req.selection.matches(store.fromStored(o)),
      onEvent: (type, object) => sink.event(type, store.fromStored(object)),
      everything: req.selection.everything,
      ...(sink.encodedEvent && !store.def.conversion ? { onEncodedEvent: sink.encodedEvent.bind(sink) } : {}),
      onEnd: (reason) =>
        sink.end(
          reason === 'expired'
            ? {
                code: 410,
                reason: 'Expired',
                message: 'The watch was ended because the server lost its place in the history; start a new watch.',
              }
            : undefined,
        ),
    });
    if (req.sendInitialEvents === true) {
      sink.event('BOOKMARK', bookmarkObject(store, String(watch.startRevision), true));
    }
    return watch;
  } catch (err) {
    if (err instanceof TooOldError) {
      sink.end({ code: 410, reason: 'Expired', message: err.message });
      return undefined;
    }
    throw err;
  }
}

/** Refuses parameter combinations upstream refuses. */
export function validateWatchRequest(req: WatchRequest): void {
  if (req.sendInitialEvents !== undefined) {
    if (!req.allowWatchBookmarks) {
      throw statusErrors.badRequest('sendInitialEvents is forbidden for watch unless allowWatchBookmarks=true');
    }
    if (req.resourceVersionMatch !== 'NotOlderThan') {
      throw statusErrors.badRequest('sendInitialEvents requires setting resourceVersionMatch to NotOlderThan');
    }
  } else if (req.resourceVersionMatch) {
    throw statusErrors.badRequest('resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided');
  }
  if (req.resourceVersion && !/^\d+$/.test(req.resourceVersion)) {
    throw statusErrors.badRequest(`invalid resource version: ${JSON.stringify(req.resourceVersion)}`);
  }
}

/** A BOOKMARK event's object: the kind with only a resourceVersion (and the initial-events-end annotation). */
export function bookmarkObject(store: GenericStore, resourceVersion: string, initialEventsEnd = false): KubeObject {
  const def = store.def;
  return {
    kind: def.kind,
    apiVersion: def.group ? `${def.group}/${def.version}` : def.version,
    metadata: {
      resourceVersion,
      ...(initialEventsEnd ? { annotations: { 'k8s.io/initial-events-end': 'true' } } : {}),
    },
  };
}
