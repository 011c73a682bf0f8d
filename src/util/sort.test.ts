import { describe, it } from 'node:test';
import assert from '../testing/assert.js';
import { sortByFirst, sortStrings } from './sort.js';

describe('sortStrings and sortByFirst', () => {
  it('order as Array.prototype.sort does, short and long, with duplicates and non-ASCII keys', () => {
    const alphabet = ['a', 'B', 'b', 'f:x', 'k:{"a":1}', '.', 'é', '\u{1F600}', 'zz', 'z', '', 'A1', 'a0'];
    let seed = 7;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed / 2147483648;
    };
    for (const length of [0, 1, 2, 3, 5, 10, 24, 25, 60]) {
      for (let round = 0; round < 20; round++) {
        const items = Array.from({ length }, () => alphabet[Math.floor(random() * alphabet.length)] as string);
        assert.deepEqual(sortStrings([...items]), [...items].sort(), `strings ${JSON.stringify(items)}`);
        // Pairs with the same first item keep their order (the second item says where each came from).
        const pairs = items.map((s, i) => [s, i] as const);
        const expected = [...pairs].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
        assert.deepEqual(sortByFirst([...pairs]), expected, `pairs ${JSON.stringify(items)}`);
      }
    }
  });

  it('sort in place and answer the same array', () => {
    const keys = ['b', 'a', 'c'];
    assert.equal(sortStrings(keys), keys);
    assert.deepEqual(keys, ['a', 'b', 'c']);
  });
});
