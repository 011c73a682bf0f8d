import { describe, it } from 'node:test';
import assert from '../../testing/assert.js';
import { findResults, parseJSONPath, printValue } from './jsonpath.js';

const obj = {
  metadata: { name: 'w1', labels: { 'app.kubernetes.io/name': 'web' } },
  spec: { size: 3, tags: ['a', 'b'] },
  status: {
    conditions: [
      { type: 'Ready', status: 'True' },
      { type: 'Synced', status: 'False' },
    ],
  },
};

const find = (path: string) => findResults(parseJSONPath(path), obj);

describe('printer-column JSONPath', () => {
  it('follows fields, quoted keys, indexes and wildcards', () => {
    assert.deepEqual(find('.spec.size'), [3]);
    assert.deepEqual(find(".metadata.labels['app.kubernetes.io/name']"), ['web']);
    assert.deepEqual(find('.spec.tags[1]'), ['b']);
    assert.deepEqual(find('.spec.tags[-1]'), ['b']);
    assert.deepEqual(find('.spec.tags[*]'), ['a', 'b']);
    assert.deepEqual(find('.spec.missing'), []);
  });

  it('filters lists', () => {
    assert.deepEqual(find('.status.conditions[?(@.type=="Ready")].status'), ['True']);
    assert.deepEqual(find('.status.conditions[?(@.type!="Ready")].type'), ['Synced']);
  });

  it('prints values as client-go v0.33 PrintResults does: maps and lists as JSON', () => {
    assert.equal(printValue(['p', 'q']), '["p","q"]');
    assert.equal(printValue({ b: [1, 'x<y'], a: true }), '{"a":true,"b":[1,"x\\u003cy"]}');
    assert.equal(printValue(1.5), '1.5');
    assert.equal(printValue('plain'), 'plain');
  });

  it('refuses what it cannot parse', () => {
    assert.throws(() => parseJSONPath('.spec[unterminated'));
  });
});
