/**
 * The storage contract: a multi-version key-value log with cluster-wide revisions.
 *
 * Every write gets a revision greater than all before it (not necessarily the previous one plus one).
 * The store never looks inside values. Every backend (memory, sqlite, etcd) implements this interface
 * and passes the same conformance suite (src/testing/storage-conformance.ts).
 */

/** What callers may store. Strings are stored as their UTF-8 bytes. */
export type Value = string | Uint8Array;

/** The largest value a store accepts, in bytes; etcd's default request limit is 1.5 MiB for key, value and framing. */
export const MAX_VALUE_BYTES = 1_500_000;

export interface KeyValue {
  key: string;
  value: Buffer;
  /** The revision of the write that produced this value (an object's resourceVersion). */
  modRevision: number;
  /** The revision of the write that created the key (since its last deletion). */
  createRevision: number;
  /**
   * Set by a decorator that transforms values (encryption at rest) when this value was read through a transformer
   * that no longer writes (a key not first any more): an update should write it again even if nothing changed.
   */
  stale?: boolean;
}

export interface ReadOptions {
  /** Read the state as of this revision; the current state when absent. */
  revision?: number;
}

export interface ListOptions extends ReadOptions {
  /** Return at most this many items. */
  limit?: number;
  /** Start at this key (inclusive) instead of the start of the prefix. */
  startKey?: string;
  /** When the limit cuts the list short, also count the keys left after the returned ones (ListResult.remaining). */
  countRemaining?: boolean;
}

export interface ListResult {
  items: KeyValue[];
  /** The revision the list was read at. */
  revision: number;
  /** True when the limit cut the list short. */
  more: boolean;
  /** With countRemaining, when the limit cut the list short: how many keys of the range follow the returned ones. */
  remaining?: number;
}

export interface WriteResult {
  revision: number;
}

export interface DeleteResult extends WriteResult {
  /** The value that was deleted. */
  prevValue: Buffer;
}

export type WatchEvent =
  | { type: 'create'; key: string; value: Buffer; revision: number }
  | { type: 'update'; key: string; value: Buffer; prevValue: Buffer; revision: number }
  | { type: 'delete'; key: string; prevValue: Buffer; revision: number };

export interface WatchListener {
  /** Called once per change, in revision order. */
  onEvent(event: WatchEvent): void;
  /** Called at most once; the watch has ended (Compacted when the start is too old, Closed when the store closes). */
  onError(err: StorageError): void;
}

export interface Watch {
  /** Stops delivery; no callback runs after close() returns. */
  close(): void;
}

export interface Store {
  readonly backend: 'memory' | 'sqlite' | 'etcd';
  get(key: string, opts?: ReadOptions): Promise<KeyValue | null>;
  list(prefix: string, opts?: ListOptions): Promise<ListResult>;
  /** How many keys live under prefix now. */
  count(prefix: string): Promise<number>;
  /** Fails with KeyExists when the key exists. */
  create(key: string, value: Value): Promise<WriteResult>;
  /** Fails with NotFound when the key does not exist and with Conflict (carrying the current value) on a revision mismatch. */
  update(key: string, value: Value, expectedRevision: number): Promise<WriteResult>;
  /** Fails like update. */
  delete(key: string, expectedRevision: number): Promise<DeleteResult>;
  /** Delivers every change under prefix with a revision above afterRevision, in order, then every later change. */
  watch(prefix: string, afterRevision: number, listener: WatchListener): Watch;
  /** Drops history below revision: reads and watches of older revisions then fail with Compacted. */
  compact(revision: number): Promise<void>;
  currentRevision(): Promise<number>;
  close(): Promise<void>;
}

export type StorageErrorCode =
  | 'KeyExists'
  | 'NotFound'
  | 'Conflict'
  | 'Compacted'
  | 'FutureRevision'
  | 'TooLarge'
  | 'Unavailable'
  | 'Closed'
  /**
   * A stored value could not be read back: a decorator that transforms values (encryption at rest) failed on it.
   * The message is upstream's storage.InternalError reason; the apiserver answers it as an InternalError.
   */
  | 'Internal';

export class StorageError extends Error {
  readonly code: StorageErrorCode;
  readonly key: string | undefined;
  /** On Conflict and KeyExists: what the key holds now. */
  readonly current: KeyValue | undefined;
  /** On Compacted: the oldest revision still readable, when the backend knows it. */
  readonly compactRevision: number | undefined;

