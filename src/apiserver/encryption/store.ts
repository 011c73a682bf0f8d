/**
 * Encryption at rest as a Store decorator (ARCHITECTURE.md: storage never looks inside values): writes under a
 * configured resource's prefix are encrypted by its first provider, reads (get, list, watch, conflicts, deletes)
 * decrypted by whichever provider's prefix the value carries. Values of other resources pass through as they are;
 * one of them that is encrypted fails to read, as upstream's identity transformer refuses it.
 *
 * A value nothing reads fails the read as upstream's etcd3 store fails it with AllowUnsafeMalformedObjectDeletion
 * off (alpha and off by default in v1.33; not built here): with a StorageError 'Internal' (an InternalError to the
 * client) carrying what the transformer said, for a get and for an update's or a delete's current value; a list
 * fails whole, with `unable to transform key "<key>": …`, rather than leave the object out. A create never reads
 * what the key holds: it fails KeyExists however that is stored. A watch ends with the error at such a value, as
 * upstream's watcher sends an ERROR event and stops, except for an update's previous value, which upstream's
 * watch without a filter never reads.
 */
import { resourcesOf, servedGroupVersions } from '../../api/catalog.js';
import { goQuote } from '../../api/validation/go-format.js';
import {
  type KeyValue,
  StorageError,
  type Store,
  type Value,
  type Watch,
  type WatchEvent,
  type WatchListener,
} from '../../storage/types.js';
import { type EncryptionRule, matchesResource } from './config.js';
import { identity, type TransformerChain } from './transformers.js';

/** A read that no transformer could make: upstream's storage.InternalError. */
function untransformable(key: string, message: string, cause: unknown): StorageError {
  return new StorageError('Internal', message, { key, cause });
}

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

  /** The value decrypted, or a StorageError 'Internal' with the transformer's words. */
  private read(key: string, value: Buffer): { value: Buffer; stale: boolean } {
    const chain = this.chainFor(key);
    try {
      // An unconfigured resource is read by upstream's identity transformer, which refuses encrypted data.
      return chain ? chain.read(value, key) : { value: identity.fromStorage(value, key), stale: false };
    } catch (err) {
      throw untransformable(key, (err as Error).message, err);
    }
  }

  /** A stored key-value decrypted; stale when a provider other than the first read it (see KeyValue.stale). */
  private kv(kv: KeyValue): KeyValue {
    const { value, stale } = this.read(kv.key, kv.value);
    return stale ? { ...kv, value, stale } : { ...kv, value };
  }

  /**
   * A write's failure with its current value decrypted. A Conflict whose current value nothing reads fails with
   * that instead (upstream reads the current state back to retry, and fails there); a KeyExists only loses it
   * (upstream's create never reads the key: AlreadyExists whatever it holds).
   */
  private rethrow(err: unknown): never {
    if (err instanceof StorageError && err.current) {
      let current: KeyValue | undefined;
      try {
        current = this.kv(err.current);
      } catch (readErr) {
        if (err.code !== 'KeyExists') throw readErr;
      }
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
    const items: KeyValue[] = [];
    for (const kv of res.items) {
      try {
        items.push(this.kv(kv));
      } catch (err) {
        // Upstream's GetList stops at the first value it cannot transform, naming its key.
        const message = `unable to transform key ${goQuote(kv.key)}: ${(err as Error).message}`;
        throw untransformable(kv.key, message, err);
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

  watch(prefix: string, afterRevision: number, listener: WatchListener): Watch {
    let ended = false;
    let inner: Watch | undefined;
    const fail = (err: StorageError) => {
      ended = true;
      inner?.close();
      listener.onError(err);
    };
    inner = this.inner.watch(prefix, afterRevision, {
      onError: (err) => {
        if (!ended) fail(err);
      },
      onEvent: (ev: WatchEvent) => {
        if (ended) return;
        let out: WatchEvent;
        try {
          out = this.decryptEvent(ev);
        } catch (err) {
          fail(err as StorageError);
          return;
        }
        listener.onEvent(out);
      },
    });
    // An event delivered before watch() returned may have ended it already.
    if (ended) inner.close();
    return {
      close: () => {
        ended = true;
        inner?.close();
      },
    };
  }

  private decryptEvent(ev: WatchEvent): WatchEvent {
    if (ev.type === 'create') return { ...ev, value: this.decrypt(ev.key, ev.value) };
    if (ev.type === 'delete') return { ...ev, prevValue: this.decrypt(ev.key, ev.prevValue) };
    // An update's previous value is decrypted when read: upstream's watch without a filter never reads it, so one
    // no key reads does not end the watch.
    const value = this.decrypt(ev.key, ev.value);
    let prevValue: Buffer | undefined;
    const out = { type: ev.type, key: ev.key, value, revision: ev.revision } as WatchEvent & { type: 'update' };
    Object.defineProperty(out, 'prevValue', {
      enumerable: true,
      get: () => {
        prevValue ??= this.decrypt(ev.key, ev.prevValue);
        return prevValue;
      },
    });
    return out;
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
