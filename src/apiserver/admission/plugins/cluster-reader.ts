/**
 * How the built-in admission plugins read cluster state: from the watch caches of the served resources (as
 * upstream's plugins read informer listers), and from storage when upstream's plugin does a live lookup (an object
 * the cache has not seen yet, e.g. created a moment ago through another apiserver).
 */
import { StatusError } from '../../../api/status-error.js';
import type { APIRegistry } from '../../api-registry.js';
import type { KubeObject } from '../../registry/object.js';
import { listPrefix } from '../../registry/resource.js';
import type { GenericStore } from '../../registry/store.js';

export interface ResourceRef {
  group: string;
  version: string;
  resource: string;
}

export class ClusterReader {
  constructor(private readonly registry: APIRegistry) {}

  /** The store of a served resource (undefined when this server does not serve it). */
  store(ref: ResourceRef): GenericStore | undefined {
    return this.registry.lookup(ref.group, ref.version, ref.resource)?.store;
  }

  /** The object as the watch cache has it, or undefined. */
  async cached(ref: ResourceRef, namespace: string, name: string): Promise<KubeObject | undefined> {
    const s = this.store(ref);
    if (!s) return undefined;
    const obj = await s.cacher.get(s.key(namespace, name));
    return obj ? s.fromStored(obj) : undefined;
  }

  /**
   * The cached object decoded once and frozen, shared with every other reader until it changes (else a live read,
   * not shared). For lookups made on every request of a resource with few objects (namespaces, service accounts);
   * the caller must only look at it.
   */
  async shared(ref: ResourceRef, namespace: string, name: string): Promise<Readonly<KubeObject> | undefined> {
    const s = this.store(ref);
    if (!s) return undefined;
    if (s.def.conversion) return this.get(ref, namespace, name);
    return (await s.cacher.getShared(s.key(namespace, name))) ?? (await this.live(ref, namespace, name));
  }

  /**
   * shared() without waiting, for the plugins' checks on every request: the object when the watch cache holds it
   * now; undefined when only shared() can tell (the cache has not loaded yet, the resource is converted, or the
   * cache does not have it and storage must be asked).
   */
  sharedNow(ref: ResourceRef, namespace: string, name: string): Readonly<KubeObject> | undefined {
    const s = this.store(ref);
    if (!s || s.def.conversion) return undefined;
    return s.cacher.getSharedNow(s.key(namespace, name)) ?? undefined;
  }

  /** listShared() without waiting; undefined when only listShared() can tell (not loaded yet, or converted). */
  listSharedNow(ref: ResourceRef, namespace = ''): readonly Readonly<KubeObject>[] | undefined {
    const s = this.store(ref);
    if (!s) return [];
    if (s.def.conversion) return undefined;
    return s.cacher.listSharedNow(listPrefix(s.def, namespace));
  }

  /** The object as storage has it now, or undefined when it does not exist. */
  async live(ref: ResourceRef, namespace: string, name: string): Promise<KubeObject | undefined> {
    const s = this.store(ref);
    if (!s) return undefined;
    try {
      return await s.get(namespace, name);
    } catch (err) {
      if (err instanceof StatusError && err.code === 404) return undefined;
      throw err;
    }
  }

  /** The cached object, else a live read. */
  async get(ref: ResourceRef, namespace: string, name: string): Promise<KubeObject | undefined> {
    return (await this.cached(ref, namespace, name)) ?? (await this.live(ref, namespace, name));
  }

  /** The objects of a namespace ('' for all, or for a cluster-scoped resource) as the watch cache has them. */
  async list(ref: ResourceRef, namespace = ''): Promise<KubeObject[]> {
    const s = this.store(ref);
    if (!s) return [];
    const { items } = await s.cacher.list(listPrefix(s.def, namespace), () => true);
    return s.def.conversion ? items.map((o) => s.fromStored(o)) : items;
  }

  /**
   * The objects of a namespace ('' for all) as the watch cache has them, each decoded once and frozen, shared with
   * every other reader until it changes (see shared): for resources with few objects read on every request
   * (LimitRanges, ResourceQuotas, IngressClasses); the caller must only look at them.
   */
  async listShared(ref: ResourceRef, namespace = ''): Promise<readonly Readonly<KubeObject>[]> {
    const s = this.store(ref);
    if (!s) return [];
    if (s.def.conversion) return this.list(ref, namespace);
    return s.cacher.listShared(listPrefix(s.def, namespace));
  }

  /** The objects of a namespace as storage has them now. */
  async liveList(ref: ResourceRef, namespace = ''): Promise<KubeObject[]> {
    const s = this.store(ref);
    if (!s) return [];
    const { items } = await s.storage.list(listPrefix(s.def, namespace));
    return items.map((kv) => s.decode(kv.value, kv.modRevision));
  }
}
