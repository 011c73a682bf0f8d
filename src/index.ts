/**
 * wheelhouse as a library: start a whole control plane inside a Node process (for tests of controllers and
 * tools), or use the storage layer directly.
 */

export type { AdmissionOptions } from './apiserver/admission/options.js';
export type { AuthenticationOptions } from './apiserver/authn/options.js';
export { SharedInformerFactory } from './client/cache/factory.js';
export { Lister } from './client/cache/listers.js';
export { SharedIndexInformer } from './client/cache/shared-informer.js';
export { DeletedFinalStateUnknown, metaNamespaceKeyFunc, splitMetaNamespaceKey } from './client/cache/store.js';
export { serverPreferredResources, serverResources } from './client/discovery.js';
export { EventBroadcaster, type EventRecorder } from './client/events/broadcaster.js';
export { loadKubeconfig } from './client/kubeconfig.js';
export { LeaderElector } from './client/leader-election.js';
export { KubeClient, type RestConfig } from './client/rest.js';
export {
  ApiError,
  type DeleteOptions,
  type GroupVersionResource,
  isAlreadyExists,
  isConflict,
  isGone,
  isNotFound,
  type KubeObject,
  type ListerWatcher,
  type ListOptions as ClientListOptions,
  type ObjectList,
  type ObjectMeta,
  type PatchType,
  type ResourceClient,
  type WatchEvent as ClientWatchEvent,
  type WatchStream,
  type WriteOptions,
} from './client/types.js';
export { createRateLimitingQueue, RateLimitingQueue } from './client/workqueue/rate-limiting.js';
export * from './control-plane.js';
export type { ControllerManager } from './controllers/manager.js';
export type { ControllerManagerOptions } from './controllers/options.js';
export type { KubeSchedulerConfiguration } from './scheduler/config/types.js';
export type { Scheduler } from './scheduler/scheduler.js';
export { type CompactionPolicy, Compactor, DEFAULT_COMPACTION } from './storage/compactor.js';
export type { EtcdStoreOptions } from './storage/etcd/store.js';
export { MemoryStore } from './storage/memory.js';
export { openStore, type StorageConfig } from './storage/open.js';
export { inspectSnapshot, restoreSnapshot, type SnapshotInfo, saveSnapshot } from './storage/sqlite/snapshot.js';
export { SqliteStore, type SqliteStoreOptions } from './storage/sqlite/store.js';
export * from './storage/types.js';
