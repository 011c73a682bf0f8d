import { describe, it } from 'node:test';
import assert from '../../testing/assert.js';
import { goFloat, goNumber, goQuote, goQuoteList, goStringSlice, goSyntax, goTime } from './go-format.js';

describe('goQuote', () => {
  it('escapes as strconv.Quote does', () => {
    assert.equal(goQuote('plain'), '"plain"');
    assert.equal(goQuote('a"b\\c'), '"a\\"b\\\\c"');
    assert.equal(goQuote('\n\t\u0007\u0000\u007f'), '"\\n\\t\\a\\x00\\x7f"');
    assert.equal(goQuote('é日本😀'), '"é日本😀"');
    assert.equal(goQuote('\u00a0\u200b'), '"\\u00a0\\u200b"');
    assert.equal(goQuote('\u{e0001}'), '"\\U000e0001"');
  });
});

describe('goQuoteList', () => {
  it('prints %q of a []string: quoted elements, space separated', () => {
    assert.equal(goQuoteList(['foo', 'bar']), '["foo" "bar"]');
    assert.equal(goQuoteList(['a "b"']), '["a \\"b\\""]');
    assert.equal(goQuoteList([]), '[]');
  });
});

describe('numbers', () => {
  it('prints integers as int64 and other numbers as Go %v of a float64', () => {
    assert.equal(goNumber(-1), '-1');
    assert.equal(goNumber(12345678901), '12345678901');
    assert.equal(goFloat(1.5), '1.5');
    assert.equal(goFloat(123456.5), '123456.5');
    assert.equal(goFloat(1234567.5), '1.2345675e+06');
    assert.equal(goFloat(0.0001), '0.0001');
    assert.equal(goFloat(0.00001), '1e-05');
  });
});

describe('Go syntax', () => {
  it('prints slices, maps and times', () => {
    assert.equal(goStringSlice(['a', 'b']).text, '[]string{"a", "b"}');
    assert.equal(goStringSlice([]).text, '[]string{}');
    assert.equal(goStringSlice(null).text, '[]string(nil)');
    assert.equal(goSyntax([1, 'a', null]), '[]interface {}{1, "a", interface {}(nil)}');
    assert.equal(goSyntax({ z: true, a: [1] }), 'map[string]interface {}{"a":[]interface {}{1}, "z":true}');
    assert.equal(goTime('2024-05-06T07:08:09Z').text, '2024-05-06 07:08:09 +0000 UTC');
    assert.equal(goTime('2024-05-06T07:08:09.120Z').text, '2024-05-06 07:08:09.12 +0000 UTC');
    assert.equal(goTime('2024-05-06T09:08:09+02:00').text, '2024-05-06 07:08:09 +0000 UTC');
  });
});
