import { StatusError } from '../api/status-error.js';
import type { Store } from '../storage/types.js';
import type { Logger } from '../util/logger.js';
import { type AdmissionOptions, buildAdmissionChain } from './admission/options.js';
import { ClusterReader } from './admission/plugins/cluster-reader.js';
import type { StorageClassSource } from './admission/plugins/default-storage-class.js';
import type { PriorityClassSource } from './admission/plugins/priority.js';
import { APIRegistry, type WatchCacheBounds } from './api-registry.js';
import { ensureBootstrapPolicy } from './bootstrap/rbac-policy.js';
import { apiServerServiceIP, DEFAULT_SERVICE_CLUSTER_IP_RANGE } from './bootstrap/service-ip.js';
import { Cacher, cacheTypeDescription } from './cacher/cacher.js';
import { metricsReaderClusterRole } from './metrics-api.js';
import { decodeFromStorage } from './registry/codec.js';
import type { KubeObject } from './registry/object.js';
import { kubernetesEndpoints, kubernetesService } from './registry/resources/core-kubernetes-service.js';
import type { ServiceAllocationOptions } from './registry/resources/core-service-allocation.js';
import { kubernetesServiceCIDR, systemPriorityClasses } from './registry/resources/groups-index.js';
import { builtinResources } from './registry/resources/index.js';
import { watchIndexOf } from './registry/selection.js';
import { GenericStore } from './registry/store.js';
import type { PostStartHook } from './server.js';

/** The namespaces every cluster has from the start. */
export const SYSTEM_NAMESPACES = ['default', 'kube-system', 'kube-public', 'kube-node-lease'];

const PRIORITY_CLASSES = { group: 'scheduling.k8s.io', version: 'v1', resource: 'priorityclasses' };
const STORAGE_CLASSES = { group: 'storage.k8s.io', version: 'v1', resource: 'storageclasses' };

/**
 * Where the Priority admission plugin reads PriorityClasses: the watch cache (as upstream's plugin reads an
 * informer), with a lookup by name falling back to storage, so that a class created a moment ago is never
 * reported missing.
 */
function priorityClassSource(reader: ClusterReader): PriorityClassSource {
  return {
    get: (name) => reader.shared(PRIORITY_CLASSES, '', name),
    list: () => reader.listShared(PRIORITY_CLASSES),
    getNow: (name) => reader.sharedNow(PRIORITY_CLASSES, '', name),
    listNow: () => reader.listSharedNow(PRIORITY_CLASSES),
  };
}

/** The StorageClasses DefaultStorageClass reads: the watch cache's current list. */
function storageClassSource(reader: ClusterReader): StorageClassSource {
  return { list: () => reader.listShared(STORAGE_CLASSES) };
}

export interface RegistryOptions extends ServiceAllocationOptions {
  /** kube-apiserver's admission flags (default: upstream's default plugins). */
  admission?: AdmissionOptions;
  /** The bounds of each watch cache's window. */
  watchCache?: WatchCacheOptions;
}

export type WatchCacheOptions = WatchCacheBounds;

/**
 * Builds the registry of built-in resources over one storage backend: a watch cache and a generic store each,
 * and the admission chain every write runs (NamespaceLifecycle refuses content in missing or terminating
 * namespaces). Throws on unknown admission plugin names.
 */
export function buildRegistry(storage: Store, log: Logger, options: RegistryOptions = {}): APIRegistry {
  const registry = new APIRegistry();
  registry.watchCache = options.watchCache;
  const reader = new ClusterReader(registry);
  const admission = buildAdmissionChain(
    options.admission ?? {},
    {
      registry,
      priorityClasses: priorityClassSource(reader),
      storageClasses: storageClassSource(reader),
    },
    log.child('admission'),
  );
  // Versions of one resource share its storage prefix, and so one watch cache (holding the stored form).
  const cachers = new Map<string, Cacher>();
  for (const { def, printer } of builtinResources(options)) {
    const prefix = `${def.storagePrefix}/`;
    let cacher = cachers.get(prefix);
    if (!cacher) {
      cacher = new Cacher(storage, prefix, decodeFromStorage, log.child(`cacher/${def.resource}`), {
        ...options.watchCache,
        index: watchIndexOf(def),
        typeDescription: cacheTypeDescription(def.group, def.kind),
      });
      cachers.set(prefix, cacher);
    }
    const store = new GenericStore(def, storage, cacher, { admission });
    registry.add({ def, store, printer });
  }
  return registry;
}

