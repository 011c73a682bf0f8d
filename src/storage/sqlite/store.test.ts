import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runStorageConformance } from '../../testing/storage-conformance.js';
import { SqliteStore } from './store.js';

runStorageConformance({
  name: 'sqlite',
  newStore: async () => {
    const dir = mkdtempSync(join(tmpdir(), 'wheelhouse-sqlite-'));
    return {
      store: new SqliteStore({ path: join(dir, 'state.db') }),
      cleanup: async () => rmSync(dir, { recursive: true, force: true }),
    };
  },
});
