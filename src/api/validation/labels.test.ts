import { describe, it } from 'node:test';
import assert from '../../testing/assert.js';
import { path } from '../field-errors.js';
import { labelSelectorHasInvalidLabelValue, validateLabelSelector, validateLabels } from './labels.js';

const messages = (errs: { message: string }[]) => errs.map((e) => e.message);
const sel = path('spec', 'selector');

describe('validateLabels', () => {
  it('reports keys and values against the map path', () => {
    assert.deepEqual(validateLabels({ app: 'web', 'example.com/tier': '' }, path('metadata', 'labels')), []);
    const errs = validateLabels({ 'a b': 'x', ok: '-bad' }, path('metadata', 'labels'));
    assert.equal(errs.length, 2);
    assert.match(errs[0]?.message ?? '', /^metadata\.labels: Invalid value: "a b": name part must consist of/);
    assert.match(errs[1]?.message ?? '', /^metadata\.labels: Invalid value: "-bad": a valid label must be/);
    assert.equal(errs[0]?.origin, 'labelKey');
  });
});

describe('validateLabelSelector', () => {
  it('accepts a missing selector and good requirements', () => {
    assert.deepEqual(validateLabelSelector(undefined, {}, sel), []);
    const good = { matchLabels: { a: 'b' }, matchExpressions: [{ key: 'c', operator: 'In', values: ['d'] }] };
    assert.deepEqual(validateLabelSelector(good, {}, sel), []);
  });

  it('gives upstream messages for bad requirements', () => {
    const bad = {
      matchExpressions: [
        { key: 'a', operator: 'In', values: [] },
        { key: 'b', operator: 'Exists', values: ['x'] },
        { key: 'c', operator: 'Gt', values: ['1'] },
        { key: 'd', operator: 'NotIn', values: ['bad value'] },
      ],
    };
    const got = messages(validateLabelSelector(bad, {}, sel));
    assert.deepEqual(got.slice(0, 3), [
      "spec.selector.matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'",
      "spec.selector.matchExpressions[1].values: Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
      'spec.selector.matchExpressions[2].operator: Invalid value: "Gt": not a valid selector operator',
    ]);
    assert.match(
      got[3] ?? '',
      /^spec\.selector\.matchExpressions\[3\]\.values\[0\]: Invalid value: "bad value": a valid label/,
    );
    assert.equal(got.length, 4);
  });

  it('honours the options', () => {
    const s = { matchExpressions: [{ key: 'a', operator: 'Custom', values: ['bad value'] }] };
    assert.deepEqual(
      validateLabelSelector(
        s,
        { allowUnknownOperatorInRequirement: true, allowInvalidLabelValueInSelector: true },
        sel,
      ),
      [],
    );
    assert.equal(labelSelectorHasInvalidLabelValue(s), true);
    assert.equal(
      labelSelectorHasInvalidLabelValue({ matchExpressions: [{ key: 'a', operator: 'In', values: ['ok'] }] }),
      false,
    );
  });
});
