import { resolve } from 'node:path';
import type { StorageConfig } from '../storage/open.js';

/** Flags that choose and configure the storage backend, with kube-apiserver's names for the etcd ones. */
export const storageFlagSpec = {
  'data-dir': { type: 'string' },
  storage: { type: 'string' },
  'etcd-servers': { type: 'string' },
  'etcd-cafile': { type: 'string' },
  'etcd-certfile': { type: 'string' },
  'etcd-keyfile': { type: 'string' },
} as const;

export interface StorageFlags {
  'data-dir'?: string | undefined;
  storage?: string | undefined;
  'etcd-servers'?: string | undefined;
  'etcd-cafile'?: string | undefined;
  'etcd-certfile'?: string | undefined;
  'etcd-keyfile'?: string | undefined;
}

export const DEFAULT_DATA_DIR = '.wheelhouse';

export function dataDirOf(flags: StorageFlags): string {
  return resolve(flags['data-dir'] ?? DEFAULT_DATA_DIR);
}

/** --storage memory|sqlite|etcd; --etcd-servers alone implies etcd. */
export function storageConfigOf(flags: StorageFlags): StorageConfig {
  const backend = flags.storage ?? (flags['etcd-servers'] ? 'etcd' : 'sqlite');
  switch (backend) {
    case 'memory':
      return { backend };
    case 'sqlite':
      return { backend, dataDir: dataDirOf(flags) };
    case 'etcd': {
      const servers = (flags['etcd-servers'] ?? '').split(',').filter(Boolean);
      if (servers.length === 0) throw new UsageError('--storage=etcd needs --etcd-servers=URL[,URL…]');
      return {
        backend,
        servers,
        ...(flags['etcd-cafile'] ? { caFile: flags['etcd-cafile'] } : {}),
        ...(flags['etcd-certfile'] ? { certFile: flags['etcd-certfile'] } : {}),
        ...(flags['etcd-keyfile'] ? { keyFile: flags['etcd-keyfile'] } : {}),
      };
    }
    default:
      throw new UsageError(`--storage must be memory, sqlite or etcd, not ${JSON.stringify(backend)}`);
  }
}

/** A mistake in how the command was called: printed without a stack, exit code 2. */
export class UsageError extends Error {}
