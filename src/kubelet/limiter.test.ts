import { describe, it } from 'node:test';
import assert from '../testing/assert.js';
import { Limiter } from './limiter.js';

describe('kubelet call limiter', () => {
  it('runs at most max calls at once and starts the waiting ones in the order they came', async () => {
    const limiter = new Limiter(3);
    const started: number[] = [];
    const releases: (() => void)[] = [];
    let peak = 0;
    const total = 3000; // more waiters than the queue keeps before it compacts
    const done = Array.from({ length: total }, (_, i) =>
      limiter.run(async () => {
        started.push(i);
        peak = Math.max(peak, limiter.inFlight);
        await new Promise<void>((resolve) => releases.push(resolve));
        return i * 2;
      }),
    );
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(started, [0, 1, 2]);
    // Release one call at a time: the next waiter starts each time.
    while (releases.length > 0) {
      releases.shift()?.();
      await new Promise((r) => setImmediate(r));
    }
    assert.deepEqual(
      await Promise.all(done),
      Array.from({ length: total }, (_, i) => i * 2),
    );
    assert.deepEqual(
      started,
      Array.from({ length: total }, (_, i) => i),
    );
    assert.equal(peak, 3);
    assert.equal(limiter.inFlight, 0);
  });

  it('frees the slot of a call that fails', async () => {
    const limiter = new Limiter(1);
    await assert.rejects(
      limiter.run(async () => {
        throw new Error('boom');
      }),
      /boom/,
    );
    assert.equal(await limiter.run(async () => 'next'), 'next');
  });
});
