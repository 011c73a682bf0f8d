import { describe, it } from 'node:test';
import assert from '../../testing/assert.js';
import { buildSchema } from './schema-fixture.js';
import { applyStrategicMergePatch } from './strategic-merge-patch.js';

const schema = buildSchema({
  properties: {
    items: {
      items: { properties: { name: 'string', v: 'string' } },
      patchStrategy: 'merge',
      patchMergeKey: 'name',
    },
    ints: { items: 'integer', patchStrategy: 'merge' },
  },
});

const named = (...names: string[]) => names.map((name) => ({ name }));
function names(doc: unknown, field = 'items'): unknown[] {
  const list = (doc as Record<string, unknown[]>)[field] ?? [];
  return list.map((e) => (typeof e === 'object' && e !== null ? (e as { name: string }).name : e));
}

describe('strategic merge patch: element order', () => {
  it('keeps server-only elements among the $setElementOrder ones by their live order', () => {
    const live = { items: named('a', 'b', 'x', 'y', 'z', 'c', 'd') };
    const out = applyStrategicMergePatch(live, { '$setElementOrder/items': named('b', 'a', 'd', 'c') }, schema);
    assert.deepEqual(names(out), ['b', 'a', 'x', 'y', 'z', 'd', 'c']);
  });

  it('without $setElementOrder, puts a new element after the patch elements before it', () => {
    const out = applyStrategicMergePatch(
      { items: named('a', 'b', 'c') },
      { items: [{ name: 'b', v: '2' }, { name: 'd' }] },
      schema,
    );
    assert.deepEqual(names(out), ['a', 'b', 'd', 'c']);
    assert.deepEqual((out as { items: unknown[] }).items[1], { name: 'b', v: '2' });
  });

  it('puts new elements first when the patch names no live element', () => {
    const out = applyStrategicMergePatch({ items: named('a', 'b') }, { items: named('n') }, schema);
    assert.deepEqual(names(out), ['n', 'a', 'b']);
  });

  it('merges scalars as a set, in the same interleaved order', () => {
    const out = applyStrategicMergePatch({ ints: [1, 2, 3] }, { ints: [4, 2, 4] }, schema);
    assert.deepEqual(names(out, 'ints'), [4, 1, 2, 3]);
  });

  it('orders by the live list as upstream sees it after a $patch: delete shifted it', () => {
    const out = applyStrategicMergePatch(
      { items: [{ name: 'a' }, { name: 'b', v: 'b' }, { name: 'd', v: 'd' }] },
      { '$setElementOrder/items': named('b', 'c'), items: [{ name: 'c' }, { name: 'a', $patch: 'delete' }] },
      schema,
    );
    assert.deepEqual(names(out), ['b', 'd', 'c']);
  });

  it('reverses elements it cannot place, as Go sort.SliceStable does with upstream comparison', () => {
    const out = applyStrategicMergePatch({}, { '$setElementOrder/ints': [], ints: [1, 2, 3] }, schema);
    assert.deepEqual(names(out, 'ints'), [3, 2, 1]);
  });

  it('drops $patch elements from a list that is new to the object', () => {
    const out = applyStrategicMergePatch(
      {},
      { '$setElementOrder/items': named('a'), items: [{ name: 'a' }, { name: 'z', $patch: 'delete' }] },
      schema,
    );
    assert.deepEqual(out, { items: [{ name: 'a' }] });
  });
});
