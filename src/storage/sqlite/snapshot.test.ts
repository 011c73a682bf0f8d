import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { promisify } from 'node:util';
import assert from '../../testing/assert.js';
import type { KeyValue } from '../types.js';
import { inspectSnapshot, restoreSnapshot, saveSnapshot } from './snapshot.js';
import { SqliteStore } from './store.js';

const run = promisify(execFile);
const wheelhouse = join(import.meta.dirname, '..', '..', '..', 'bin', 'wheelhouse.mjs');
const root = mkdtempSync(join(tmpdir(), 'wheelhouse-snap-'));
after(() => rmSync(root, { recursive: true, force: true }));

const picture = (items: KeyValue[]) =>
  items.map((i) => `${i.key}=${i.value.toString()}@${i.modRevision}/${i.createRevision}`);

describe('sqlite snapshot', () => {
  it('saves a consistent copy while writes continue, and restores every key with its revisions', async () => {
    const liveDir = join(root, 'live');
    mkdirSync(liveDir);
    const path = join(liveDir, 'state.db');
    const store = new SqliteStore({ path });
    for (let i = 0; i < 200; i++) await store.create(`/registry/configmaps/default/cm${i}`, `v0-${i}`);
    const del = await store.create('/registry/configmaps/default/deleted', 'x');
    await store.delete('/registry/configmaps/default/deleted', del.revision);

    // Writers keep going while the snapshot is taken.
    let stop = false;
    let written = 0;
    const writers = Array.from({ length: 8 }, async (_, w) => {
      for (let n = 0; !stop; n++) {
        const key = `/registry/configmaps/default/cm${(w * 25 + n) % 200}`;
        const kv = await store.get(key);
        try {
          await store.update(key, `w${w}-${n}`, kv?.modRevision ?? 0);
          written++;
        } catch {
          // another writer won this key; go on
        }
      }
    });
    await new Promise((r) => setTimeout(r, 30));
    // As a user would: `wheelhouse snapshot save` in another process, while this one keeps writing.
    const file = join(root, 'snap.db');
    const before = written;
    const { stdout } = await run(process.execPath, [wheelhouse, 'snapshot', 'save', file, '--data-dir', liveDir]);
    assert.match(stdout, /^Snapshot saved to .*snap\.db: revision \d+, 200 keys/);
    const info = inspectSnapshot(file);
    assert.ok(written > before, 'writes went on while the snapshot was taken');
    stop = true;
    await Promise.all(writers);
    assert.ok(written > 0);
    assert.ok((await store.currentRevision()) > info.revision, 'writes went on after the snapshot');

    // The snapshot is exactly the store as it was at one revision.
    const atSnapshot = await store.list('/registry/', { revision: info.revision });
    assert.equal(info.keys, atSnapshot.items.length);
    const dataDir = join(root, 'restored');
    const restoredOut = await run(process.execPath, [wheelhouse, 'snapshot', 'restore', file, '--data-dir', dataDir]);
    assert.match(restoredOut.stdout, new RegExp(`^Restored .* revision ${info.revision}, ${info.keys} keys`));
    const restored = new SqliteStore({ path: join(dataDir, 'state.db') });
    assert.equal(await restored.currentRevision(), info.revision);
    const now = await restored.list('/registry/');
    assert.deepEqual(picture(now.items), picture(atSnapshot.items));
    assert.equal(await restored.get('/registry/configmaps/default/deleted'), null);
    const next = await restored.create('/registry/configmaps/default/new', 'n');
    assert.ok(next.revision > info.revision, 'a restored store carries on from its revision');
    await restored.close();
    await store.close();
  });

  it('refuses to overwrite a file or an existing store, and to restore something that is not a snapshot', async () => {
    const path = join(root, 'a.db');
    const store = new SqliteStore({ path });
    await store.create('/registry/k', 'v');
    const file = join(root, 'a.snap');
    saveSnapshot(path, file);
    assert.throws(() => saveSnapshot(path, file), /already exists/);
    await assert.rejects(restoreSnapshot(file, path), /already exists/);
    const junk = join(root, 'junk.snap');
    writeFileSync(junk, 'this is not a database');
    assert.throws(() => inspectSnapshot(junk));
    const target = join(root, 'never.db');
    await assert.rejects(restoreSnapshot(junk, target));
    assert.equal(existsSync(target), false);
    await store.close();
  });
});
