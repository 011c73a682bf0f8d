import { describe, it } from 'node:test';
import assert from '../../testing/assert.js';
import { type QueueItem, WorkQueue } from './queue.js';

const keyOf = <K>(item: QueueItem<K>): K => {
  assert.equal(item.shutdown, false);
  return (item as { key: K }).key;
};

/** Lets pending promise callbacks run. */
const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('WorkQueue', () => {
  it('hands keys out first in, first out', async () => {
    const q = new WorkQueue();
    q.add('a');
    q.add('b');
    q.add('c');
    assert.equal(q.len(), 3);
    assert.equal(keyOf(await q.get()), 'a');
    assert.equal(keyOf(await q.get()), 'b');
    assert.equal(keyOf(await q.get()), 'c');
    assert.equal(q.len(), 0);
  });

  it('keeps one entry for a key added several times before it is taken', async () => {
    const q = new WorkQueue();
    q.add('a');
    q.add('b');
    q.add('a');
    assert.equal(q.len(), 2);
    assert.equal(keyOf(await q.get()), 'a');
    assert.equal(keyOf(await q.get()), 'b');
    assert.equal(q.len(), 0);
  });

  it('requeues a key added while it is processed only once it is done', async () => {
    const q = new WorkQueue();
    q.add('a');
    assert.equal(keyOf(await q.get()), 'a');
    q.add('a');
    q.add('a');
    assert.equal(q.len(), 0, 'not queued while processing');
    let second: QueueItem<string> | undefined;
    void q.get().then((item) => {
      second = item;
    });
    await tick();
    assert.equal(second, undefined, 'no worker gets a key another one holds');
    q.done('a');
    await tick();
    assert.deepEqual(second, { key: 'a', shutdown: false });
    q.done('a');
    assert.equal(q.len(), 0);
  });

  it('does not requeue a key that was not added again', async () => {
    const q = new WorkQueue();
    q.add('a');
    await q.get();
    q.done('a');
    assert.equal(q.len(), 0);
  });

  it('wakes a waiting getter when a key is added', async () => {
    const q = new WorkQueue<number>();
    const pending = q.get();
    q.add(7);
    assert.deepEqual(await pending, { key: 7, shutdown: false });
  });

  it('ignores new keys after shutDown, hands out what is queued, then answers shutdown', async () => {
    const q = new WorkQueue();
    q.add('a');
    q.shutDown();
    assert.equal(q.shuttingDown(), true);
    q.add('b');
    assert.equal(q.len(), 1);
    assert.equal(keyOf(await q.get()), 'a');
    assert.deepEqual(await q.get(), { shutdown: true });
  });

  it('tells waiting getters about shutdown', async () => {
    const q = new WorkQueue();
    const a = q.get();
    const b = q.get();
    q.shutDown();
    assert.deepEqual(await a, { shutdown: true });
    assert.deepEqual(await b, { shutdown: true });
  });

  it('shutDownWithDrain waits for keys being processed to be done', async () => {
    const q = new WorkQueue();
    q.add('a');
    q.add('b');
    await q.get();
    await q.get();
    let drained = false;
    const drain = q.shutDownWithDrain().then(() => {
      drained = true;
    });
    await tick();
    assert.equal(drained, false);
    q.done('a');
    await tick();
    assert.equal(drained, false);
    q.done('b');
    await drain;
    assert.equal(drained, true);
    assert.deepEqual(await q.get(), { shutdown: true });
  });

  it('shutDownWithDrain processes a key that was added again before the shutdown', async () => {
    const q = new WorkQueue();
    q.add('a');
    await q.get();
    q.add('a');
    let drained = false;
    const drain = q.shutDownWithDrain().then(() => {
      drained = true;
    });
    q.done('a');
    assert.equal(keyOf(await q.get()), 'a', 'the dirty key is handed out again');
    await tick();
    assert.equal(drained, false);
    q.done('a');
    await drain;
    assert.deepEqual(await q.get(), { shutdown: true });
  });

  it('shutDownWithDrain resolves at once when nothing is processed', async () => {
    const q = new WorkQueue();
    await q.shutDownWithDrain();
  });

  it('shutDown ends a shutDownWithDrain that is waiting', async () => {
    const q = new WorkQueue();
    q.add('a');
    await q.get();
    const drain = q.shutDownWithDrain();
    q.shutDown();
    await drain;
  });

  it('lets several workers share the keys', async () => {
    const q = new WorkQueue<number>();
    const seen: number[] = [];
    const worker = async () => {
      for (;;) {
        const item = await q.get();
        if (item.shutdown) return;
        seen.push(item.key);
        await tick();
        q.done(item.key);
      }
    };
    const workers = [worker(), worker(), worker()];
    for (let i = 0; i < 20; i++) q.add(i);
    await tick();
    await q.shutDownWithDrain();
    q.shutDown();
    await Promise.all(workers);
    assert.deepEqual(
      [...seen].sort((a, b) => a - b),
      Array.from({ length: 20 }, (_, i) => i),
    );
  });
});
