/**
 * Registries for the OpenAPI tests: a hand-made one with a namespaced resource (configmaps), a cluster-scoped one
 * with a status subresource (namespaces) and a namespaced one with status and scale (deployments), and the
 * server's real one. The OpenAPI code only reads the definitions, so stores and printers are left out.
 */
import { MemoryStore } from '../../storage/memory.js';
import { silentLogger } from '../../util/logger.js';
import { APIRegistry, type ServedResource } from '../api-registry.js';
import { buildRegistry } from '../assemble.js';
import type { ResourceDefinition } from '../registry/resource.js';

function served(def: Partial<ResourceDefinition> & Pick<ResourceDefinition, 'group' | 'resource' | 'kind'>) {
  const full = {
    version: 'v1',
    listKind: `${def.kind}List`,
    namespaced: true,
    storagePrefix: `/registry/${def.resource}`,
    strategy: {},
    ...def,
  } as ResourceDefinition;
  return { def: full } as unknown as ServedResource;
}

const status = { prepareForUpdate() {} };

export function sampleRegistry(): APIRegistry {
  const registry = new APIRegistry();
  registry.add(served({ group: '', resource: 'configmaps', kind: 'ConfigMap' }));
  registry.add(served({ group: '', resource: 'namespaces', kind: 'Namespace', namespaced: false, status }));
  registry.add(
    served({ group: 'apps', resource: 'deployments', kind: 'Deployment', status, ...({ scale: true } as object) }),
  );
  return registry;
}

export function addSample(registry: APIRegistry, def: Parameters<typeof served>[0]): void {
  registry.add(served(def));
}

/** The registry the server really builds (whatever resources it serves today). */
export function realRegistry(): APIRegistry {
  return buildRegistry(new MemoryStore(), silentLogger);
}
