import { resolve } from 'node:path';
import { type CompactionPolicy, DEFAULT_COMPACTION } from '../storage/compactor.js';
import type { StorageConfig } from '../storage/open.js';
import { parseDuration } from '../util/duration.js';

/** Flags that choose and configure the storage backend, with kube-apiserver's names for the etcd ones. */
export const storageFlagSpec = {
  'data-dir': { type: 'string' },
  storage: { type: 'string' },
  'etcd-servers': { type: 'string' },
  'etcd-cafile': { type: 'string' },
  'etcd-certfile': { type: 'string' },
  'etcd-keyfile': { type: 'string' },
  'etcd-compaction-interval': { type: 'string' },
  'storage-retain-revisions': { type: 'string' },
  'storage-retain-duration': { type: 'string' },
} as const;

export interface StorageFlags {
  'data-dir'?: string | undefined;
  storage?: string | undefined;
  'etcd-servers'?: string | undefined;
  'etcd-cafile'?: string | undefined;
  'etcd-certfile'?: string | undefined;
  'etcd-keyfile'?: string | undefined;
  'etcd-compaction-interval'?: string | undefined;
  'storage-retain-revisions'?: string | undefined;
  'storage-retain-duration'?: string | undefined;
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

export function durationFlag(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  try {
    const ms = parseDuration(value);
    if (ms < 0) throw new Error('negative');
    return ms;
  } catch {
    throw new UsageError(`--${name}: invalid duration ${JSON.stringify(value)} (use e.g. 30s, 5m, 1h)`);
  }
}

/**
 * --etcd-compaction-interval (kube-apiserver's flag, default 5m, 0 turns compaction off) for every backend, and how
 * much history to keep: --storage-retain-revisions (default 1000) and --storage-retain-duration (default 5m).
 */
export function compactionPolicyOf(flags: StorageFlags): CompactionPolicy | undefined {
  const intervalMs = durationFlag(
    'etcd-compaction-interval',
    flags['etcd-compaction-interval'],
    DEFAULT_COMPACTION.intervalMs,
  );
  if (intervalMs === 0) return undefined;
  const revisions = flags['storage-retain-revisions'] ?? String(DEFAULT_COMPACTION.retainRevisions);
  if (!/^\d+$/.test(revisions))
    throw new UsageError(`--storage-retain-revisions must be a whole number, not ${JSON.stringify(revisions)}`);
  return {
    intervalMs,
    retainRevisions: Number(revisions),
    retainMs: durationFlag('storage-retain-duration', flags['storage-retain-duration'], DEFAULT_COMPACTION.retainMs),
  };
}

/** A mistake in how the command was called: printed without a stack, exit code 2. */
export class UsageError extends Error {}
