import { describe, it } from 'node:test';
import assert from '../../testing/assert.js';
import { FakeClock } from '../../util/clock.js';
import {
  BucketRateLimiter,
  defaultControllerRateLimiter,
  ItemExponentialFailureRateLimiter,
  ItemFastSlowRateLimiter,
  MaxOfRateLimiter,
  WithMaxWaitRateLimiter,
} from './rate-limiters.js';
import { createRateLimitingQueue } from './rate-limiting.js';

describe('ItemExponentialFailureRateLimiter', () => {
  it('doubles from the base per key up to the cap, and forgets', () => {
    const r = new ItemExponentialFailureRateLimiter(5, 1000);
    assert.deepEqual(
      Array.from({ length: 10 }, () => r.when('a')),
      [5, 10, 20, 40, 80, 160, 320, 640, 1000, 1000],
    );
    assert.equal(r.numRequeues('a'), 10);
    assert.equal(r.when('b'), 5, 'each key has its own count');
    r.forget('a');
    assert.equal(r.numRequeues('a'), 0);
    assert.equal(r.when('a'), 5);
  });

  it('stays at the cap when the power overflows', () => {
    const r = new ItemExponentialFailureRateLimiter(1, 1000_000);
    let last = 0;
    for (let i = 0; i < 2000; i++) last = r.when('a');
    assert.equal(last, 1000_000);
  });
});

describe('BucketRateLimiter', () => {
  it('lets a burst through at once, then spaces retries at the qps', () => {
    const clock = new FakeClock();
    const r = new BucketRateLimiter(10, 3, clock);
    assert.deepEqual([r.when('a'), r.when('b'), r.when('c')], [0, 0, 0]);
    assert.equal(r.when('d'), 100);
    assert.equal(r.when('e'), 200);
    assert.equal(r.numRequeues('a'), 0);
    clock.step(1000);
    assert.equal(r.when('f'), 0, 'the bucket refilled meanwhile');
  });
});

describe('ItemFastSlowRateLimiter', () => {
  it('answers the fast delay for the first attempts, then the slow one', () => {
    const r = new ItemFastSlowRateLimiter(5, 10_000, 3);
    assert.deepEqual(
      Array.from({ length: 5 }, () => r.when('a')),
      [5, 5, 5, 10_000, 10_000],
    );
    assert.equal(r.numRequeues('a'), 5);
    r.forget('a');
    assert.equal(r.when('a'), 5);
  });
});

describe('MaxOfRateLimiter', () => {
  it('answers the largest wait, counts in every limiter and forgets in every one', () => {
    const r = new MaxOfRateLimiter(
      new ItemExponentialFailureRateLimiter(1, 1000),
      new ItemFastSlowRateLimiter(20, 50, 2),
    );
    assert.deepEqual(
      Array.from({ length: 8 }, () => r.when('a')),
      [20, 20, 50, 50, 50, 50, 64, 128],
    );
    assert.equal(r.numRequeues('a'), 8);
    r.forget('a');
    assert.equal(r.numRequeues('a'), 0);
  });

  it('WithMaxWaitRateLimiter caps another limiter', () => {
    const r = new WithMaxWaitRateLimiter(new ItemExponentialFailureRateLimiter(100, 100_000), 250);
    assert.deepEqual([r.when('a'), r.when('a'), r.when('a')], [100, 200, 250]);
  });
});

describe('defaultControllerRateLimiter', () => {
  it('is exponential from 5 ms per key until the bucket of 100 runs dry, then 10 a second', () => {
    const clock = new FakeClock();
    const r = defaultControllerRateLimiter(clock);
    assert.deepEqual([r.when('a'), r.when('a'), r.when('a')], [5, 10, 20]);
    for (let i = 0; i < 97; i++) assert.equal(r.when(`k${i}`), 5);
    assert.equal(r.when('x'), 100, 'the overall bucket now decides');
    assert.equal(r.when('y'), 200);
  });
});

describe('createRateLimitingQueue', () => {
  it('re-adds a key after its backoff and forgets it on success', async () => {
    const clock = new FakeClock();
    const q = createRateLimitingQueue({
      clock,
      rateLimiter: new ItemExponentialFailureRateLimiter(5, 1000),
      name: 'test',
    });
    assert.equal(q.name, 'test');
    q.addRateLimited('a');
    assert.equal(q.numRequeues('a'), 1);
    assert.equal(q.len(), 0);
    clock.step(5);
    assert.equal(q.len(), 1);
    const item = await q.get();
    assert.deepEqual(item, { key: 'a', shutdown: false });
    q.addRateLimited('a');
    clock.step(9);
    q.done('a');
    assert.equal(q.len(), 0);
    clock.step(1);
    assert.equal(q.len(), 1, 'second failure waited 10 ms');
    q.forget('a');
    assert.equal(q.numRequeues('a'), 0);
  });

  it('uses the default controller rate limiter on its clock', () => {
    const clock = new FakeClock();
    const q = createRateLimitingQueue({ clock });
    q.addRateLimited('a');
    clock.step(4);
    assert.equal(q.len(), 0);
    clock.step(1);
    assert.equal(q.len(), 1);
    q.shutDown();
  });
});