  constructor(
    code: StorageErrorCode,
    message: string,
    extra: { key?: string; current?: KeyValue; compactRevision?: number; cause?: unknown } = {},
  ) {
    super(message, extra.cause === undefined ? undefined : { cause: extra.cause });
    this.name = 'StorageError';
    this.code = code;
    this.key = extra.key;
    this.current = extra.current;
    this.compactRevision = extra.compactRevision;
  }
}

export function isStorageError(err: unknown, code?: StorageErrorCode): err is StorageError {
  return err instanceof StorageError && (code === undefined || err.code === code);
}

export const errors = {
  keyExists: (key: string, current?: KeyValue) =>
    new StorageError('KeyExists', `key already exists: ${key}`, { key, ...(current ? { current } : {}) }),
  notFound: (key: string) => new StorageError('NotFound', `key not found: ${key}`, { key }),
  conflict: (key: string, expected: number, current: KeyValue) =>
    new StorageError('Conflict', `revision mismatch on ${key}: expected ${expected}, found ${current.modRevision}`, {
      key,
      current,
    }),
  compacted: (revision: number, compactRevision?: number) =>
    new StorageError(
      'Compacted',
      `revision ${revision} has been compacted${compactRevision === undefined ? '' : ` (oldest kept: ${compactRevision})`}`,
      compactRevision === undefined ? {} : { compactRevision },
    ),
  futureRevision: (revision: number, current: number) =>
    new StorageError('FutureRevision', `revision ${revision} is newer than the current revision ${current}`),
  tooLarge: (key: string, size: number) =>
    new StorageError('TooLarge', `value of ${size} bytes for ${key} is over the limit of ${MAX_VALUE_BYTES} bytes`, {
      key,
    }),
  closed: () => new StorageError('Closed', 'the store is closed'),
};

/**
 * Buffers whose writers have handed them over (see handOver): stored as they are, without a copy. The store takes
 * the mark off as it takes the bytes (toBytes), so the set holds only writes on their way in: a set of every stored
 * value still alive would grow with the store, and every addition and every garbage collection would pay for it.
 */
const handedOver = new WeakSet<Uint8Array>();

/**
 * Marks bytes about to be written as the store's from now on (the writer never changes them again): the memory and
 * sqlite stores keep and publish that very Buffer instead of a copy, so that a watcher in the same process can
 * recognise a write by the identity of the value in its event.
 */
export function handOver(bytes: Buffer): Buffer {
  handedOver.add(bytes);
  return bytes;
}

/** Stored bytes of a value, refusing one over the limit. */
export function toBytes(key: string, value: Value): Buffer {
  const bytes =
    typeof value === 'string'
      ? Buffer.from(value, 'utf8')
      : Buffer.isBuffer(value) && handedOver.delete(value)
        ? value
        : Buffer.from(value);
  if (bytes.length > MAX_VALUE_BYTES) throw errors.tooLarge(key, bytes.length);
  return bytes;
}

/** The first key after every key that starts with prefix ('' for no upper bound). */
export function prefixEnd(prefix: string): string {
  for (let i = prefix.length - 1; i >= 0; i--) {
    const code = prefix.charCodeAt(i);
    if (code < 0xffff) return prefix.slice(0, i) + String.fromCharCode(code + 1);
  }
  return '';
}

export function inPrefix(key: string, prefix: string): boolean {
  return key.startsWith(prefix);
}

/**
 * The revision a read at `requested` (undefined or 0: the current one) should see, for backends that keep their own
 * history: refuses revisions not written yet and revisions compacted away.
 */
export function resolveReadRevision(requested: number | undefined, current: number, compacted: number): number {
  if (requested === undefined || requested === 0) return current;
  if (requested > current) throw errors.futureRevision(requested, current);
  if (requested < compacted) throw errors.compacted(requested, compacted);
  return requested;
}

/** Refuses a compaction to a revision not written yet or not above the last compaction. */
export function checkCompactRevision(revision: number, current: number, compacted: number): void {
  if (revision > current) throw errors.futureRevision(revision, current);
  if (revision <= compacted) throw errors.compacted(revision, compacted);
}
