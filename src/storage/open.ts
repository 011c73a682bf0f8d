import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from '../util/logger.js';
import type { EtcdStoreOptions } from './etcd/store.js';
import { MemoryStore } from './memory.js';
import { SqliteStore } from './sqlite/store.js';
import type { Store } from './types.js';

export type StorageConfig =
  | { backend: 'memory' }
  | { backend: 'sqlite'; dataDir: string }
  | ({ backend: 'etcd' } & Omit<EtcdStoreOptions, 'logger'>);

/** The sqlite backend's file inside a data directory. */
export const STATE_DB = 'state.db';

export function sqlitePath(dataDir: string): string {
  return join(dataDir, STATE_DB);
}

/**
 * Opens the configured backend. The etcd client (gRPC) is loaded only when etcd is chosen: it costs ~150 ms of
 * start-up that the embedded backends do not need.
 */
export async function openStore(config: StorageConfig, logger?: Logger): Promise<Store> {
  const withLogger = logger ? { logger } : {};
  switch (config.backend) {
    case 'memory':
      return new MemoryStore(withLogger);
    case 'sqlite':
      mkdirSync(config.dataDir, { recursive: true });
      return new SqliteStore({ path: sqlitePath(config.dataDir), ...withLogger });
    case 'etcd': {
      const { EtcdStore } = await import('./etcd/store.js');
      return new EtcdStore({ ...config, ...withLogger });
    }
  }
}
