import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  canonicalQuantity,
  compareQuantities,
  formatQuantity,
  parseQuantity,
  QUANTITY_FORMAT_ERROR,
  roundUp,
} from './core-quantity.js';

describe('resource quantities', () => {
  it('prints the canonical form upstream stores', () => {
    const cases: Array<[string | number, string]> = [
      ['1000m', '1'],
      ['1500m', '1500m'],
      ['0.5', '500m'],
      ['1024Mi', '1Gi'],
      ['1.5Gi', '1536Mi'],
      ['0.5Ki', '512'],
      ['100', '100'],
      ['1000', '1k'],
      ['128974848', '128974848'],
      ['129e6', '129e6'],
      ['12e2', '1200'],
      ['0.1m', '100u'],
      ['1e-12', '1e-9'],
      ['1n', '1n'],
      ['0', '0'],
      ['-2Gi', '-2Gi'],
      [2, '2'],
      [0.25, '250m'],
    ];
    for (const [input, want] of cases) assert.equal(canonicalQuantity(input), want, `${input}`);
  });

  it('refuses malformed quantities with upstream messages', () => {
    assert.throws(() => parseQuantity('abc'), { message: QUANTITY_FORMAT_ERROR });
    assert.throws(() => parseQuantity('1 Gi'), { message: QUANTITY_FORMAT_ERROR });
    assert.throws(() => parseQuantity('1K'), { message: "unable to parse quantity's suffix" });
    assert.throws(() => parseQuantity(''), { message: QUANTITY_FORMAT_ERROR });
  });

  it('compares values whatever their suffix', () => {
    assert.equal(compareQuantities(parseQuantity('1'), parseQuantity('1000m')), 0);
    assert.equal(compareQuantities(parseQuantity('1Gi'), parseQuantity('1G')), 1);
    assert.equal(compareQuantities(parseQuantity('100m'), parseQuantity('0.2')), -1);
  });

  it('rounds up to milli units as the defaulting of resource lists does', () => {
    assert.equal(formatQuantity(roundUp(parseQuantity('0.0001'), -3)), '1m');
    assert.equal(formatQuantity(roundUp(parseQuantity('1.0001'), -3)), '1001m');
    assert.equal(formatQuantity(roundUp(parseQuantity('250m'), -3)), '250m');
  });
});
