import { describe, it } from 'node:test';
import assert from '../../testing/assert.js';
import { age, humanDuration } from './duration.js';

describe('humanDuration', () => {
  it('prints ages the way kubectl shows them', () => {
    const s = 1000;
    const m = 60 * s;
    const h = 60 * m;
    const d = 24 * h;
    const cases: Array<[number, string]> = [
      [-5 * s, '<invalid>'],
      [-1 * s, '0s'],
      [0, '0s'],
      [119 * s, '119s'],
      [2 * m, '2m'],
      [3 * m + 20 * s, '3m20s'],
      [10 * m + 30 * s, '10m'],
      [179 * m, '179m'],
      [3 * h, '3h'],
      [5 * h + 7 * m, '5h7m'],
      [47 * h, '47h'],
      [3 * d, '3d'],
      [3 * d + 4 * h, '3d4h'],
      [100 * d, '100d'],
      [3 * 365 * d + 5 * d, '3y5d'],
      [9 * 365 * d, '9y'],
    ];
    for (const [ms, want] of cases) assert.equal(humanDuration(ms), want, `${ms}`);
    assert.equal(age(undefined), '<unknown>');
    assert.equal(age('2026-01-01T00:00:00Z', Date.parse('2026-01-01T00:01:05Z')), '65s');
  });
});
