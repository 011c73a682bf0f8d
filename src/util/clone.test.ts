import { describe, it } from 'node:test';
import assert from '../testing/assert.js';
import { deepClone } from './clone.js';

describe('deepClone', () => {
  it('copies JSON values deeply, sharing nothing with the original', () => {
    const original = { metadata: { name: 'a', labels: { x: '1' } }, spec: { list: [{ n: 1 }, 'two', null, true] } };
    const copy = deepClone(original);
    assert.deepEqual(copy, original, 'the copy equals the original');
    copy.metadata.labels.x = '2';
    copy.spec.list.push('five');
    (copy.spec.list[0] as { n: number }).n = 9;
    assert.equal(original.metadata.labels.x, '1', 'nested objects are not shared');
    assert.equal(original.spec.list.length, 4, 'arrays are not shared');
    assert.deepEqual(original.spec.list[0], { n: 1 }, 'objects inside arrays are not shared');
  });

  it('keeps a "__proto__" key as a property, and copies other objects as structuredClone does', () => {
    const parsed = JSON.parse('{"__proto__":{"polluted":true},"a":1}') as Record<string, unknown>;
    const copy = deepClone(parsed);
    assert.deepEqual(Object.keys(copy), ['__proto__', 'a'], 'the key is an own property of the copy');
    assert.equal(({} as Record<string, unknown>).polluted, undefined, 'no prototype is touched');
    assert.equal(Object.getPrototypeOf(copy), Object.prototype, 'the copy is a plain object');
    const when = new Date(0);
    const withDate = deepClone({ when });
    assert.ok(withDate.when instanceof Date && withDate.when !== when, 'a Date is copied as a Date');
    assert.equal(withDate.when.getTime(), 0, 'with its time');
  });
});
