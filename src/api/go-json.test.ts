import { describe, it } from 'node:test';
import assert from '../testing/assert.js';
import { goJsonMarshal, goJsonObjectError } from './go-json.js';

describe('goJsonMarshal', () => {
  it('escapes <, >, & and U+2028/U+2029 as Go’s json.Marshal does, and keeps the field order given', () => {
    assert.equal(
      goJsonMarshal({ message: 'failed expression: object.spec.replicas <= 5 && a > b', n: 1, list: ['\u2028\u2029'] }),
      '{"message":"failed expression: object.spec.replicas \\u003c= 5 \\u0026\\u0026 a \\u003e b","n":1,"list":["\\u2028\\u2029"]}',
    );
  });

  it('writes plain values as JSON.stringify does', () => {
    assert.equal(goJsonMarshal([{ b: 'x', a: null, c: true }]), '[{"b":"x","a":null,"c":true}]');
  });

  it("words JSON syntax errors as Go's decoder does", () => {
    const cases: [string, string | undefined][] = [
      ['a', "invalid character 'a' looking for beginning of value"],
      ['', 'unexpected end of JSON input'],
      ['{"a":1', 'unexpected end of JSON input'],
      ['{"a" 1}', "invalid character '1' after object key"],
      ['{"a":1 "b":2}', "invalid character '\"' after object key:value pair"],
      ["{'a':1}", "invalid character '\\'' looking for beginning of object key string"],
      ['[1 2]', "invalid character '2' after array element"],
      ['{"a":1}x', "invalid character 'x' after top-level value"],
      ['{"a":"\u0001"}', "invalid character '\\x01' in string literal"],
      ['{"a":"\\x"}', "invalid character 'x' in string escape code"],
      ['null', undefined],
      [' {"auths":{}} ', undefined],
    ];
    for (const [text, want] of cases) assert.equal(goJsonObjectError(text), want, JSON.stringify(text));
  });
});
