import { describe, it } from 'node:test';
import assert from '../../testing/assert.js';
import { FakeClock } from '../../util/clock.js';
import { RateLimitedTimedQueue } from './rate-limited-queue.js';

const collect = async (q: RateLimitedTimedQueue, result: (v: string) => { done: boolean; retryAfterMs?: number }) => {
  const seen: string[] = [];
  await q.try(async (v) => {
    seen.push(v.value);
    return result(v.value);
  });
  return seen;
};

describe('RateLimitedTimedQueue', () => {
  it('adds a value once until it is removed, even after it was processed', async () => {
    const clock = new FakeClock(0);
    const q = new RateLimitedTimedQueue(100, clock);
    assert.equal(q.add('a', 'u1'), true);
    assert.equal(q.add('a', 'u1'), false);
    assert.deepEqual(await collect(q, () => ({ done: true })), ['a']);
    assert.equal(q.add('a', 'u1'), false, 'processed values stay known');
    assert.equal(q.remove('a'), true);
    assert.equal(q.add('a', 'u1'), true);
  });

  it('processes at most the limiter rate (burst 1)', async () => {
    const clock = new FakeClock(0);
    const q = new RateLimitedTimedQueue(0.1, clock);
    q.add('a', '');
    q.add('b', '');
    assert.deepEqual(await collect(q, () => ({ done: true })), ['a']);
    clock.step(5_000);
    assert.deepEqual(await collect(q, () => ({ done: true })), []);
    clock.step(5_000);
    assert.deepEqual(await collect(q, () => ({ done: true })), ['b']);
  });

  it('puts a value back for later when it could not be processed', async () => {
    const clock = new FakeClock(0);
    const q = new RateLimitedTimedQueue(1000, clock);
    q.add('a', '');
    assert.deepEqual(await collect(q, () => ({ done: false, retryAfterMs: 50 })), ['a']);
    assert.equal(q.values()[0]?.processAt, 51);
    clock.step(60);
    assert.deepEqual(await collect(q, () => ({ done: true })), ['a']);
    assert.equal(q.values().length, 0);
  });

  it('processes nothing with a rate of 0, and again once the rate is restored', async () => {
    const clock = new FakeClock(0);
    const q = new RateLimitedTimedQueue(0.1, clock);
    q.swapLimiter(0);
    q.add('a', '');
    clock.step(60_000);
    assert.deepEqual(await collect(q, () => ({ done: true })), []);
    // As upstream: a new limiter replacing an exhausted one starts without a token.
    q.swapLimiter(0.1);
    assert.deepEqual(await collect(q, () => ({ done: true })), []);
    clock.step(10_000);
    assert.deepEqual(await collect(q, () => ({ done: true })), ['a']);
  });
});
