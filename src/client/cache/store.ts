/**
 * The informer's local cache (client-go's tools/cache Store, Indexer and thread-safe store): objects by key
 * (`namespace/name`, or `name` for cluster-scoped objects), plus secondary indices that map a computed value
 * (the namespace, a node name, an owner) to the keys of the objects that have it.
 */
import type { KubeObject } from '../types.js';

/** What an informer hands to onDelete when it missed the deletion itself: the key and the last state it knew. */
export class DeletedFinalStateUnknown<T = KubeObject> {
  constructor(
    readonly key: string,
    readonly obj: T,
  ) {}
}

export type KeyFunc<T> = (obj: T | DeletedFinalStateUnknown<T>) => string;

/** Computes the values an object is indexed under (none, one or several). */
export type IndexFunc<T> = (obj: T) => string[];

export type Indexers<T> = Record<string, IndexFunc<T>>;

/** The name of the index by namespace (client-go's NamespaceIndex). */
export const NAMESPACE_INDEX = 'namespace';

/**
 * `namespace/name`, or `name` for an object without a namespace; a tombstone's own key. Throws for an object
 * without metadata (client-go's DeletionHandlingMetaNamespaceKeyFunc).
 */
export function metaNamespaceKeyFunc(obj: KubeObject | DeletedFinalStateUnknown<KubeObject>): string {
  if (obj instanceof DeletedFinalStateUnknown) return obj.key;
  const meta = (obj as Partial<KubeObject> | null)?.metadata;
  if (meta == null || typeof meta !== 'object') throw new Error('object has no meta: metadata is missing');
  const name = meta.name ?? '';
  return meta.namespace ? `${meta.namespace}/${name}` : name;
}

/** client-go's DeletionHandlingMetaNamespaceKeyFunc; the same function, under its upstream name. */
export const deletionHandlingMetaNamespaceKeyFunc = metaNamespaceKeyFunc;

/** Splits a key made by metaNamespaceKeyFunc; throws for a key with more than one slash. */
export function splitMetaNamespaceKey(key: string): { namespace: string; name: string } {
  const parts = key.split('/');
  if (parts.length === 1) return { namespace: '', name: parts[0] ?? '' };
  if (parts.length === 2) return { namespace: parts[0] ?? '', name: parts[1] ?? '' };
  throw new Error(`unexpected key format: "${key}"`);
}

/** Indexes an object under its namespace ('' for cluster-scoped objects), as client-go's MetaNamespaceIndexFunc. */
export function metaNamespaceIndexFunc(obj: KubeObject): string[] {
  return [obj.metadata?.namespace ?? ''];
}

/** The read side of the cache, as listers and controllers see it. */
export interface Store<T> {
  add(obj: T): void;
  update(obj: T): void;
  delete(obj: T | DeletedFinalStateUnknown<T>): void;
  list(): T[];
  listKeys(): string[];
  get(obj: T | DeletedFinalStateUnknown<T>): T | undefined;
  getByKey(key: string): T | undefined;
  /** Replaces the whole content with items; resourceVersion is the version they were listed at. */
  replace(items: readonly T[], resourceVersion: string): void;
  /** Nothing to do for a plain store; part of the interface the reflector writes to. */
  resync(): void;
}

/**
 * A Store with indices. Every instance has the namespace index; more can be added at any time (existing objects
 * are indexed at once). Adding an index under a name already taken by another function is an error.
 */
export class Indexer<T extends KubeObject = KubeObject> implements Store<T> {
  private readonly items = new Map<string, T>();
  private readonly indexers: Indexers<T> = {};
  /** index name → indexed value → keys */
  private readonly indices = new Map<string, Map<string, Set<string>>>();
  private readonly keyFunc: KeyFunc<T>;

  constructor(opts: { keyFunc?: KeyFunc<T>; indexers?: Indexers<T> } = {}) {
    this.keyFunc = opts.keyFunc ?? (metaNamespaceKeyFunc as KeyFunc<T>);
    this.addIndexers({ [NAMESPACE_INDEX]: metaNamespaceIndexFunc, ...opts.indexers });
  }

  keyOf(obj: T | DeletedFinalStateUnknown<T>): string {
    return this.keyFunc(obj);
  }

  add(obj: T): void {
    this.put(this.keyFunc(obj), obj);
  }

