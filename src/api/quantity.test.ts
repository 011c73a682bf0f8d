import { describe, it } from 'node:test';
import assert from '../testing/assert.js';
import {
  addQuantities,
  canonicalQuantity,
  compareQuantities,
  formatQuantity,
  goQuantityStruct,
  isQuantity,
  parseQuantity,
  QUANTITY_FORMAT_ERROR,
  QuantityError,
  quantityFromInt,
  roundUp,
} from './quantity.js';

describe('resource quantities', () => {
  it('prints the canonical form upstream stores', () => {
    const cases: Array<[string | number, string]> = [
      ['0', '0'],
      ['0Gi', '0'],
      ['-0', '0'],
      ['1000m', '1'],
      ['1500m', '1500m'],
      ['100m', '100m'],
      ['-250m', '-250m'],
      ['0.5', '500m'],
      ['1.5', '1500m'],
      ['1024Mi', '1Gi'],
      ['1.5Gi', '1536Mi'],
      ['1536Mi', '1536Mi'],
      ['512Ki', '512Ki'],
      ['0.5Ki', '512'],
      ['1.1Ki', '1126400m'],
      ['-2Gi', '-2Gi'],
      ['100', '100'],
      ['1k', '1k'],
      ['1000', '1k'],
      ['2G', '2G'],
      ['1.G', '1G'],
      ['128974848', '128974848'],
      ['129e6', '129e6'],
      ['12e6', '12e6'],
      ['1e3', '1e3'],
      ['1e+3', '1e3'],
      ['12e2', '1200'],
      ['0.1m', '100u'],
      ['1n', '1n'],
      ['0.1n', '1n'],
      ['1e-12', '1e-9'],
      ['0.0000000001Ki', '103n'],
      [' 1 ', '1'],
      [2, '2'],
      [3, '3'],
      [0.25, '250m'],
    ];
    for (const [input, want] of cases) assert.equal(canonicalQuantity(input), want, `${input}`);
  });

  it('reads missing digits as zero, as upstream does', () => {
    for (const input of ['k', '.', '+', '-', 'Mi', '.e3']) assert.equal(canonicalQuantity(input), '0', input);
  });

  it('caps values at the largest int64 and rounds tiny ones up to a nano, whatever the exponent', () => {
    const max = '9223372036854775807';
    assert.equal(canonicalQuantity(max), max);
    assert.equal(canonicalQuantity('9223372036854775808'), max);
    assert.equal(canonicalQuantity('100000000000000000000'), max);
    assert.equal(canonicalQuantity('1e100'), max);
    assert.equal(canonicalQuantity('-1e100'), `-${max}`);
    assert.equal(canonicalQuantity('1e100000000'), max);
    assert.equal(canonicalQuantity('1e-100'), '1e-9');
    assert.equal(canonicalQuantity('1e-100000000'), '1e-9');
    assert.equal(canonicalQuantity('0e100000000'), '0');
  });

  it('refuses malformed quantities with upstream messages', () => {
    for (const bad of ['abc', '1 Gi', '', '1.2.3', '1.1.M', '1+1.0M', '0.1am', 'aoeu', '1Qi']) {
      assert.throws(() => parseQuantity(bad), { message: QUANTITY_FORMAT_ERROR }, bad);
    }
    for (const bad of ['1K', '1e', '1Ki5', '0.1mi', '.5i', '1i', '-3.01i', '-3.01e-']) {
      assert.throws(() => parseQuantity(bad), { message: "unable to parse quantity's suffix" }, bad);
    }
    assert.equal(isQuantity('1Gi'), true);
    assert.equal(isQuantity(1.5), true);
    assert.equal(isQuantity('1K'), false);
    assert.equal(isQuantity(null), false);
  });

  it('compares values whatever their suffix', () => {
    assert.equal(compareQuantities(parseQuantity('1'), parseQuantity('1000m')), 0);
    assert.equal(compareQuantities(parseQuantity('1Gi'), parseQuantity('1G')), 1);
    assert.equal(compareQuantities(parseQuantity('1Ki'), parseQuantity('1k')), 1);
    assert.equal(compareQuantities(parseQuantity('100m'), parseQuantity('0.2')), -1);
  });

  it('sums in the notation of the first non-zero term', () => {
    const sum = (...xs: string[]) => formatQuantity(xs.map(parseQuantity).reduce(addQuantities, parseQuantity('0')));
    assert.equal(sum('500m', '250m'), '750m');
    assert.equal(sum('500m', '500m'), '1');
    assert.equal(sum('512Mi', '1Gi'), '1536Mi');
    assert.equal(sum('1Gi', '1G'), '2073741824');
    assert.equal(sum('1G', '1Gi'), '2073741824');
    assert.equal(sum('1G', '1M'), '1001M');
  });

  it('makes whole numbers in decimal notation', () => {
    assert.equal(formatQuantity(quantityFromInt(0)), '0');
    assert.equal(formatQuantity(quantityFromInt(3)), '3');
    assert.equal(formatQuantity(quantityFromInt(2000n)), '2k');
  });

  it('rounds up to milli units as the defaulting of resource lists does', () => {
    assert.equal(formatQuantity(roundUp(parseQuantity('0.0001'), -3)), '1m');
    assert.equal(formatQuantity(roundUp(parseQuantity('1.0001'), -3)), '1001m');
    assert.equal(formatQuantity(roundUp(parseQuantity('250m'), -3)), '250m');
    assert.equal(canonicalQuantity('0.0001', true), '1m');
    assert.equal(canonicalQuantity('0.0001'), '100u', 'the same text without rounding is remembered apart');
    assert.equal(canonicalQuantity(1.5, true), '1500m');
  });

  it('shares a parsed value among readers, frozen; a bad quantity fails every time', () => {
    const a = parseQuantity('128Mi');
    assert.equal(parseQuantity(' 128Mi '), a, 'the same text (blanks aside) gives the value already parsed');
    assert.ok(Object.isFrozen(a));
    assert.throws(() => {
      (a as { nanos: bigint }).nanos = 1n;
    }, TypeError);
    assert.equal(formatQuantity(parseQuantity('128Mi')), '128Mi');
    for (let i = 0; i < 2; i++) assert.throws(() => parseQuantity('12x'), QuantityError);
    // Far more distinct values than are remembered: each still parses right.
    for (let i = 0; i < 10_000; i++) assert.equal(parseQuantity(`${i}m`).nanos, BigInt(i) * 1_000_000n);
  });

  it("prints the struct ParseQuantity makes as Go's %#v does, for messages that show a *Quantity", () => {
    const struct = (value: string, scale: number, s: string, format: string) =>
      `resource.Quantity{i:resource.int64Amount{value:${value}, scale:${scale}}, d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:"${s}", Format:"${format}"}`;
    assert.equal(goQuantityStruct('0'), struct('0', 0, '0', 'DecimalSI'));
    assert.equal(goQuantityStruct('-1'), struct('-1', 0, '-1', 'DecimalSI'));
    assert.equal(goQuantityStruct(-1), struct('-1', 0, '-1', 'DecimalSI'));
    assert.equal(goQuantityStruct('-500m'), struct('-500', -3, '-500m', 'DecimalSI'));
    // Texts that are not in canonical form are not kept.
    assert.equal(goQuantityStruct('-1.5'), struct('-15', -1, '', 'DecimalSI'));
    assert.equal(goQuantityStruct('-1000'), struct('-1000', 0, '', 'DecimalSI'));
    assert.equal(goQuantityStruct('-00'), struct('0', 0, '', 'DecimalSI'));
    assert.equal(goQuantityStruct('-1Gi'), struct('-1073741824', 0, '-1Gi', 'BinarySI'));
    assert.equal(goQuantityStruct('-2e3'), struct('-2', 3, '-2e3', 'DecimalExponent'));
    // A value ParseQuantity keeps as an inf.Dec (whose print is an address) is given in canonical form.
    assert.equal(goQuantityStruct('-0.5Gi'), '-512Mi');
  });
});
