import { describe, it } from 'node:test';
import assert from '../testing/assert.js';
import {
  findMatchingUntoleratedTaint,
  getMatchingTolerations,
  minTolerationTimeMs,
  taintString,
  toleratesTaint,
} from './taints.js';

describe('toleratesTaint', () => {
  const taint = { key: 'foo', value: 'bar', effect: 'NoExecute' };
  const cases: [string, Record<string, unknown>, boolean][] = [
    ['same key, value, effect', { key: 'foo', value: 'bar', effect: 'NoExecute' }, true],
    ['empty operator is Equal', { key: 'foo', operator: '', value: 'bar', effect: 'NoExecute' }, true],
    ['different value', { key: 'foo', operator: 'Equal', value: 'baz', effect: 'NoExecute' }, false],
    ['different key', { key: 'fo', value: 'bar', effect: 'NoExecute' }, false],
    ['different effect', { key: 'foo', value: 'bar', effect: 'NoSchedule' }, false],
    ['empty effect matches all', { key: 'foo', value: 'bar' }, true],
    ['Exists ignores value', { key: 'foo', operator: 'Exists', effect: 'NoExecute' }, true],
    ['empty key with Exists', { operator: 'Exists' }, true],
    ['empty key with Exists, other effect', { operator: 'Exists', effect: 'NoSchedule' }, false],
    ['empty key with Equal does not match a keyed taint value', { value: 'baz' }, false],
    ['unknown operator', { key: 'foo', operator: 'In', value: 'bar' }, false],
  ];
  for (const [name, toleration, want] of cases) {
    it(name, () => assert.equal(toleratesTaint(toleration, taint), want));
  }
});

describe('taint helpers', () => {
  it('findMatchingUntoleratedTaint honours the filter and order', () => {
    const taints = [
      { key: 'a', effect: 'PreferNoSchedule' },
      { key: 'b', effect: 'NoSchedule' },
    ];
    assert.equal(findMatchingUntoleratedTaint(taints, [])?.key, 'a');
    assert.equal(findMatchingUntoleratedTaint(taints, [], (t) => t.effect === 'NoSchedule')?.key, 'b');
    assert.equal(findMatchingUntoleratedTaint(taints, [{ operator: 'Exists' }]), undefined);
  });
  it('getMatchingTolerations returns the first tolerating toleration per taint', () => {
    const taints = [{ key: 'node.kubernetes.io/not-ready', effect: 'NoExecute' }];
    const t1 = { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 };
    assert.deepEqual(getMatchingTolerations(taints, [t1, { operator: 'Exists' }]), [t1]);
    assert.equal(getMatchingTolerations(taints, []), undefined);
    assert.deepEqual(getMatchingTolerations([], []), []);
  });
  it('minTolerationTimeMs', () => {
    assert.equal(minTolerationTimeMs([]), 0);
    assert.equal(minTolerationTimeMs([{ operator: 'Exists' }]), -1);
    assert.equal(minTolerationTimeMs([{ tolerationSeconds: 300 }, { tolerationSeconds: 60 }, {}]), 60_000);
    assert.equal(minTolerationTimeMs([{ tolerationSeconds: 300 }, { tolerationSeconds: -5 }]), 0);
  });
  it('taintString', () => {
    assert.equal(taintString({ key: 'k', value: 'v', effect: 'NoSchedule' }), 'k=v:NoSchedule');
    assert.equal(taintString({ key: 'k', effect: 'NoExecute' }), 'k:NoExecute');
  });
});
