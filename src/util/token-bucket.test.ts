import { describe, test } from 'node:test';
import assert from '../testing/assert.js';
import { FakeClock } from './clock.js';
import { TokenBucket } from './token-bucket.js';

describe('TokenBucket', () => {
  test('starts full: burst tokens at once, then none until time passes', () => {
    const clock = new FakeClock();
    const bucket = new TokenBucket(2, 3, clock);
    assert.equal(bucket.tryTake(), true);
    assert.equal(bucket.tryTake(), true);
    assert.equal(bucket.tryTake(), true);
    assert.equal(bucket.tryTake(), false);
    clock.step(499);
    assert.equal(bucket.tryTake(), false, 'at 2 qps a token takes 500 ms');
    clock.step(1);
    assert.equal(bucket.tryTake(), true);
    assert.equal(bucket.tryTake(), false);
  });

  test('refills up to burst and no further', () => {
    const clock = new FakeClock();
    const bucket = new TokenBucket(10, 2, clock);
    bucket.tryTake();
    bucket.tryTake();
    clock.step(60_000);
    assert.equal(bucket.tryTake(), true);
    assert.equal(bucket.tryTake(), true);
    assert.equal(bucket.tryTake(), false);
  });

  test('reserve goes into debt and says how long to wait', () => {
    const clock = new FakeClock();
    const bucket = new TokenBucket(1, 1, clock);
    assert.equal(bucket.reserve(), 0);
    assert.equal(bucket.reserve(), 1000);
    assert.equal(bucket.reserve(), 2000, 'each reservation waits behind the one before');
    assert.equal(bucket.tryTake(), false, 'tryTake does not go into debt');
    clock.step(2500);
    assert.equal(bucket.reserve(), 500, 'half a token came in; the debt is paid off first');
  });

  test('take waits on the clock', async () => {
    const clock = new FakeClock();
    const bucket = new TokenBucket(4, 1, clock);
    await bucket.take();
    let done = false;
    const waiting = bucket.take().then(() => {
      done = true;
    });
    await Promise.resolve();
    assert.equal(done, false);
    clock.step(249);
    await Promise.resolve();
    assert.equal(done, false);
    clock.step(1);
    await waiting;
    assert.equal(done, true);
  });

  test('qps <= 0 or Infinity means unlimited', async () => {
    for (const qps of [0, -1, Number.POSITIVE_INFINITY]) {
      const bucket = new TokenBucket(qps, 1, new FakeClock());
      for (let i = 0; i < 100; i++) assert.equal(bucket.tryTake(), true);
      assert.equal(bucket.reserve(), 0);
      await bucket.take();
    }
  });
});
