import { describe, it } from 'node:test';
import assert from '../../testing/assert.js';
import { selectorString } from './disruption-controller.js';
import {
  disruptionsAllowedOf,
  type StatusCondition,
  scaledValueFromIntOrPercent,
  setStatusCondition,
} from './status.js';

describe('scaledValueFromIntOrPercent', () => {
  it('takes ints as they are and scales percentages, rounding as asked', () => {
    assert.equal(scaledValueFromIntOrPercent(2, 10, true), 2);
    assert.equal(scaledValueFromIntOrPercent('50%', 3, true), 2);
    assert.equal(scaledValueFromIntOrPercent('50%', 3, false), 1);
    assert.equal(scaledValueFromIntOrPercent('100%', 0, true), 0);
  });
  it('refuses strings that are not percentages', () => {
    assert.throws(() => scaledValueFromIntOrPercent('5', 3, true), /string is not a percentage/);
    assert.throws(() => scaledValueFromIntOrPercent('x%', 3, true), /invalid value "x%"/);
  });
});

describe('disruptionsAllowedOf', () => {
  it('is healthy minus desired, never negative, and 0 while no pods are expected', () => {
    assert.equal(disruptionsAllowedOf(4, 2, 4), 2);
    assert.equal(disruptionsAllowedOf(1, 2, 4), 0);
    assert.equal(disruptionsAllowedOf(3, 0, 0), 0);
  });
});

describe('setStatusCondition', () => {
  it('keeps the transition time unless the status changes', () => {
    const conditions: StatusCondition[] = [];
    setStatusCondition(
      conditions,
      { type: 'A', status: 'True', reason: 'R', message: '' },
      Date.parse('2025-01-01T00:00:00Z'),
    );
    setStatusCondition(
      conditions,
      { type: 'A', status: 'True', reason: 'S', message: '' },
      Date.parse('2025-02-01T00:00:00Z'),
    );
    assert.equal(conditions[0]?.lastTransitionTime, '2025-01-01T00:00:00Z');
    assert.equal(conditions[0]?.reason, 'S');
    setStatusCondition(
      conditions,
      { type: 'A', status: 'False', reason: 'S', message: '' },
      Date.parse('2025-03-01T00:00:00Z'),
    );
    assert.equal(conditions[0]?.lastTransitionTime, '2025-03-01T00:00:00Z');
  });
});

describe('selectorString', () => {
  it('prints a label selector as Go prints *metav1.LabelSelector', () => {
    assert.equal(
      selectorString({
        matchLabels: { b: '2', a: '1' },
        matchExpressions: [{ key: 'k', operator: 'In', values: ['x', 'y'] }],
      }),
      '&LabelSelector{MatchLabels:map[string]string{a: 1,b: 2,},MatchExpressions:[]LabelSelectorRequirement{LabelSelectorRequirement{Key:k,Operator:In,Values:[x y],},},}',
    );
  });
});
