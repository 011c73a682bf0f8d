import { closeSync, fdatasync, fstatSync, fsyncSync, openSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { type Logger, silentLogger } from '../../util/logger.js';
import {
  checkCompactRevision,
  type DeleteResult,
  errors,
  type KeyValue,
  type ListOptions,
  type ListResult,
  prefixEnd,
  type ReadOptions,
  resolveReadRevision,
  StorageError,
  type Store,
  toBytes,
  type Value,
  type Watch,
  type WatchEvent,
  type WatchListener,
  type WriteResult,
} from '../types.js';
import { WatchHub } from '../watch-hub.js';
import { lockStore } from './lock.js';
import { createSchema, readLastRevision, readMeta } from './schema.js';

const noop = () => {};

/**
 * Runs the commit of one batch of writes (SQLite writes the batch to its write-ahead log; nothing is synced yet).
 * The default just calls commit(). Tests inject their own to fail it.
 */
export type CommitHook = (revisions: number[], commit: () => void) => void;

/**
 * Runs the sync of one committed batch: sync() is an fdatasync of the write-ahead log on libuv's thread pool.
 * The default just calls it. Tests inject their own to observe the order of syncs and acknowledgements, to hold a
 * sync back, or to fail it.
 */
export type SyncHook = (revisions: number[], sync: () => Promise<void>) => Promise<void>;

export interface SqliteStoreOptions {
  /** The database file. */
  path: string;
  logger?: Logger;
  commitHook?: CommitHook;
  syncHook?: SyncHook;
}

type Op =
  | { kind: 'create'; key: string; value: Buffer }
  | { kind: 'update'; key: string; value: Buffer; expected: number }
  | { kind: 'delete'; key: string; expected: number };

interface Pending {
  op: Op;
  resolve: (r: WriteResult | DeleteResult) => void;
  reject: (err: unknown) => void;
}

type Outcome = { ok: true; result: WriteResult | DeleteResult; event: WatchEvent } | { ok: false; err: unknown };

interface InFlight {
  batch: Pending[];
  outcomes: Outcome[];
  rev: number;
  synced: boolean;
  /** Resolves when the batch is settled (acknowledged or rejected). */
  done: Promise<void>;
  finish: () => void;
}

interface Row {
  id: number;
  name: string;
  deleted: number;
  create_revision: number;
  value: Buffer | null;
}

interface LogRow extends Row {
  prev_value: Buffer | null;
  prev_deleted: number | null;
}

/** Keys are never longer than this code point, so it bounds a range with no end. */
const NO_END = '\u{10FFFF}';
const EMPTY = Buffer.alloc(0);

/**
 * The embedded default backend: a log table in one SQLite file (WAL, synchronous=NORMAL, and a sync of our own).
 *
 * Writes queue up and are applied together in one transaction at the next turn of the event loop. The commit
 * writes the batch to the write-ahead log without syncing it; the store then syncs the log with an fdatasync on
 * libuv's thread pool, so the event loop goes on serving requests meanwhile, and only after the sync has returned
 * are the writes acknowledged and sent to watchers (group commit). Writes that arrive during a sync form the next
 * batch, committed at once on top of the first and acknowledged after it. Reads (and watch replays) see
 * acknowledged revisions only: they never see a batch whose sync is still running. A failed sync removes the rows
 * of every batch not yet acknowledged and rejects their writes.
 */
/** The page size of new stores; see the constructor. */
export const PAGE_SIZE = 8192;

export class SqliteStore implements Store {
  readonly backend = 'sqlite';
  readonly path: string;
  private readonly db: Database.Database;
  private readonly hub: WatchHub;
  private readonly log: Logger;
  private readonly commitHook: CommitHook;
  private readonly syncHook: SyncHook;
  /** The last acknowledged revision: what reads see. */
  private rev: number;
  private compacted: number;
  private pending: Pending[] = [];
  private flushScheduled = false;
  /** Committed batches not yet acknowledged, in commit order: each is settled once it and all before it synced. */
  private inflight: InFlight[] = [];
  /** The highest revision committed to the log: acknowledged, or in a batch still syncing. */
  private committedRev: number;
  /** An open descriptor of the write-ahead log and its inode, for the sync. */
  private wal: { fd: number; ino: number } | undefined;
  /** The fdatasync calls running (close waits for them before closing the descriptor). */
  private readonly syncsRunning = new Set<Promise<void>>();
  /** The sync running now, and the one that will start when it returns (for the batches committed meanwhile). */
  private syncRunning: Promise<void> | undefined;
  private syncNext: Promise<void> | undefined;
  private closed = false;
  private readonly stmt: ReturnType<SqliteStore['prepare']>;
  private readonly unlock: () => void;

  constructor(opts: SqliteStoreOptions) {
    this.path = opts.path;
    this.log = opts.logger ?? silentLogger;
    this.commitHook = opts.commitHook ?? ((_revisions, commit) => commit());
    this.syncHook = opts.syncHook ?? ((_revisions, sync) => sync());
    this.hub = new WatchHub(this.log);
    this.unlock = lockStore(opts.path);
    try {
      this.db = new Database(opts.path);
    } catch (err) {
      this.unlock();
      throw err;
    }
    try {
      // 8 KiB pages for a new store (an existing one keeps its own): a pod with its ServiceAccount token volume, ~2.3
      // KB as stored, is one row per 4 KiB page (each write then puts a whole page in the log) but three per 8 KiB.
      this.db.pragma(`page_size = ${PAGE_SIZE}`);
      this.db.pragma('journal_mode = WAL');
      // NORMAL: a commit only writes the log; the store syncs it itself, off the main thread (syncWal).
      // Checkpoints still sync the log before copying it into the database, and the database after.
      this.db.pragma('synchronous = NORMAL');
      this.db.pragma('busy_timeout = 5000');
      const mode = this.db.pragma('journal_mode', { simple: true });
      const sync = this.db.pragma('synchronous', { simple: true });
      if (mode !== 'wal' || sync !== 1) {
        throw new Error(
          `sqlite store ${opts.path} must run with journal_mode=WAL and synchronous=NORMAL (got ${mode}, ${sync})`,
        );
      }
      createSchema(this.db);
      this.rev = readLastRevision(this.db);
      this.committedRev = this.rev;
      this.compacted = readMeta(this.db, 'compact_revision');
      this.stmt = this.prepare();
    } catch (err) {
      this.db.close();
      this.unlock();
      throw err;
    }
  }

  private prepare() {
    const db = this.db;
    return {
      // A key's rows in prev_revision order are in row id order (schema.ts): the unique index walked backwards.
      latest: db.prepare(
        'SELECT id, name, deleted, create_revision, value FROM kv WHERE name = ? ORDER BY prev_revision DESC LIMIT 1',
      ),
      at: db.prepare(
        'SELECT id, name, deleted, create_revision, value FROM kv WHERE name = ? AND id <= ? ORDER BY prev_revision DESC LIMIT 1',
      ),
      insert: db.prepare(
        'INSERT INTO kv (id, name, deleted, create_revision, prev_revision, value) VALUES (?, ?, ?, ?, ?, ?)',
      ),
      // Walks the (name, prev_revision) index in key order, keeping each key's newest row at or below the revision.
      list: db.prepare(`
        SELECT id, name, deleted, create_revision, value FROM kv AS a
        WHERE name >= ? AND name < ? AND deleted = 0
          AND id = (SELECT max(id) FROM kv AS b WHERE b.name = a.name AND b.id <= ?)
        ORDER BY name LIMIT ?`),
      count: db.prepare(`
        SELECT count(*) AS n FROM kv AS a
        WHERE name >= ? AND name < ? AND deleted = 0
          AND id = (SELECT max(id) FROM kv AS b WHERE b.name = a.name AND b.id <= ?)`),
      since: db.prepare(`
        SELECT kv.id, kv.name, kv.deleted, kv.create_revision, kv.value, p.value AS prev_value, p.deleted AS prev_deleted
        FROM kv LEFT JOIN kv AS p ON p.id = kv.prev_revision
        WHERE kv.id > ? AND kv.id <= ? AND kv.name >= ? AND kv.name < ? ORDER BY kv.id`),
      undo: db.prepare('DELETE FROM kv WHERE id > ? AND id <= ?'),
      lastRevision: db.prepare("SELECT seq FROM sqlite_sequence WHERE name = 'kv'").pluck(),
      compactSuperseded: db.prepare(
        'DELETE FROM kv WHERE id IN (SELECT prev_revision FROM kv WHERE id <= ? AND prev_revision > 0)',
      ),
      compactTombstones: db.prepare('DELETE FROM kv WHERE deleted = 1 AND id <= ?'),
      setCompacted: db.prepare("UPDATE meta SET value = ? WHERE name = 'compact_revision'"),
    };
  }

  async get(key: string, opts: ReadOptions = {}): Promise<KeyValue | null> {
    const at = this.readRevision(opts.revision);
    const row = this.stmt.at.get(key, at) as Row | undefined;
    return row && row.deleted === 0 ? toKeyValue(row) : null;
  }

  async list(prefix: string, opts: ListOptions = {}): Promise<ListResult> {
    const at = this.readRevision(opts.revision);
    const start = opts.startKey !== undefined && opts.startKey > prefix ? opts.startKey : prefix;
    const limit = opts.limit && opts.limit > 0 ? opts.limit : -1;
    const rows = this.stmt.list.all(start, prefixEnd(prefix) || NO_END, at, limit < 0 ? -1 : limit + 1) as Row[];
    const more = limit > 0 && rows.length > limit;
    if (more) rows.length = limit;
    const result: ListResult = { items: rows.map(toKeyValue), revision: at, more };
    if (more && opts.countRemaining) {
      const all = (this.stmt.count.get(start, prefixEnd(prefix) || NO_END, at) as { n: number }).n;
      result.remaining = all - limit;
    }
    return result;
  }

  async count(prefix: string): Promise<number> {
    this.assertOpen();
    return (this.stmt.count.get(prefix, prefixEnd(prefix) || NO_END, this.rev) as { n: number }).n;
  }

  create(key: string, value: Value): Promise<WriteResult> {
    return this.enqueue(() => ({ kind: 'create', key, value: toBytes(key, value) }));
  }

  update(key: string, value: Value, expectedRevision: number): Promise<WriteResult> {
    return this.enqueue(() => ({ kind: 'update', key, value: toBytes(key, value), expected: expectedRevision }));
  }

  delete(key: string, expectedRevision: number): Promise<DeleteResult> {
    return this.enqueue(() => ({ kind: 'delete', key, expected: expectedRevision }));
  }

  watch(prefix: string, afterRevision: number, listener: WatchListener): Watch {
    return this.hub.subscribe(prefix, listener, () => {
      this.assertOpen();
      if (afterRevision < this.compacted) throw errors.compacted(afterRevision, this.compacted);
      // Up to the acknowledged revision: a batch still syncing is published when its sync returns.
      const rows = this.stmt.since.all(afterRevision, this.rev, prefix, prefixEnd(prefix) || NO_END) as LogRow[];
      return rows.map(toEvent);
    });
  }

  async compact(revision: number): Promise<void> {
    this.assertOpen();
    checkCompactRevision(revision, this.rev, this.compacted);
    this.db
      .transaction(() => {
        this.stmt.compactSuperseded.run(revision);
        this.stmt.compactTombstones.run(revision);
        this.stmt.setCompacted.run(revision);
      })
      .immediate();
    this.compacted = revision;
  }

  async currentRevision(): Promise<number> {
    this.assertOpen();
    return this.rev;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    // Writes already queued are committed, synced and acknowledged first.
    while (this.inflight.length > 0 || this.pending.length > 0) {
      this.flushNow();
      await Promise.all(this.inflight.map((e) => e.done));
    }
    // A failed sync settles its batches before the later batches' syncs have returned.
    await Promise.allSettled([...this.syncsRunning]);
    if (this.closed) return;
    this.closed = true;
    this.hub.closeAll();
    if (this.wal) closeSync(this.wal.fd);
    this.db.close();
    this.unlock();
  }

  private assertOpen(): void {
    if (this.closed) throw errors.closed();
  }

  private readRevision(revision: number | undefined): number {
    this.assertOpen();
    return resolveReadRevision(revision, this.rev, this.compacted);
  }

  private enqueue<T>(makeOp: () => Op): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      if (this.closed) return reject(errors.closed());
      const op = makeOp();
      this.pending.push({ op, resolve: resolve as (r: WriteResult | DeleteResult) => void, reject });
      this.scheduleFlush();
    });
  }

  private scheduleFlush(): void {
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    setImmediate(() => this.flushNow());
  }

  /**
   * Applies every queued write in one transaction and commits it, then starts its sync; the acknowledgements and
   * watch events follow when it and every batch committed before it have synced (settleSynced). A batch is committed
   * while earlier ones are still syncing, on top of their rows.
   */
  private flushNow(): void {
    this.flushScheduled = false;
    const batch = this.pending;
    if (batch.length === 0) return;
    this.pending = [];
    const outcomes: Outcome[] = [];
    const startRev = this.committedRev;
    let rev = startRev;
    try {
      this.db.exec('BEGIN IMMEDIATE');
      // Another process may have written to the file since we last looked; never reuse its revisions.
      rev = Math.max(rev, (this.stmt.lastRevision.get() as number | undefined) ?? 0);
      for (const { op } of batch) {
        try {
          const applied = this.apply(op, rev + 1);
          rev = applied.event.revision;
          outcomes.push({ ok: true, ...applied });
        } catch (err) {
          outcomes.push({ ok: false, err });
        }
      }
      const revisions = outcomes.flatMap((o) => (o.ok ? [o.result.revision] : []));
      this.commitHook(revisions, () => this.db.exec('COMMIT'));
    } catch (err) {
      if (this.db.inTransaction) this.db.exec('ROLLBACK');
      this.committedRev = Math.max(startRev, readLastRevision(this.db));
      if (this.inflight.length === 0) this.rev = this.committedRev;
      this.fail(batch, 'commit', err);
      return;
    }
    this.committedRev = rev;
    let finish: () => void = () => {};
    const done = new Promise<void>((resolve) => (finish = resolve));
    const entry: InFlight = { batch, outcomes, rev, synced: false, done, finish };
    this.inflight.push(entry);
    if (rev === startRev) {
      // Nothing was written (every write was refused): nothing to sync, but it is answered in its turn.
      entry.synced = true;
      this.settleSynced();
      return;
    }
    const revisions = outcomes.flatMap((o) => (o.ok ? [o.result.revision] : []));
    this.syncHook(revisions, () => this.syncWal()).then(
      () => {
        entry.synced = true;
        this.settleSynced();
      },
      (err) => this.syncFailed(entry, err),
    );
  }

  /** Acknowledges and publishes, in commit order, every batch at the head that has synced. */
  private settleSynced(): void {
    while (this.inflight[0]?.synced) {
      const e = this.inflight.shift() as InFlight;
      this.settle(e.batch, e.outcomes, e.rev);
      e.finish();
    }
  }

  /**
   * A sync failed: what the log holds past the last acknowledged revision can no longer be trusted, so every batch
   * not yet acknowledged (this one, those before it still syncing, those committed on top of it) is rejected and
   * its rows deleted again. Their revisions are not reused (AUTOINCREMENT keeps the highest).
   */
  private syncFailed(entry: InFlight, err: unknown): void {
    if (!this.inflight.includes(entry)) return;
    const failed = this.inflight;
    this.inflight = [];
    try {
      this.stmt.undo.run(this.rev, this.committedRev);
    } catch (undoErr) {
      this.log.error('sqlite could not remove the rows of batches whose sync failed', { err: String(undoErr) });
    }
    this.committedRev = this.rev;
    for (const e of failed) {
      this.fail(e.batch, 'sync', err);
      e.finish();
    }
  }

  private settle(batch: Pending[], outcomes: Outcome[], rev: number): void {
    this.rev = rev;
    this.hub.publish(outcomes.flatMap((o) => (o.ok ? [o.event] : [])));
    batch.forEach((p, i) => {
      const o = outcomes[i];
      if (o?.ok) p.resolve(o.result);
      else p.reject(o?.err);
    });
  }

  private fail(batch: Pending[], step: 'commit' | 'sync', err: unknown): void {
    this.log.error(`sqlite ${step} failed`, { err: String(err) });
    const failure = new StorageError('Unavailable', `sqlite ${step} failed: ${String(err)}`, { cause: err });
    for (const p of batch) p.reject(failure);
  }

  /**
   * Syncs the log for a batch just committed. A sync already running may have begun before the batch was written,
   * so it does not count: the batch waits for the next one, which starts when the running one returns and serves
   * every batch committed meanwhile. Under load the batches of one sync's duration so share one fdatasync (each
   * costs the main thread ~20 µs to hand to the thread pool, and the disk a flush).
   */
  private syncWal(): Promise<void> {
    const running = this.syncRunning;
    if (!running) return this.startSync();
    this.syncNext ??= running.then(noop, noop).then(() => {
      this.syncNext = undefined;
      return this.startSync();
    });
    return this.syncNext;
  }

  private startSync(): Promise<void> {
    const run = this.fdatasyncWal();
    this.syncRunning = run;
    const done = () => {
      if (this.syncRunning === run) this.syncRunning = undefined;
    };
    run.then(done, done);
    return run;
  }

  /**
   * fdatasync of the write-ahead log, on libuv's thread pool. The log is opened once (and again should SQLite ever
   * replace the file); Linux syncs a file's data whichever descriptor asks.
   */
  private async fdatasyncWal(): Promise<void> {
    const path = `${this.path}-wal`;
    const ino = statSync(path).ino;
    if (this.wal?.ino !== ino) {
      if (this.wal) closeSync(this.wal.fd);
      const fd = openSync(path, 'r');
      this.wal = { fd, ino: fstatSync(fd).ino };
      // The log's directory entry is made durable once, as the file may just have been created.
      const dir = openSync(dirname(path), 'r');
      try {
        fsyncSync(dir);
      } finally {
        closeSync(dir);
      }
    }
    const fd = this.wal.fd;
    const running = new Promise<void>((resolve, reject) => fdatasync(fd, (err) => (err ? reject(err) : resolve())));
    this.syncsRunning.add(running);
    const forget = () => this.syncsRunning.delete(running);
    running.then(forget, forget);
    return running;
  }

  private apply(op: Op, revision: number): { result: WriteResult | DeleteResult; event: WatchEvent } {
    const latest = this.stmt.latest.get(op.key) as Row | undefined;
    const live = latest && latest.deleted === 0 ? latest : undefined;
    const prevRevision = latest?.id ?? 0;
    if (op.kind === 'create') {
      if (live) throw errors.keyExists(op.key, toKeyValue(live));
      this.stmt.insert.run(revision, op.key, 0, revision, prevRevision, op.value);
      return { result: { revision }, event: { type: 'create', key: op.key, value: op.value, revision } };
    }
    if (!live) throw errors.notFound(op.key);
    if (live.id !== op.expected) throw errors.conflict(op.key, op.expected, toKeyValue(live));
    const prevValue = live.value ?? EMPTY;
    if (op.kind === 'update') {
      this.stmt.insert.run(revision, op.key, 0, live.create_revision, prevRevision, op.value);
      return { result: { revision }, event: { type: 'update', key: op.key, value: op.value, prevValue, revision } };
    }
    this.stmt.insert.run(revision, op.key, 1, live.create_revision, prevRevision, null);
    return { result: { revision, prevValue }, event: { type: 'delete', key: op.key, prevValue, revision } };
  }
}

function toKeyValue(row: Row): KeyValue {
  return { key: row.name, value: row.value ?? EMPTY, modRevision: row.id, createRevision: row.create_revision };
}

function toEvent(row: LogRow): WatchEvent {
  const prev = row.prev_value !== null && row.prev_deleted === 0 ? row.prev_value : undefined;
  if (row.deleted) return { type: 'delete', key: row.name, prevValue: prev ?? EMPTY, revision: row.id };
  const value = row.value ?? EMPTY;
  if (prev === undefined) return { type: 'create', key: row.name, value, revision: row.id };
  return { type: 'update', key: row.name, value, prevValue: prev, revision: row.id };
}
