/**
 * wheelhouse as a library. For now: the storage layer, so that tests and tools can use the same stores the cluster
 * uses. The in-process control plane (startControlPlane) arrives with the apiserver.
 */
export { type CompactionPolicy, Compactor, DEFAULT_COMPACTION } from './storage/compactor.js';
export { EtcdStore, type EtcdStoreOptions } from './storage/etcd/store.js';
export { MemoryStore } from './storage/memory.js';
export { openStore, type StorageConfig } from './storage/open.js';
export { inspectSnapshot, restoreSnapshot, type SnapshotInfo, saveSnapshot } from './storage/sqlite/snapshot.js';
export { SqliteStore, type SqliteStoreOptions } from './storage/sqlite/store.js';
export * from './storage/types.js';
