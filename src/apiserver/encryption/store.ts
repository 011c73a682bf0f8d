/**
 * Encryption at rest as a Store decorator (ARCHITECTURE.md: storage never looks inside values): writes under a
 * configured resource's prefix are encrypted by its first provider, reads (get, list, watch, conflicts, deletes)
 * decrypted by whichever provider's prefix the value carries. Keys of other resources pass through untouched.
 */
import { resourcesOf, servedGroupVersions } from '../../api/catalog.js';
import { statusErrors } from '../../api/status-error.js';
import { type KeyValue, StorageError, type Store, type Value, type WatchEvent } from '../../storage/types.js';
import { type EncryptionRule, matchesResource } from './config.js';
import type { TransformerChain } from './transformers.js';

/** /registry/<storagePrefix>/ → group and resource, for every stored built-in resource. */
function builtinPrefixes(): { prefix: string; group: string; resource: string }[] {
  const out: { prefix: string; group: string; resource: string }[] = [];
  for (const g of servedGroupVersions())
    for (const v of g.versions)
      for (const r of resourcesOf(g.group, v))
        if (r.storagePrefix !== undefined)
          out.push({ prefix: `/registry/${r.storagePrefix}/`, group: r.group, resource: r.resource });
  return out.sort((a, b) => b.prefix.length - a.prefix.length);
}

export class EncryptingStore implements Store {
  readonly backend: Store['backend'];
  private readonly prefixes = builtinPrefixes();
  private readonly cache = new Map<string, TransformerChain | null>();
  /** Keys whose values no configured provider could read, as last seen by a list. */
  readonly unreadable = new Set<string>();

  constructor(
    private readonly inner: Store,
    private readonly rules: EncryptionRule[],
  ) {
    this.backend = inner.backend;
  }

  /** The chain for a key, or null when its resource is not configured. */
  private chainFor(key: string): TransformerChain | null {
    const parts = key.split('/');
    const head = `/${parts[1]}/${parts[2]}/${parts[3] ?? ''}`;
    const cached = this.cache.get(head);
    if (cached !== undefined) return cached;
    let group: string | undefined;
    let resource: string | undefined;
    const known = this.prefixes.find((p) => key.startsWith(p.prefix));
    if (known) ({ group, resource } = known);
    else if (parts[1] === 'registry' && parts[2]?.includes('.')) {
      group = parts[2]; // custom resources: /registry/<group>/<resource>/
      resource = parts[3];
    }
    let chain: TransformerChain | null = null;
    if (group !== undefined && resource !== undefined) {
      const g = group;
      const r = resource;
      chain = this.rules.find((rule) => rule.resources.some((p) => matchesResource(p, g, r)))?.chain ?? null;
    }
    this.cache.set(head, chain);
    return chain;
  }

  private encrypt(key: string, value: Value): Value {
    const chain = this.chainFor(key);
    return chain ? chain.toStorage(Buffer.from(value), key) : value;
  }

  private decrypt(key: string, value: Buffer): Buffer {
    return this.read(key, value).value;
  }

  private read(key: string, value: Buffer): { value: Buffer; stale: boolean } {
    const chain = this.chainFor(key);
    if (!chain) return { value, stale: false };
    try {
      return chain.read(value, key);
    } catch (err) {
      throw statusErrors.internal(new Error(`unable to transform key "${key}": ${(err as Error).message}`));
    }
  }

  /** A stored key-value decrypted; stale when a provider other than the first read it (see KeyValue.stale). */
  private kv(kv: KeyValue): KeyValue {
    const { value, stale } = this.read(kv.key, kv.value);
    return stale ? { ...kv, value, stale } : { ...kv, value };
  }

  private rethrow(err: unknown): never {
    if (err instanceof StorageError && err.current) {
      const current = this.kv(err.current);
      Object.defineProperty(err, 'current', { value: current });
    }
    throw err;
  }

  /** The store underneath, holding the values as written to disk. */
  get raw(): Store {
    return this.inner;
  }

  async get(key: string, opts?: Parameters<Store['get']>[1]): Promise<KeyValue | null> {
    const kv = await this.inner.get(key, opts);
    return kv ? this.kv(kv) : null;
  }

  async list(prefix: string, opts?: Parameters<Store['list']>[1]): ReturnType<Store['list']> {
    const res = await this.inner.list(prefix, opts);
    // A value no provider reads fails alone: it is left out of lists (and so of the watch cache), and reading it
    // by name answers the internal error; the rest of the list is served.
    const items: KeyValue[] = [];
    for (const kv of res.items) {
      try {
        items.push(this.kv(kv));
      } catch {
        this.unreadable.add(kv.key);
      }
    }
    return { ...res, items };
  }

  count(prefix: string): Promise<number> {
    return this.inner.count(prefix);
  }

  create(key: string, value: Value): ReturnType<Store['create']> {
    return this.inner.create(key, this.encrypt(key, value)).catch((e) => this.rethrow(e));
  }

  update(key: string, value: Value, expectedRevision: number): ReturnType<Store['update']> {
    return this.inner.update(key, this.encrypt(key, value), expectedRevision).catch((e) => this.rethrow(e));
  }

  async delete(key: string, expectedRevision: number): ReturnType<Store['delete']> {
    const res = await this.inner.delete(key, expectedRevision).catch((e) => this.rethrow(e));
    return { ...res, prevValue: this.decrypt(key, res.prevValue) };
  }

  watch(prefix: string, afterRevision: number, listener: Parameters<Store['watch']>[2]): ReturnType<Store['watch']> {
    return this.inner.watch(prefix, afterRevision, {
      onError: (err) => listener.onError(err),
      onEvent: (ev: WatchEvent) => {
        try {
          if (ev.type === 'create') listener.onEvent({ ...ev, value: this.decrypt(ev.key, ev.value) });
          else if (ev.type === 'update')
            listener.onEvent({
              ...ev,
              value: this.decrypt(ev.key, ev.value),
              prevValue: this.decrypt(ev.key, ev.prevValue),
            });
          else listener.onEvent({ ...ev, prevValue: this.decrypt(ev.key, ev.prevValue) });
        } catch {
          // A value no provider can read is left out of the watch; reads of it fail with the internal error.
        }
      },
    });
  }

  compact(revision: number): Promise<void> {
    return this.inner.compact(revision);
  }

  currentRevision(): Promise<number> {
    return this.inner.currentRevision();
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}