  update(obj: T): void {
    this.put(this.keyFunc(obj), obj);
  }

  delete(obj: T | DeletedFinalStateUnknown<T>): void {
    const key = this.keyFunc(obj);
    const old = this.items.get(key);
    if (old === undefined) return;
    this.unindex(key, old);
    this.items.delete(key);
  }

  list(): T[] {
    return [...this.items.values()];
  }

  listKeys(): string[] {
    return [...this.items.keys()];
  }

  get(obj: T | DeletedFinalStateUnknown<T>): T | undefined {
    return this.items.get(this.keyFunc(obj));
  }

  getByKey(key: string): T | undefined {
    return this.items.get(key);
  }

  replace(items: readonly T[], _resourceVersion: string): void {
    this.items.clear();
    for (const index of this.indices.values()) index.clear();
    for (const obj of items) this.put(this.keyFunc(obj), obj);
  }

  resync(): void {}

  /** The objects that share any indexed value with obj under indexName. */
  index(indexName: string, obj: T): T[] {
    const fn = this.indexFunc(indexName);
    const index = this.indices.get(indexName);
    const keys = new Set<string>();
    for (const value of fn(obj)) for (const key of index?.get(value) ?? []) keys.add(key);
    return this.objectsOf(keys);
  }

  /** The keys of the objects indexed under value. */
  indexKeys(indexName: string, value: string): string[] {
    this.indexFunc(indexName);
    return [...(this.indices.get(indexName)?.get(value) ?? [])];
  }

  /** Every value the index currently holds. */
  listIndexFuncValues(indexName: string): string[] {
    return [...(this.indices.get(indexName)?.keys() ?? [])];
  }

  /** The objects indexed under value. */
  byIndex(indexName: string, value: string): T[] {
    this.indexFunc(indexName);
    return this.objectsOf(this.indices.get(indexName)?.get(value) ?? []);
  }

  getIndexers(): Indexers<T> {
    return { ...this.indexers };
  }

  addIndexers(indexers: Indexers<T>): void {
    const conflicts = Object.keys(indexers).filter(
      (name) => Object.hasOwn(this.indexers, name) && this.indexers[name] !== indexers[name],
    );
    if (conflicts.length > 0) throw new Error(`indexer conflict: ${conflicts.join(', ')}`);
    for (const [name, fn] of Object.entries(indexers)) {
      if (Object.hasOwn(this.indexers, name)) continue;
      this.indexers[name] = fn;
      this.indices.set(name, new Map());
      for (const [key, obj] of this.items) this.updateIndex(name, key, undefined, obj);
    }
  }

  private indexFunc(indexName: string): IndexFunc<T> {
    const fn = Object.hasOwn(this.indexers, indexName) ? this.indexers[indexName] : undefined;
    if (!fn) throw new Error(`Index with name ${indexName} does not exist`);
    return fn;
  }

  private objectsOf(keys: Iterable<string>): T[] {
    const out: T[] = [];
    for (const key of keys) {
      const obj = this.items.get(key);
      if (obj !== undefined) out.push(obj);
    }
    return out;
  }

  private put(key: string, obj: T): void {
    const old = this.items.get(key);
    this.items.set(key, obj);
    for (const name of Object.keys(this.indexers)) this.updateIndex(name, key, old, obj);
  }

  private unindex(key: string, old: T): void {
    for (const name of Object.keys(this.indexers)) this.updateIndex(name, key, old, undefined);
  }

  private updateIndex(name: string, key: string, oldObj: T | undefined, newObj: T | undefined): void {
    const fn = this.indexFunc(name);
    const index = this.indices.get(name) as Map<string, Set<string>>;
    const oldValues = oldObj === undefined ? [] : fn(oldObj);
    const newValues = newObj === undefined ? [] : fn(newObj);
    if (oldValues.length === 1 && newValues.length === 1 && oldValues[0] === newValues[0]) return;
    for (const value of oldValues) {
      const keys = index.get(value);
      if (!keys) continue;
      keys.delete(key);
      if (keys.size === 0) index.delete(value);
    }
    for (const value of newValues) {
      let keys = index.get(value);
      if (!keys) {
        keys = new Set();
        index.set(value, keys);
      }
      keys.add(key);
    }
  }
}
