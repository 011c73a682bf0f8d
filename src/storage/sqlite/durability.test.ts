import fs, { mkdtempSync, rmSync } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it, mock } from 'node:test';
import Database from 'better-sqlite3';
import assert from '../../testing/assert.js';
import { describeEvents, expectStorageError, WatchRecorder } from '../../testing/storage-conformance.js';
import { SqliteStore } from './store.js';

const dirs: string[] = [];
function newPath(): string {
  const dir = mkdtempSync(join(tmpdir(), 'wheelhouse-sqlite-'));
  dirs.push(dir);
  return join(dir, 'state.db');
}
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe('sqlite store: durability and group commit', () => {
  it('acknowledges no write before the sync of its batch has returned', async () => {
    const synced = new Set<number>();
    let syncs = 0;
    const store = new SqliteStore({
      path: newPath(),
      syncHook: async (revisions, sync) => {
        await sync();
        syncs++;
        for (const r of revisions) synced.add(r);
      },
    });
    const acks: Array<{ revision: number; syncedBeforeAck: boolean }> = [];
    const writes = Array.from({ length: 64 }, (_, i) =>
      store.create(`/registry/pods/default/p${i}`, `pod ${i}`).then((r) => {
        acks.push({ revision: r.revision, syncedBeforeAck: synced.has(r.revision) });
      }),
    );
    await Promise.all(writes);
    assert.equal(acks.length, 64);
    assert.ok(
      acks.every((a) => a.syncedBeforeAck),
      'every acknowledged revision was in a batch whose sync had returned',
    );
    assert.equal(syncs, 1, '64 writes issued together share one commit');
    await store.close();
  });

  it('batches committed while a sync runs wait for the next fdatasync, which they share', async () => {
    // Every fdatasync is held until the test lets it run.
    const held: Array<() => void> = [];
    const real = fs.fdatasync;
    mock.method(fs, 'fdatasync', (fd: number, cb: (err: NodeJS.ErrnoException | null) => void) => {
      held.push(() => real(fd, cb));
    });
    syncBuiltinESMExports();
    const tick = () => new Promise((r) => setImmediate(r));
    try {
      const store = new SqliteStore({ path: newPath() });
      let firstAcked = false;
      const first = store.create('/registry/configmaps/default/a', 'a').then(() => (firstAcked = true));
      for (let i = 0; i < 100 && held.length === 0; i++) await tick();
      assert.equal(held.length, 1, "the first batch's sync began");
      // Three more batches, one per turn of the loop, all committed while that sync runs.
      let laterAcked = 0;
      const later: Promise<unknown>[] = [];
      for (const name of ['b', 'c', 'd']) {
        later.push(store.create(`/registry/configmaps/default/${name}`, name).then(() => laterAcked++));
        await tick();
        await tick();
      }
      assert.equal(held.length, 1, 'no other fdatasync starts while one runs');
      held[0]?.();
      await first;
      assert.equal(firstAcked, true);
      for (let i = 0; i < 100 && held.length === 1; i++) await tick();
      assert.equal(held.length, 2, 'when it returned, one more sync started');
      assert.equal(
        laterAcked,
        0,
        'the later batches wait for it: the first sync may have begun before they were written',
      );
      held[1]?.();
      await Promise.all(later);
      assert.equal(laterAcked, 3);
      assert.equal(held.length, 2, 'the three batches shared one fdatasync');
      await store.close();
    } finally {
      mock.restoreAll();
      syncBuiltinESMExports();
    }
  });

  it('shows no reader a batch whose sync is still running, and acknowledges later batches only after it', async () => {
    let release: () => void = () => {};
    const held: number[][] = [];
    const store = new SqliteStore({
      path: newPath(),
      syncHook: async (revisions, sync) => {
        held.push(revisions);
        if (held.length === 1) await new Promise<void>((r) => (release = r));
        await sync();
      },
    });
    const rec = new WatchRecorder();
    const w = store.watch('/registry/', 0, rec.listener);
    let acked = false;
    const first = store.create('/registry/configmaps/default/a', 'a1').then((r) => {
      acked = true;
      return r;
    });
    for (let i = 0; i < 100 && held.length === 0; i++) await new Promise((r) => setImmediate(r));
    assert.equal(held.length, 1, 'the batch was committed and its sync began');
    // Committed to the log, not yet synced: no read, count, replay or watcher sees it.
    assert.equal(acked, false);
    assert.equal(await store.get('/registry/configmaps/default/a'), null);
    assert.equal(await store.count('/registry/configmaps/'), 0);
    assert.equal(await store.currentRevision(), 0);
    assert.deepEqual((await store.list('/registry/')).items, []);
    const late = new WatchRecorder();
    const w2 = store.watch('/registry/', 0, late.listener);
    let moreAcked = 0;
    const more = [
      store.create('/registry/configmaps/default/b', 'b1'),
      store.create('/registry/configmaps/default/c', 'c1'),
    ].map((p) => p.then(() => moreAcked++));
    for (let i = 0; i < 20 && held.length < 2; i++) await new Promise((r) => setImmediate(r));
    assert.equal(held.length, 2, 'the writes made during the sync are committed as one batch, and its sync starts');
    assert.deepEqual(held[1]?.length, 2);
    for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
    assert.equal(moreAcked, 0, 'the later batch synced, but waits for the first');
    assert.equal(await store.get('/registry/configmaps/default/b'), null);
    assert.deepEqual(rec.events, []);
    release();
    const a = await first;
    await Promise.all(more);
    assert.equal((await store.get('/registry/configmaps/default/a'))?.modRevision, a.revision);
    const expected = [
      'create /registry/configmaps/default/a=a1',
      'create /registry/configmaps/default/b=b1',
      'create /registry/configmaps/default/c=c1',
    ];
    assert.deepEqual(describeEvents(await rec.waitForEvents(3)), expected);
    assert.deepEqual(describeEvents(await late.waitForEvents(3)), expected, 'a replay then the live events, once each');
    w.close();
    w2.close();
    await store.close();
  });

  it('rejects a batch whose sync fails and takes its rows out again; revisions are not reused', async () => {
    const failing = { on: false };
    const store = new SqliteStore({
      path: newPath(),
      syncHook: async (_revisions, sync) => {
        await sync();
        if (failing.on) throw new Error('EIO: injected fsync failure');
      },
    });
    const before = await expectFailedBatch(store, failing, /sqlite sync failed: Error: EIO/);
    const again = new SqliteStore({ path: store.path });
    assert.equal(await again.get('/registry/configmaps/default/a'), null, 'the removed rows stay removed');
    assert.ok((await again.create('/registry/configmaps/default/b', 'b')).revision > before + 3, 'nor reused later');
    await again.close();
  });

  it('a failed sync also rejects the batches committed on top of it, and removes their rows', async () => {
    let fail: (err: Error) => void = () => {};
    let calls = 0;
    const store = new SqliteStore({
      path: newPath(),
      syncHook: async (_revisions, sync) => {
        calls++;
        if (calls === 2) await new Promise<void>((_, reject) => (fail = reject));
        await sync();
      },
    });
    const kept = await store.create('/registry/configmaps/default/kept', 'v1');
    const first = store.create('/registry/configmaps/default/a', 'a1');
    for (let i = 0; i < 20 && calls < 2; i++) await new Promise((r) => setImmediate(r));
    const second = store.update('/registry/configmaps/default/kept', 'v2', kept.revision);
    for (let i = 0; i < 20 && calls < 3; i++) await new Promise((r) => setImmediate(r));
    assert.equal(calls, 3, 'the second batch was committed while the first was syncing');
    fail(new Error('EIO: injected fsync failure'));
    const results = await Promise.allSettled([first, second]);
    for (const r of results) {
      assert.equal(r.status, 'rejected');
      assert.match((r as PromiseRejectedResult).reason.message, /sqlite sync failed: Error: EIO/);
    }
    assert.equal(await store.currentRevision(), kept.revision);
    assert.equal(await store.get('/registry/configmaps/default/a'), null);
    assert.equal((await store.get('/registry/configmaps/default/kept'))?.value.toString(), 'v1');
    const next = await store.update('/registry/configmaps/default/kept', 'v3', kept.revision);
    assert.ok(next.revision > kept.revision + 2, 'the revisions of the failed batches are not used again');
    await store.close();
  });

  it('acknowledges nothing, keeps nothing and tells watchers nothing when a commit fails', async () => {
    const failing = { on: false };
    const store = new SqliteStore({
      path: newPath(),
      commitHook: (_revisions, commit) => {
        if (failing.on) throw new Error('SQLITE_FULL: injected commit failure');
        commit();
      },
    });
    await expectFailedBatch(store, failing, /sqlite commit failed: Error: SQLITE_FULL/);
  });

  it('opens its file in WAL mode', async () => {
    const path = newPath();
    const store = new SqliteStore({ path });
    await store.create('/registry/k', 'v');
    const peek = new Database(path, { readonly: true });
    assert.equal(peek.pragma('journal_mode', { simple: true }), 'wal');
    peek.close();
    await store.close();
  });

  it('keeps keys, revisions and history across a restart, and resumes a watch from before it', async () => {
    const path = newPath();
    const first = new SqliteStore({ path });
    const a = await first.create('/registry/secrets/default/a', 'a1');
    const mark = a.revision;
    const a2 = await first.update('/registry/secrets/default/a', 'a2', a.revision);
    const b = await first.create('/registry/secrets/default/b', 'b1');
    await first.close();

    const second = new SqliteStore({ path });
    assert.equal(await second.currentRevision(), b.revision);
    const kv = await second.get('/registry/secrets/default/a');
    assert.equal(kv?.modRevision, a2.revision);
    assert.equal(kv?.createRevision, a.revision);
    assert.equal((await second.get('/registry/secrets/default/a', { revision: mark }))?.value.toString(), 'a1');
    const rec = new WatchRecorder();
    const w = second.watch('/registry/secrets/', mark, rec.listener);
    const c = await second.create('/registry/secrets/default/c', 'c1');
    assert.ok(c.revision > b.revision, 'revisions continue after a restart');
    assert.deepEqual(describeEvents(await rec.waitForEvents(3)), [
      'update /registry/secrets/default/a=a2 (was a1)',
      'create /registry/secrets/default/b=b1',
      'create /registry/secrets/default/c=c1',
    ]);
    w.close();
    await second.close();
  });

  it('refuses a second store on a file that is open, and takes over the lock of a dead process', async () => {
    const path = newPath();
    const store = new SqliteStore({ path });
    assert.throws(() => new SqliteStore({ path }), /already open in this process/);
    await store.close();
    const { writeFileSync } = await import('node:fs');
    writeFileSync(`${path}.lock`, '1\n'); // pid 1 is alive but is not us
    assert.throws(() => new SqliteStore({ path }), /in use by process 1/);
    writeFileSync(`${path}.lock`, '2147483646\n'); // no such process
    const again = new SqliteStore({ path });
    await again.close();
  });

  it('never reuses a revision, even after compaction removes the newest row', async () => {
    const path = newPath();
    const store = new SqliteStore({ path });
    const c = await store.create('/registry/k', 'v');
    const d = await store.delete('/registry/k', c.revision);
    await store.compact(d.revision);
    await store.close();
    const again = new SqliteStore({ path });
    assert.equal(await again.currentRevision(), d.revision);
    const next = await again.create('/registry/k', 'v2');
    assert.ok(next.revision > d.revision);
    await expectStorageError(again.get('/registry/k', { revision: c.revision }), 'Compacted');
    await again.close();
  });
});

