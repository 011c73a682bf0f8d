import { describe, it } from 'node:test';
import assert from '../testing/assert.js';
import { ExponentialBackoff } from './backoff.js';
import { FakeClock } from './clock.js';

describe('ExponentialBackoff', () => {
  it("starts at the reflector's 800 ms, doubles up to 30 s and adds jitter", () => {
    const clock = new FakeClock();
    const noJitter = new ExponentialBackoff(clock, { jitter: 0 });
    const delays = Array.from({ length: 8 }, () => noJitter.next());
    assert.deepEqual(delays, [800, 1600, 3200, 6400, 12_800, 25_600, 30_000, 30_000]);
    const jittered = new ExponentialBackoff(clock, { random: () => 0.5 });
    assert.equal(jittered.next(), 1200);
    assert.equal(jittered.next(), 2400);
  });

  it('starts over after a quiet reset period, or when reset', () => {
    const clock = new FakeClock();
    const b = new ExponentialBackoff(clock, { initialMs: 100, maxMs: 1000, resetMs: 5000, jitter: 0 });
    assert.deepEqual([b.next(), b.next(), b.next()], [100, 200, 400]);
    clock.step(5000);
    assert.equal(b.next(), 800, 'not quiet for longer than resetMs yet');
    clock.step(5001);
    assert.equal(b.next(), 100);
    b.next();
    b.reset();
    assert.equal(b.next(), 100);
  });
});
