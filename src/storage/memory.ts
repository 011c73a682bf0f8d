import { type Logger, silentLogger } from '../util/logger.js';
import {
  checkCompactRevision,
  type DeleteResult,
  errors,
  type KeyValue,
  type ListOptions,
  type ListResult,
  type ReadOptions,
  resolveReadRevision,
  type Store,
  toBytes,
  type Value,
  type Watch,
  type WatchEvent,
  type WatchListener,
  type WriteResult,
} from './types.js';
import { WatchHub } from './watch-hub.js';

interface Version {
  revision: number;
  createRevision: number;
  /** null marks a deletion. */
  value: Buffer | null;
}

/** Finds the first index in a sorted array whose element is >= key. */
function lowerBound(sorted: string[], key: string): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((sorted[mid] as string) < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * The in-memory backend: the same contract as the durable ones, kept in this process only. For tests and
 * throwaway clusters.
 */
export class MemoryStore implements Store {
  readonly backend = 'memory';
  private rev = 0;
  private compacted = 0;
  private readonly history = new Map<string, Version[]>();
  /** Every key with history, sorted; keys added since the last sort wait in `added`. */
  private sorted: string[] = [];
  private added: string[] = [];
  private log: WatchEvent[] = [];
  private readonly hub: WatchHub;
  private closed = false;

  constructor(opts: { logger?: Logger } = {}) {
    this.hub = new WatchHub(opts.logger ?? silentLogger);
  }

  async get(key: string, opts: ReadOptions = {}): Promise<KeyValue | null> {
    const at = this.readRevision(opts.revision);
    return this.at(key, at);
  }

  async list(prefix: string, opts: ListOptions = {}): Promise<ListResult> {
    const at = this.readRevision(opts.revision);
    const start = opts.startKey !== undefined && opts.startKey > prefix ? opts.startKey : prefix;
    const limit = opts.limit && opts.limit > 0 ? opts.limit : Number.POSITIVE_INFINITY;
    const items: KeyValue[] = [];
    let more = false;
    let remaining = 0;
    const keys = this.keys();
    for (let i = lowerBound(keys, start); i < keys.length; i++) {
      const key = keys[i] as string;
      if (!key.startsWith(prefix)) break;
      const kv = this.at(key, at);
      if (!kv) continue;
      if (items.length >= limit) {
        more = true;
        if (!opts.countRemaining) break;
        remaining++;
        continue;
      }
      items.push(kv);
    }
    return { items, revision: at, more, ...(more && opts.countRemaining ? { remaining } : {}) };
  }

  async count(prefix: string): Promise<number> {
    this.assertOpen();
    let n = 0;
    const keys = this.keys();
    for (let i = lowerBound(keys, prefix); i < keys.length; i++) {
      const key = keys[i] as string;
      if (!key.startsWith(prefix)) break;
      if (this.at(key, this.rev)) n++;
    }
    return n;
  }

  async create(key: string, value: Value): Promise<WriteResult> {
    this.assertOpen();
    const bytes = toBytes(key, value);
    const current = this.at(key, this.rev);
    if (current) throw errors.keyExists(key, current);
    const revision = ++this.rev;
    this.append(key, { revision, createRevision: revision, value: bytes });
    this.emit({ type: 'create', key, value: bytes, revision });
    return { revision };
  }

  async update(key: string, value: Value, expectedRevision: number): Promise<WriteResult> {
    this.assertOpen();
    const bytes = toBytes(key, value);
    const current = this.expect(key, expectedRevision);
    const revision = ++this.rev;
    this.append(key, { revision, createRevision: current.createRevision, value: bytes });
    this.emit({ type: 'update', key, value: bytes, prevValue: current.value, revision });
    return { revision };
  }

  async delete(key: string, expectedRevision: number): Promise<DeleteResult> {
    this.assertOpen();
    const current = this.expect(key, expectedRevision);
    const revision = ++this.rev;
    this.append(key, { revision, createRevision: current.createRevision, value: null });
    this.emit({ type: 'delete', key, prevValue: current.value, revision });
    return { revision, prevValue: current.value };
  }

  watch(prefix: string, afterRevision: number, listener: WatchListener): Watch {
    if (this.closed) {
      return this.hub.subscribe(prefix, listener, () => {
        throw errors.closed();
      });
    }
    return this.hub.subscribe(prefix, listener, () => {
      if (afterRevision < this.compacted) throw errors.compacted(afterRevision, this.compacted);
      const from = this.firstLogIndexAfter(afterRevision);
      return this.log.slice(from).filter((e) => e.key.startsWith(prefix));
    });
  }

  async compact(revision: number): Promise<void> {
    this.assertOpen();
    checkCompactRevision(revision, this.rev, this.compacted);
    this.compacted = revision;
    for (const [key, versions] of this.history) {
      // Keep the newest version at or below the compaction point (unless it is a deletion) and all after it.
      let keepFrom = 0;
      for (let i = versions.length - 1; i >= 0; i--) {
        if ((versions[i] as Version).revision <= revision) {
          keepFrom = (versions[i] as Version).value === null ? i + 1 : i;
          break;
        }
      }
      if (keepFrom > 0) versions.splice(0, keepFrom);
      if (versions.length === 0) this.history.delete(key);
    }
    this.sorted = this.keys().filter((k) => this.history.has(k));
    this.log = this.log.slice(this.firstLogIndexAfter(revision));
  }

  async currentRevision(): Promise<number> {
    this.assertOpen();
    return this.rev;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.hub.closeAll();
  }

  private assertOpen(): void {
    if (this.closed) throw errors.closed();
  }

  private readRevision(revision: number | undefined): number {
    this.assertOpen();
    return resolveReadRevision(revision, this.rev, this.compacted);
  }

  private at(key: string, revision: number): KeyValue | null {
    const versions = this.history.get(key);
    if (!versions) return null;
    for (let i = versions.length - 1; i >= 0; i--) {
      const v = versions[i] as Version;
      if (v.revision > revision) continue;
      if (v.value === null) return null;
      return { key, value: v.value, modRevision: v.revision, createRevision: v.createRevision };
    }
    return null;
  }

  private expect(key: string, expectedRevision: number): KeyValue {
    const current = this.at(key, this.rev);
    if (!current) throw errors.notFound(key);
    if (current.modRevision !== expectedRevision) throw errors.conflict(key, expectedRevision, current);
    return current;
  }

  private append(key: string, version: Version): void {
    const versions = this.history.get(key);
    if (versions) {
      versions.push(version);
      return;
    }
    this.history.set(key, [version]);
    this.added.push(key);
  }

  /** The sorted key list, merging in keys added since it was last needed. */
  private keys(): string[] {
    if (this.added.length === 0) return this.sorted;
    const added = this.added.sort();
    const merged: string[] = new Array(this.sorted.length + added.length);
    let i = 0;
    let j = 0;
    let k = 0;
    while (i < this.sorted.length && j < added.length) {
      merged[k++] =
        (this.sorted[i] as string) < (added[j] as string) ? (this.sorted[i++] as string) : (added[j++] as string);
    }
    while (i < this.sorted.length) merged[k++] = this.sorted[i++] as string;
    while (j < added.length) merged[k++] = added[j++] as string;
    this.sorted = merged;
    this.added = [];
    return merged;
  }

  private emit(event: WatchEvent): void {
    this.log.push(event);
    this.hub.publish([event]);
  }

  private firstLogIndexAfter(revision: number): number {
    let lo = 0;
    let hi = this.log.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.log[mid] as WatchEvent).revision <= revision) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}
