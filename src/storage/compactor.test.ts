import { describe, it } from 'node:test';
import assert from '../testing/assert.js';
import { expectStorageError } from '../testing/storage-conformance.js';
import { FakeClock } from '../util/clock.js';
import { Compactor } from './compactor.js';
import { MemoryStore } from './memory.js';

async function writeN(store: MemoryStore, n: number, key = '/registry/k'): Promise<number> {
  let kv = await store.get(key);
  let rev = kv ? kv.modRevision : (await store.create(key, 'v0')).revision;
  for (let i = 0; i < n; i++) rev = (await store.update(key, `v${i}`, rev)).revision;
  kv = await store.get(key);
  return kv?.modRevision ?? 0;
}

describe('Compactor', () => {
  it('keeps the last N revisions and the last M minutes, whichever keeps more', async () => {
    const store = new MemoryStore();
    const clock = new FakeClock(1_000_000);
    const c = new Compactor(store, { intervalMs: 60_000, retainRevisions: 10, retainMs: 120_000 }, clock);
    const r0 = await writeN(store, 50);
    c.start();
    await c.tick();
    assert.equal(c.compactedRevision, 0, 'nothing is old enough yet');

    clock.step(60_000);
    const r1 = await writeN(store, 50);
    await c.tick();
    assert.equal(c.compactedRevision, 0, 'one minute is inside the two-minute window');

    clock.step(60_000);
    await writeN(store, 5);
    await c.tick();
    assert.equal(c.compactedRevision, r0, 'compacted to the revision current two minutes ago');
    await expectStorageError(store.get('/registry/k', { revision: r0 - 1 }), 'Compacted');
    assert.ok(await store.get('/registry/k', { revision: r0 }));

    // A long quiet spell: time says compact to now, the revision count still keeps the last 10.
    await writeN(store, 30);
    for (let i = 0; i < 10; i++) {
      clock.step(60_000);
      await c.tick();
    }
    const current = await store.currentRevision();
    assert.equal(c.compactedRevision, current - 10);
    assert.ok(c.compactedRevision > r1);
    await expectStorageError(store.get('/registry/k', { revision: current - 11 }), 'Compacted');
    assert.ok(await store.get('/registry/k', { revision: current - 10 }));
    c.stop();
    assert.equal(clock.pending(), 0);
  });

  it('runs on its interval once started', async () => {
    const store = new MemoryStore();
    const clock = new FakeClock(0);
    const c = new Compactor(store, { intervalMs: 1000, retainRevisions: 1, retainMs: 0 }, clock);
    await writeN(store, 20);
    c.start();
    clock.step(1000);
    await new Promise((r) => setImmediate(r));
    assert.equal(c.compactedRevision, (await store.currentRevision()) - 1);
    c.stop();
  });
});
