import { describe, it } from 'node:test';
import assert from '../testing/assert.js';
import { FakeClock } from '../util/clock.js';
import { TimerWheel } from './timer-wheel.js';

describe('TimerWheel', () => {
  it('fires timers in due order, ties in the order they were set, on one clock timer', () => {
    const clock = new FakeClock(1000);
    const wheel = new TimerWheel(clock);
    const fired: string[] = [];
    wheel.after(300, () => fired.push('c'));
    wheel.after(100, () => fired.push('a'));
    wheel.after(100, () => fired.push('b'));
    wheel.after(500, () => fired.push('d'));
    assert.equal(clock.pending(), 1);
    clock.step(300);
    assert.deepEqual(fired, ['a', 'b', 'c']);
    clock.step(1000);
    assert.deepEqual(fired, ['a', 'b', 'c', 'd']);
    assert.equal(wheel.size, 0);
  });

  it('cancels, repeats, and lets a callback set more timers', () => {
    const clock = new FakeClock(0);
    const wheel = new TimerWheel(clock);
    const fired: number[] = [];
    const t = wheel.after(50, () => fired.push(-1));
    t.cancel();
    const every = wheel.every(100, () => fired.push(clock.now()), 10);
    wheel.after(20, () => wheel.after(0, () => fired.push(1000 + clock.now())));
    clock.step(250);
    assert.deepEqual(fired, [10, 1020, 110, 210]);
    every.cancel();
    clock.step(500);
    assert.deepEqual(fired, [10, 1020, 110, 210]);
    assert.equal(wheel.size, 0);
  });

  it('keeps going when a callback throws, and stops for good', () => {
    const clock = new FakeClock(0);
    const errors: unknown[] = [];
    const wheel = new TimerWheel(clock, (err) => errors.push(err));
    let ran = 0;
    wheel.after(1, () => {
      throw new Error('boom');
    });
    wheel.after(2, () => ran++);
    clock.step(5);
    assert.equal(errors.length, 1);
    assert.equal(ran, 1);
    wheel.after(1, () => ran++);
    wheel.stop();
    clock.step(5);
    assert.equal(ran, 1);
    wheel.after(1, () => ran++);
    clock.step(5);
    assert.equal(ran, 1);
  });

  it('handles many timers', () => {
    const clock = new FakeClock(0);
    const wheel = new TimerWheel(clock);
    const order: number[] = [];
    const dues = Array.from({ length: 2000 }, (_, i) => (i * 7919) % 1000);
    for (const d of dues) wheel.at(d, () => order.push(d));
    clock.step(1000);
    assert.deepEqual(
      order,
      [...dues].sort((a, b) => a - b),
    );
  });
});
