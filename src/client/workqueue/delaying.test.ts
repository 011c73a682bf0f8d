import { describe, it } from 'node:test';
import assert from '../../testing/assert.js';
import { FakeClock } from '../../util/clock.js';
import { DelayingQueue } from './delaying.js';

async function drain(q: DelayingQueue): Promise<string[]> {
  const keys: string[] = [];
  while (q.len() > 0) {
    const item = await q.get();
    if (item.shutdown) break;
    keys.push(item.key);
    q.done(item.key);
  }
  return keys;
}

describe('DelayingQueue', () => {
  it('adds a key once its delay has passed on the clock', async () => {
    const clock = new FakeClock();
    const q = new DelayingQueue({ clock });
    q.addAfter('a', 50);
    assert.equal(q.len(), 0);
    assert.equal(q.waitingLen(), 1);
    clock.step(49);
    assert.equal(q.len(), 0);
    clock.step(1);
    assert.equal(q.len(), 1);
    assert.equal(q.waitingLen(), 0);
    assert.deepEqual(await drain(q), ['a']);
  });

  it('adds at once for a delay of zero or less', () => {
    const q = new DelayingQueue({ clock: new FakeClock() });
    q.addAfter('a', 0);
    q.addAfter('b', -5);
    assert.equal(q.len(), 2);
  });

  it('adds keys in the order they become ready, ties in the order asked', async () => {
    const clock = new FakeClock();
    const q = new DelayingQueue({ clock });
    q.addAfter('late', 300);
    q.addAfter('early', 100);
    q.addAfter('mid-1', 200);
    q.addAfter('mid-2', 200);
    clock.step(1000);
    assert.deepEqual(await drain(q), ['early', 'mid-1', 'mid-2', 'late']);
  });

  it('moves a waiting key earlier when a shorter delay is asked, never later', () => {
    const clock = new FakeClock();
    const q = new DelayingQueue({ clock });
    q.addAfter('a', 1000);
    q.addAfter('a', 100);
    assert.equal(q.waitingLen(), 1);
    clock.step(100);
    assert.equal(q.len(), 1);
    q.addAfter('b', 100);
    q.addAfter('b', 5000);
    clock.step(100);
    assert.equal(q.len(), 2, 'b came at its first, earlier time');
    clock.step(10_000);
    assert.equal(q.len(), 2, 'and only once');
  });

  it('a key already queued is not duplicated when its delay passes', () => {
    const clock = new FakeClock();
    const q = new DelayingQueue({ clock });
    q.add('a');
    q.addAfter('a', 10);
    clock.step(10);
    assert.equal(q.len(), 1);
  });

  it('wakes a waiting getter when the delay passes', async () => {
    const clock = new FakeClock();
    const q = new DelayingQueue({ clock });
    const pending = q.get();
    q.addAfter('a', 10);
    clock.step(10);
    assert.deepEqual(await pending, { key: 'a', shutdown: false });
  });

  it('drops waiting keys and its timer on shutdown', async () => {
    const clock = new FakeClock();
    const q = new DelayingQueue({ clock });
    q.addAfter('a', 10);
    q.shutDown();
    assert.equal(clock.pending(), 0);
    q.addAfter('b', 10);
    clock.step(100);
    assert.equal(q.len(), 0);
    assert.deepEqual(await q.get(), { shutdown: true });
  });
});