/**
 * With failing.on, a create and an update issued together are both rejected (Unavailable, message), leave nothing
 * behind and reach no watcher; once it is off, the store goes on. Closes the store; returns the last revision
 * acknowledged before the failure.
 */
async function expectFailedBatch(store: SqliteStore, failing: { on: boolean }, message: RegExp): Promise<number> {
  const kept = await store.create('/registry/configmaps/default/kept', 'v1');
  const rec = new WatchRecorder();
  const w = store.watch('/registry/', kept.revision, rec.listener);
  failing.on = true;
  const results = await Promise.allSettled([
    store.create('/registry/configmaps/default/a', 'x'),
    store.update('/registry/configmaps/default/kept', 'v2', kept.revision),
  ]);
  for (const r of results) {
    assert.equal(r.status, 'rejected');
    assert.equal((r as PromiseRejectedResult).reason.code, 'Unavailable');
    assert.match((r as PromiseRejectedResult).reason.message, message);
  }
  assert.equal(await store.currentRevision(), kept.revision);
  assert.equal(await store.get('/registry/configmaps/default/a'), null);
  assert.equal((await store.get('/registry/configmaps/default/kept'))?.value.toString(), 'v1');
  failing.on = false;
  const next = await store.update('/registry/configmaps/default/kept', 'v3', kept.revision);
  assert.ok(next.revision > kept.revision);
  assert.deepEqual(describeEvents(await rec.waitForEvents(1)), [
    'update /registry/configmaps/default/kept=v3 (was v1)',
  ]);
  w.close();
  await store.close();
  return kept.revision;
}
