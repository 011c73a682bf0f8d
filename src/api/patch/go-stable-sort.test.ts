import { describe, it } from 'node:test';
import assert from '../../testing/assert.js';
import { sliceStable } from './go-stable-sort.js';

describe('sliceStable', () => {
  it('sorts stably with a consistent comparison, across block and merge boundaries', () => {
    for (const n of [0, 1, 5, 20, 21, 45, 100, 333]) {
      const items = Array.from({ length: n }, (_, i) => ({ key: (i * 7919) % 13, seq: i }));
      const expected = [...items].sort((a, b) => a.key - b.key);
      sliceStable(items, (i, j) => (items[i]?.key ?? 0) < (items[j]?.key ?? 0));
      assert.deepEqual(items, expected, `n=${n}`);
    }
  });

  it('reverses short input when every comparison answers "less", as Go does', () => {
    const items = [1, 2, 3, 4, 5];
    sliceStable(items, () => true);
    assert.deepEqual(items, [5, 4, 3, 2, 1]);
  });

  it('follows Go step for step on longer input with an always-"less" comparison', () => {
    // Each block of 20 is reversed by insertion sort; merging the two runs then rotates the second before the first.
    const items = Array.from({ length: 25 }, (_, i) => i);
    sliceStable(items, () => true);
    const firstBlock = Array.from({ length: 20 }, (_, i) => 19 - i);
    assert.deepEqual(items.slice(0, 5), [24, 23, 22, 21, 20]);
    assert.deepEqual(items.slice(5), firstBlock);
  });
});
