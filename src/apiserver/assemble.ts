import { statusErrors } from '../api/status-error.js';
import type { Store } from '../storage/types.js';
import type { Logger } from '../util/logger.js';
import { APIRegistry } from './api-registry.js';
import { Cacher } from './cacher/cacher.js';
import { decodeFromStorage } from './registry/codec.js';
import type { KubeObject } from './registry/object.js';
import { builtinResources } from './registry/resources/index.js';
import { GenericStore } from './registry/store.js';

/** The namespaces every cluster has from the start. */
export const SYSTEM_NAMESPACES = ['default', 'kube-system', 'kube-public', 'kube-node-lease'];

/**
 * Builds the registry of built-in resources over one storage backend: a watch cache and a generic store each,
 * with the namespace check that refuses content in missing or terminating namespaces.
 */
export function buildRegistry(storage: Store, log: Logger): APIRegistry {
  const registry = new APIRegistry();
  let namespaceStore: GenericStore | undefined;
  const namespaceCheck = async (namespace: string) => {
    const ns = await namespaceStore?.cacher.get(`/registry/namespaces/${namespace}`);
    if (!ns) throw statusErrors.notFound({ group: '', resource: 'namespaces' }, namespace);
    if (ns.metadata.deletionTimestamp || (ns.status as { phase?: string } | undefined)?.phase === 'Terminating') {
      throw statusErrors.forbidden(
        { group: '', resource: 'namespaces' },
        namespace,
        `unable to create new content in namespace ${namespace} because it is being terminated`,
      );
    }
  };
  // Versions of one resource share its storage prefix, and so one watch cache (holding the stored form).
  const cachers = new Map<string, Cacher>();
  for (const { def, printer } of builtinResources()) {
    const prefix = `${def.storagePrefix}/`;
    let cacher = cachers.get(prefix);
    if (!cacher) {
      cacher = new Cacher(storage, prefix, decodeFromStorage, log.child(`cacher/${def.resource}`));
      cachers.set(prefix, cacher);
    }
    const store = new GenericStore(def, storage, cacher, { namespaceCheck });
    if (def.group === '' && def.resource === 'namespaces') namespaceStore = store;
    registry.add({ def, store, printer });
  }
  return registry;
}

/** Creates the system namespaces that do not exist yet. */
export async function ensureSystemNamespaces(registry: APIRegistry): Promise<void> {
  const namespaces = registry.lookup('', 'v1', 'namespaces');
  if (!namespaces) return;
  for (const name of SYSTEM_NAMESPACES) {
    try {
      await namespaces.store.create('', { metadata: { name } } as KubeObject);
    } catch (err) {
      if (!(err && typeof err === 'object' && 'code' in err && (err as { code: number }).code === 409)) throw err;
    }
  }
}
