import { describe, it } from 'node:test';
import assert from '../testing/assert.js';
import { parseDuration } from './duration.js';

describe('parseDuration', () => {
  it('reads Go-style durations', () => {
    assert.equal(parseDuration('5m'), 300_000);
    assert.equal(parseDuration('1h30m'), 5_400_000);
    assert.equal(parseDuration('1.5s'), 1500);
    assert.equal(parseDuration('300ms'), 300);
    assert.equal(parseDuration('0'), 0);
    assert.equal(parseDuration('-2s'), -2000);
    assert.equal(parseDuration('10us'), 0.01);
  });
  it('refuses what Go refuses', () => {
    for (const bad of ['', '5', 'm', '5x', '1h 30m', '--1s', 'abc']) {
      assert.throws(() => parseDuration(bad), /invalid duration/, bad);
    }
  });
});
