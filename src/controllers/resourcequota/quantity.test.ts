import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { addQuantity, canonicalQuantity, compareQuantity, formatQuantity, parseQuantity } from './quantity.js';

describe('quantity', () => {
  it('prints the canonical form', () => {
    const cases: [string | number, string][] = [
      ['0', '0'],
      ['0Gi', '0'],
      ['1000m', '1'],
      ['0.5', '500m'],
      ['1.5', '1500m'],
      ['100m', '100m'],
      ['1024Mi', '1Gi'],
      ['1536Mi', '1536Mi'],
      ['512Ki', '512Ki'],
      ['0.5Ki', '512'],
      ['1k', '1k'],
      ['1000', '1k'],
      ['12e6', '12e6'],
      ['1e3', '1e3'],
      ['2G', '2G'],
      ['1n', '1n'],
      ['0.1n', '1n'],
      ['-250m', '-250m'],
      [3, '3'],
      ['1.1Ki', '1126400m'],
    ];
    for (const [input, want] of cases) assert.equal(canonicalQuantity(input), want, String(input));
  });

  it('sums in the notation of the first non-zero term', () => {
    const sum = (...xs: string[]) => formatQuantity(xs.map(parseQuantity).reduce(addQuantity, parseQuantity('0')));
    assert.equal(sum('500m', '250m'), '750m');
    assert.equal(sum('500m', '500m'), '1');
    assert.equal(sum('512Mi', '1Gi'), '1536Mi');
    assert.equal(sum('1Gi', '1G'), '2073741824');
    assert.equal(sum('1G', '1Gi'), '2073741824');
    assert.equal(sum('1G', '1M'), '1001M');
  });

  it('compares values, not text', () => {
    assert.equal(compareQuantity(parseQuantity('1'), parseQuantity('1000m')), 0);
    assert.equal(compareQuantity(parseQuantity('1Ki'), parseQuantity('1k')), 1);
  });

  it('rejects what is not a quantity', () => {
    for (const bad of ['', 'abc', '1.2.3', '1Qi', 'Mi']) assert.throws(() => parseQuantity(bad), bad);
  });
});
