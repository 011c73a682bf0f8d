/**
 * What the PodSecurity plugin reads of the cluster: a namespace (for its labels) and the pods of a namespace (when
 * a namespace's enforce level is raised). Served from the watch caches, as upstream reads informers, with a
 * namespace not cached yet looked up in storage (upstream falls back to a live read the same way).
 */
import { StatusError } from '../../../api/status-error.js';
import type { APIRegistry } from '../../api-registry.js';
import type { KubeObject } from '../../registry/object.js';

export interface PodSecuritySources {
  /** The namespace, or undefined when it does not exist. */
  namespace(name: string): Promise<KubeObject | undefined>;
  /** Every pod of the namespace. */
  pods(namespace: string): Promise<KubeObject[]>;
}

export function registrySources(registry: APIRegistry): PodSecuritySources {
  return {
    async namespace(name) {
      const store = registry.lookup('', 'v1', 'namespaces')?.store;
      if (!store) return undefined;
      const cached = await store.cacher.get(store.key('', name));
      if (cached) return cached;
      try {
        return await store.get('', name);
      } catch (err) {
        if (err instanceof StatusError && err.code === 404) return undefined;
        throw err;
      }
    },
    async pods(namespace) {
      const store = registry.lookup('', 'v1', 'pods')?.store;
      if (!store) return [];
      return (await store.cacher.list(`${store.def.storagePrefix}/${namespace}/`, () => true)).items;
    },
  };
}
