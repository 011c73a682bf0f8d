import { describe, it } from 'node:test';
import assert from '../testing/assert.js';
import { goJsonMarshal } from './go-json.js';

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
});
