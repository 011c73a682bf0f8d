import { describe, it } from 'node:test';
import assert from '../testing/assert.js';
import {
  escapeFieldValue,
  FieldSelector,
  FieldSelectorError,
  fieldLabelNotSupported,
  supportedFieldLabels,
  unescapeFieldValue,
} from './fields.js';

describe('FieldSelector.parse', () => {
  it('reads =, == and != terms joined by commas, sorted, == printed as =', () => {
    const s = FieldSelector.parse('status.phase==Running,metadata.name=x,spec.nodeName!=');
    assert.deepEqual(s.requirements, [
      { field: 'metadata.name', operator: '=', value: 'x' },
      { field: 'spec.nodeName', operator: '!=', value: '' },
      { field: 'status.phase', operator: '=', value: 'Running' },
    ]);
    assert.equal(s.toString(), 'metadata.name=x,spec.nodeName!=,status.phase=Running');
  });

  it('the empty selector selects everything; empty terms are skipped', () => {
    assert.ok(FieldSelector.parse('').isEmpty());
    assert.ok(FieldSelector.parse('').matches({}));
    assert.equal(FieldSelector.parse('a=b,,').toString(), 'a=b');
  });

  it('splits at the first operator, so the value may contain escaped = and ,', () => {
    assert.deepEqual(FieldSelector.parse('a=b\\=c\\,d\\\\').requirements, [
      { field: 'a', operator: '=', value: 'b=c,d\\' },
    ]);
    assert.equal(FieldSelector.parse('a=b\\=c\\,d\\\\').toString(), 'a=b\\=c\\,d\\\\');
    assert.deepEqual(FieldSelector.parse('a!=\\=b').requirements, [{ field: 'a', operator: '!=', value: '=b' }]);
    assert.throws(() => FieldSelector.parse('a!==b'), {
      message: 'invalid field selector: unescaped character in value: 61',
    });
  });

  it('reports errors with upstream messages', () => {
    const cases: [string, string][] = [
      ['a', "invalid selector: 'a'; can't understand 'a'"],
      ['x=y,a', "invalid selector: 'x=y,a'; can't understand 'a'"],
      ['a=b=c', 'invalid field selector: unescaped character in value: 61'],
      ['a=b\\,c,d=e\\n', 'invalid field selector: invalid escape sequence: \\n'],
      ['a=b\\', 'invalid field selector: invalid escape sequence: \\'],
    ];
    for (const [text, message] of cases) {
      assert.throws(
        () => FieldSelector.parse(text),
        (err) => err instanceof FieldSelectorError && err.message === message,
      );
    }
  });
});

describe('matching', () => {
  const pod = { 'metadata.name': 'web', 'spec.nodeName': '', 'status.phase': 'Running' };

  it('ANDs the terms', () => {
    assert.ok(FieldSelector.parse('metadata.name=web,status.phase=Running').matches(pod));
    assert.ok(!FieldSelector.parse('metadata.name=web,status.phase!=Running').matches(pod));
    assert.ok(FieldSelector.parse('spec.nodeName=').matches(pod));
    assert.ok(!FieldSelector.parse('spec.nodeName!=').matches(pod));
  });

  it('reads a field the object does not provide as empty', () => {
    assert.ok(FieldSelector.parse('spec.other=').matches(pod));
    assert.ok(!FieldSelector.parse('spec.other=x').matches(pod));
    assert.ok(FieldSelector.parse('constructor!=x').matches({}));
  });

  it('nothing() matches nothing', () => {
    assert.ok(!FieldSelector.nothing().matches(pod));
    assert.ok(!FieldSelector.nothing().isEmpty());
    assert.ok(!FieldSelector.and(FieldSelector.everything(), FieldSelector.nothing()).matches(pod));
  });
});

describe('fields a selector uses', () => {
  it('lists distinct field names and exact matches', () => {
    const s = FieldSelector.parse('metadata.name=a,metadata.name!=b,spec.nodeName=n1');
    assert.deepEqual(s.fields(), ['metadata.name', 'spec.nodeName']);
    assert.equal(s.requiresExactMatch('spec.nodeName'), 'n1');
    assert.equal(FieldSelector.parse('a!=b').requiresExactMatch('a'), undefined);
  });

  it('refuses unsupported fields with upstream message and renames legacy ones', () => {
    const convert = supportedFieldLabels(['metadata.name', 'spec.nodeName'], { 'spec.host': 'spec.nodeName' });
    assert.equal(FieldSelector.parse('spec.host=n1').transform(convert).toString(), 'spec.nodeName=n1');
    assert.throws(() => FieldSelector.parse('metadata.name=a,spec.foo=b').transform(convert), {
      message: 'field label not supported: spec.foo',
    });
    assert.equal(fieldLabelNotSupported('x').message, 'field label not supported: x');
  });

  it('drops terms a conversion empties', () => {
    const s = FieldSelector.parse('a=1,b=2').transform((f, v) => (f === 'a' ? ['', ''] : [f, v]));
    assert.equal(s.toString(), 'b=2');
  });
});

describe('escaping', () => {
  it('round-trips values with backslashes, commas and equals signs', () => {
    for (const v of ['', 'plain', 'a,b', 'a=b', 'a\\b', '\\,=\\']) {
      assert.equal(unescapeFieldValue(escapeFieldValue(v)), v);
      const s = FieldSelector.oneTermEqual('f', v);
      assert.deepEqual(FieldSelector.parse(s.toString()).requirements, s.requirements);
    }
    assert.equal(escapeFieldValue('a\\b,c=d'), 'a\\\\b\\,c\\=d');
  });
});