/** Creates the system namespaces that do not exist yet. */
export async function ensureSystemNamespaces(registry: APIRegistry): Promise<void> {
  const namespaces = registry.lookup('', 'v1', 'namespaces');
  if (!namespaces) return;
  // Together: the storage commits concurrent writes at once (as the bootstrap policy's below).
  await Promise.all(
    SYSTEM_NAMESPACES.map(async (name) => {
      try {
        await namespaces.store.create('', { metadata: { name } } as KubeObject, { skipAdmission: true });
      } catch (err) {
        if (!(err && typeof err === 'object' && 'code' in err && (err as { code: number }).code === 409)) throw err;
      }
    }),
  );
}

/** Creates obj as the apiserver unless it exists (or the resource is not served); whether it created it. */
export async function createIfMissing(
  registry: APIRegistry,
  group: string,
  version: string,
  resource: string,
  obj: KubeObject,
): Promise<boolean> {
  const served = registry.lookup(group, version, resource);
  if (!served) return false;
  try {
    await served.store.create(obj.metadata.namespace ?? '', obj, { internal: true });
    return true;
  } catch (err) {
    if (!(err instanceof StatusError && err.code === 409)) throw err;
    return false;
  }
}

/** The kubernetes EndpointSlice: the apiserver's address and secure port, as its endpoint reconciler writes it. */
function kubernetesEndpointSlice(address: string, securePort: number): KubeObject {
  return {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: { name: 'kubernetes', namespace: 'default', labels: { 'kubernetes.io/service-name': 'kubernetes' } },
    addressType: 'IPv4',
    endpoints: [{ addresses: [address], conditions: { ready: true } }],
    ports: [{ name: 'https', port: securePort, protocol: 'TCP' }],
  };
}

/**
 * What every cluster has from the start, as kube-apiserver's bootstrap creates it: the system namespaces, the
 * system priority classes, the `kubernetes` ServiceCIDR, and the `kubernetes` Service whose Endpoints and
 * EndpointSlice point at this apiserver (updated when its address or port changed since the last start); with them
 * the ClusterRole that lets viewers read the built-in metrics API, as metrics-server's manifest would add it.
 */
export async function bootstrapCluster(
  registry: APIRegistry,
  opts: {
    advertiseAddress: string;
    securePort: number;
    serviceClusterIpRange?: string;
    /** Told of each step done, by its upstream post-start hook's name (the server's readiness follows them). */
    finished?: (hook: PostStartHook) => void;
  },
): Promise<void> {
  const range = opts.serviceClusterIpRange ?? DEFAULT_SERVICE_CLUSTER_IP_RANGE;
  const done = (hook: PostStartHook) => () => opts.finished?.(hook);
  // Independent writes go together, so that start-up waits for a few commits rather than one per object.
  await ensureSystemNamespaces(registry);
  done('start-system-namespaces-controller')();
  await Promise.all([
    ensureBootstrapPolicy(registry).then(done('rbac/bootstrap-roles')),
    Promise.all(
      systemPriorityClasses().map((pc) => createIfMissing(registry, 'scheduling.k8s.io', 'v1', 'priorityclasses', pc)),
    ).then(done('scheduling/bootstrap-system-priority-classes')),
    createIfMissing(registry, 'networking.k8s.io', 'v1', 'servicecidrs', kubernetesServiceCIDR(range)).then(
      done('start-kubernetes-service-cidr-controller'),
    ),
    createIfMissing(registry, 'rbac.authorization.k8s.io', 'v1', 'clusterroles', metricsReaderClusterRole()),
  ]);
  await createIfMissing(registry, '', 'v1', 'services', kubernetesService(apiServerServiceIP(range), opts.securePort));
  const endpoints = kubernetesEndpoints(opts.advertiseAddress, opts.securePort);
  const slice = kubernetesEndpointSlice(opts.advertiseAddress, opts.securePort);
  const pointers = [
    ['', 'endpoints', endpoints],
    ['discovery.k8s.io', 'endpointslices', slice],
  ] as const;
  await Promise.all(
    pointers.map(async ([group, resource, desired]) => {
      const served = registry.lookup(group, 'v1', resource);
      if (!served) return;
      await createIfMissing(registry, group, 'v1', resource, desired);
      // A restart on another address or port: point the objects at this server.
      await served.store.guaranteedUpdate(
        'default',
        'kubernetes',
        (current) => {
          const { metadata: _m, apiVersion: _a, kind: _k, ...content } = desired;
          return { ...current, ...content };
        },
        { internal: true },
      );
    }),
  );
  // The kubernetes Service and its endpoints, which upstream's bootstrap controller keeps.
  done('bootstrap-controller')();
}
