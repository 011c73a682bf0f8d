import { describe, it } from 'node:test';
import assert from '../testing/assert.js';
import { BoundedMemo } from './bounded-memo.js';

describe('BoundedMemo', () => {
  it('remembers values by key, forgets everything once full, and on clear()', () => {
    const memo = new BoundedMemo<string, number>(2);
    assert.equal(memo.remember('a', 1), 1);
    memo.remember('b', 2);
    assert.equal(memo.get('a'), 1);
    assert.equal(memo.get('b'), 2);
    memo.remember('c', 3);
    assert.equal(memo.get('a'), undefined, 'full: the earlier values went');
    assert.equal(memo.get('b'), undefined);
    assert.equal(memo.get('c'), 3);
    memo.clear();
    assert.equal(memo.get('c'), undefined);
  });
});
