import { describe, it } from 'node:test';
import assert from '../testing/assert.js';
import { handOver, toBytes } from './types.js';

describe('toBytes', () => {
  it('takes handed-over bytes as they are, once, and copies anything else', () => {
    const bytes = handOver(Buffer.from('{"a":1}'));
    assert.equal(toBytes('/k', bytes), bytes, 'handed over: no copy');
    const again = toBytes('/k', bytes);
    assert.notEqual(again, bytes, 'the mark is taken off with the bytes: a second write copies');
    assert.deepEqual(again, bytes);
    const plain = Buffer.from('{"b":2}');
    const copied = toBytes('/k', plain);
    assert.notEqual(copied, plain);
    assert.deepEqual(copied, plain);
    assert.deepEqual(toBytes('/k', '{"c":3}'), Buffer.from('{"c":3}'));
  });
});
