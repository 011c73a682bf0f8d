import { describe, it } from 'node:test';
import assert from '../testing/assert.js';
import { silentLogger } from '../util/logger.js';
import { KeyQueue } from './key-queue.js';

describe('the apiserver controllers key queue', () => {
  it('syncs each queued key once, one at a time, or all together when batched', async () => {
    for (const batched of [false, true]) {
      let inFlight = 0;
      let most = 0;
      const synced: string[] = [];
      const q = new KeyQueue(
        async (key) => {
          inFlight++;
          most = Math.max(most, inFlight);
          await new Promise((r) => setTimeout(r, 5));
          synced.push(key);
          inFlight--;
        },
        { log: silentLogger, retryMs: 10, batched },
      );
      // x syncs at once; what comes while it does waits, each key once.
      for (const key of ['x', 'a', 'b', 'a', 'c', '']) q.add(key);
      await q.whenIdle();
      assert.deepEqual(synced, ['x', 'a', 'b', 'c']);
      assert.equal(most, batched ? 3 : 1);
    }
  });

  it('queues a failed key again after the retry pause, and nothing once stopped', async () => {
    let tries = 0;
    const q = new KeyQueue(
      async () => {
        tries++;
        if (tries === 1) throw new Error('conflict');
      },
      { log: silentLogger, retryMs: 20 },
    );
    q.add('x');
    await q.whenIdle();
    assert.equal(tries, 1);
    // Tried again once the pause is over (however late the timer fires on a busy machine).
    for (let waited = 0; tries < 2 && waited < 5000; waited += 10) await new Promise((r) => setTimeout(r, 10));
    await q.whenIdle();
    assert.equal(tries, 2);
    q.stop();
    q.add('x');
    await q.whenIdle();
    assert.equal(tries, 2);
  });
});
