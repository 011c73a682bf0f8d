import { describe, it } from 'node:test';
import assert from '../../testing/assert.js';
import { KeyedHeap } from './heap.js';

describe('KeyedHeap', () => {
  it('pops in order, finds by key, replaces and deletes in place', () => {
    const h = new KeyedHeap<{ k: string; v: number }>(
      (x) => x.k,
      (a, b) => a.v < b.v,
    );
    const values = [5, 3, 9, 1, 7, 2, 8];
    for (const v of values) h.addOrUpdate({ k: `k${v}`, v });
    assert.equal(h.size, 7);
    assert.equal(h.get('k9')?.v, 9);
    h.addOrUpdate({ k: 'k9', v: 0 });
    assert.equal(h.size, 7);
    assert.equal(h.peek()?.k, 'k9');
    assert.equal(h.delete('k3')?.v, 3);
    assert.equal(h.delete('missing'), undefined);
    const out: number[] = [];
    for (let x = h.pop(); x; x = h.pop()) out.push(x.v);
    assert.deepEqual(out, [0, 1, 2, 5, 7, 8]);
    assert.equal(h.has('k1'), false);
  });
});
