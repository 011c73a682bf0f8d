import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import assert from '../../testing/assert.js';
import { expectStorageError, runStorageConformance } from '../../testing/storage-conformance.js';
import { PAGE_SIZE, SqliteStore } from './store.js';

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

describe('sqlite store layout', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'wheelhouse-sqlite-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));
  const text = (v: Buffer | undefined) => v?.toString('utf8');

  it('drops the (name, id) index of older stores on open, and reads and writes them as before', async () => {
    const path = join(dir, 'state.db');
    let store = new SqliteStore({ path });
    const a1 = await store.create('/r/a', 'a1');
    const a2 = await store.update('/r/a', 'a2', a1.revision);
    await store.delete('/r/a', a2.revision);
    const a3 = await store.create('/r/a', 'a3');
    await store.create('/r/b', 'b1');
    await store.close();
    // The layout before 12-06 had a second index.
    const old = new Database(path);
    old.exec('CREATE INDEX kv_name_id ON kv (name, id)');
    old.close();

    store = new SqliteStore({ path });
    try {
      const check = new Database(path, { readonly: true });
      const indexes = check.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'kv'").pluck();
      assert.deepEqual(indexes.all(), ['kv_name_prev_revision']);
      check.close();
      // A key deleted and created again: its newest row now, and its rows as they were at past revisions.
      assert.equal(text((await store.get('/r/a'))?.value), 'a3');
      assert.equal(text((await store.get('/r/a', { revision: a2.revision }))?.value), 'a2');
      assert.equal(text((await store.get('/r/a', { revision: a1.revision }))?.value), 'a1');
      assert.equal(await store.get('/r/a', { revision: a3.revision - 1 }), null, 'deleted then');
      assert.deepEqual(
        (await store.list('/r/', { revision: a2.revision })).items.map((i) => text(i.value)),
        ['a2'],
      );
      const a4 = await store.update('/r/a', 'a4', a3.revision);
      await expectStorageError(store.update('/r/a', 'stale', a3.revision), 'Conflict');
      assert.deepEqual(
        (await store.list('/r/')).items.map((i) => `${text(i.value)}@${i.modRevision}`),
        [`a4@${a4.revision}`, `b1@${(await store.get('/r/b'))?.modRevision}`],
      );
    } finally {
      await store.close();
    }
  });

  it("makes new stores with 8 KiB pages and keeps an older store's own page size", async () => {
    const pageSize = (path: string) => {
      const check = new Database(path, { readonly: true });
      const size = check.pragma('page_size', { simple: true });
      check.close();
      return size;
    };
    const fresh = join(dir, 'fresh.db');
    let store = new SqliteStore({ path: fresh });
    await store.create('/r/a', 'x'.repeat(2300));
    await store.close();
    assert.equal(PAGE_SIZE, 8192);
    assert.equal(pageSize(fresh), 8192);

    // A store made with sqlite's default 4 KiB pages (as every store was before 12-07) stays as it is.
    const older = join(dir, 'older.db');
    const db = new Database(older);
    db.pragma('journal_mode = WAL');
    db.exec('CREATE TABLE t (x)');
    db.close();
    store = new SqliteStore({ path: older });
    try {
      const made = await store.create('/r/a', 'a1');
      assert.equal(text((await store.get('/r/a'))?.value), 'a1');
      assert.equal(made.revision, 1);
    } finally {
      await store.close();
    }
    assert.equal(pageSize(older), 4096);
  });
});
