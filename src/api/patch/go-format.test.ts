import { describe, it } from 'node:test';
import assert from '../../testing/assert.js';
import { formatGoString, formatGoValue, goTypeName, jsonKindWord } from './go-format.js';

describe('Go-style formatting of decoded JSON', () => {
  it('prints values as fmt %v does, with map keys sorted', () => {
    assert.equal(
      formatGoValue({ name: 'app', $patch: 'foo', n: [1, 2.5, null, true] }),
      'map[$patch:foo n:[1 2.5 <nil> true] name:app]',
    );
    assert.equal(formatGoValue([[], ['x']]), '[[] [x]]');
    assert.equal(formatGoValue(0.00001), '1e-05');
  });

  it('names Go types and JSON kinds', () => {
    assert.equal(goTypeName({}), 'map[string]interface {}');
    assert.equal(goTypeName([]), '[]interface {}');
    assert.equal(goTypeName(3), 'int64');
    assert.equal(goTypeName(3.5), 'float64');
    assert.equal(goTypeName(null), '%!s(<nil>)');
    assert.equal(jsonKindWord(true), 'bool');
    assert.equal(jsonKindWord({}), 'object');
    assert.equal(formatGoString(5), '%!s(int64=5)');
    assert.equal(formatGoString('delete'), 'delete');
  });
});
