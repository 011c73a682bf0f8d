import { describe, it } from 'node:test';
import type { Schema } from '../../../api/crd-schema-node.js';
import { path } from '../../../api/field-errors.js';
import assert from '../../../testing/assert.js';
import { validateRules, validFieldPath } from './cel-rules.js';

const root = path('root');
const check = (schema: Schema, obj: unknown, old?: unknown) =>
  validateRules(root, obj, schema, old).map((e) => e.message);
const rules = (s: Schema, ...r: Schema[]): Schema => ({ ...s, 'x-kubernetes-validations': r });
const str: Schema = { type: 'string' };
const int: Schema = { type: 'integer' };

describe('x-kubernetes-validations: rules', () => {
  it('a failed rule gives its message, or failed rule: <rule>, at the node with its type as the value', () => {
    const s = rules(
      { type: 'object', properties: { minReplicas: int, replicas: int } },
      { rule: 'self.minReplicas <= self.replicas', message: 'replicas should be greater than or equal to minReplicas' },
      { rule: 'self.replicas < 100' },
    );
    assert.deepEqual(check(s, { minReplicas: 1, replicas: 2 }), []);
    assert.deepEqual(check(s, { minReplicas: 300, replicas: 200 }), [
      'root: Invalid value: "object": replicas should be greater than or equal to minReplicas',
      'root: Invalid value: "object": failed rule: self.replicas < 100',
    ]);
    assert.deepEqual(check({ type: 'object', properties: { x: rules(str, { rule: "self == 'x'" }) } }, { x: 'y' }), [
      'root.x: Invalid value: "string": failed rule: self == \'x\'',
    ]);
  });

  it("at a whole object's root, rules read kind, apiVersion and metadata.name", () => {
    const s = rules(
      { type: 'object', properties: { spec: { type: 'object', properties: { size: int } } } },
      { rule: "self.metadata.name.startsWith('r')", message: 'name must start with r' },
      { rule: "self.kind == 'Widget' && self.apiVersion == 'example.com/v1'" },
    );
    const obj = (name: string) => ({
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      metadata: { name, labels: { a: 'b' } },
      spec: { size: 1 },
    });
    assert.deepEqual(validateRules(null, obj('r1'), s), []);
    assert.deepEqual(
      validateRules(null, obj('w1'), s).map((e) => e.message),
      ['<nil>: Invalid value: "object": name must start with r'],
    );
  });

  it('date-time and date strings are timestamps, duration strings durations, byte strings bytes', () => {
    const s = rules(
      {
        type: 'object',
        properties: {
          start: { type: 'string', format: 'date-time' },
          end: { type: 'string', format: 'date-time' },
          day: { type: 'string', format: 'date' },
          timeout: { type: 'string', format: 'duration' },
          data: { type: 'string', format: 'byte' },
        },
      },
      { rule: 'self.end > self.start', message: 'end before start' },
      { rule: "self.timeout <= duration('1h')", message: 'timeout over an hour' },
      { rule: "self.day.getFullYear() == 2026 && self.end - self.start >= duration('30m')", message: 'day or length' },
      { rule: 'size(self.data) == 3', message: 'three bytes' },
    );
    const ok = {
      start: '2026-03-01T10:00:00Z',
      end: '2026-03-01T11:00:00Z',
      day: '2026-03-01',
      timeout: '45m',
      data: 'YWJj',
    };
    assert.deepEqual(check(s, ok), []);
    assert.deepEqual(check(s, { ...ok, end: '2026-03-01T09:00:00Z', timeout: '1h30m', data: 'YQ==' }), [
      'root: Invalid value: "object": end before start',
      'root: Invalid value: "object": timeout over an hour',
      'root: Invalid value: "object": day or length',
      'root: Invalid value: "object": three bytes',
    ]);
  });

  it('rules run on items and map values, with their paths', () => {
    const s: Schema = {
      type: 'object',
      properties: {
        field: { type: 'array', items: { type: 'object', properties: { x: rules(str, { rule: "self == 'x'" }) } } },
        labels: { type: 'object', additionalProperties: rules(str, { rule: 'self.size() < 4', message: 'short' }) },
      },
    };
    assert.deepEqual(check(s, { field: [{ x: 'x' }, { x: 'y' }], labels: { a: 'abc', b: 'abcd' } }), [
      'root.field[1].x: Invalid value: "string": failed rule: self == \'x\'',
      'root.labels[b]: Invalid value: "string": short',
    ]);
  });

  it('CEL integers stay integers and numbers doubles, by the schema', () => {
    const s = rules(
      { type: 'object', properties: { i: int, n: { type: 'number' } } },
      { rule: 'self.i + 1 == 3' },
      { rule: 'self.n == 2.0' },
      { rule: 'self.i / 2 == 1' },
    );
    assert.deepEqual(check(s, { i: 2, n: 2 }), []);
    assert.deepEqual(
      check(rules({ type: 'object', properties: { i: int } }, { rule: 'self.i + 1 > 0' }), { i: 2 ** 53 }),
      [],
    );
  });

  it('reason and fieldPath choose the error type and field', () => {
    const s = rules(
      {
        type: 'object',
        properties: { field1: str, field2: str, field3: str, m: { type: 'object', properties: { k: str } } },
      },
      { rule: 'self.field2 != "value2"', reason: 'FieldValueDuplicate', fieldPath: '.field2' },
      { rule: 'self.field3 != "value3"', reason: 'FieldValueRequired', fieldPath: '.field3', message: 'need it' },
      { rule: 'self.field1 != "value1"', reason: 'FieldValueForbidden', fieldPath: '.field1' },
      { rule: 'false', fieldPath: ".m['k']" },
    );
    assert.deepEqual(check(s, { field1: 'value1', field2: 'value2', field3: 'value3', m: {} }), [
      'root.field2: Duplicate value: "object"',
      'root.field3: Required value: need it',
      'root.field1: Forbidden: failed rule: self.field1 != "value1"',
      'root.m.k: Invalid value: "object": failed rule: false',
    ]);
  });

  it('messageExpression gives the message, falling back to message when it cannot', () => {
    const base: Schema = { type: 'object', properties: { str } };
    const msg = (messageExpression: string, message?: string) =>
      check(rules(base, { rule: 'false', messageExpression, ...(message ? { message } : {}) }), { str: 'a string' });
    assert.deepEqual(msg('"str1 " + self.str'), ['root: Invalid value: "object": str1 a string']);
    assert.deepEqual(msg('"this is messageExpression"', 'invisible'), [
      'root: Invalid value: "object": this is messageExpression',
    ]);
    assert.deepEqual(msg('"str1 " + ["a", "b", "c", "d"][4]', 'message not messageExpression'), [
      'root: Invalid value: "object": message not messageExpression',
    ]);
    assert.deepEqual(msg('"str1 " + ["a", "b", "c", "d"][4]'), ['root: Invalid value: "object": failed rule: false']);
    assert.deepEqual(msg('string("     ")', 'message not messageExpression'), [
      'root: Invalid value: "object": message not messageExpression',
    ]);
    assert.deepEqual(msg('"str with \\na newline"', 'message not messageExpression'), [
      'root: Invalid value: "object": message not messageExpression',
    ]);
  });

  it('evaluation errors name the rule', () => {
    const s = rules({ type: 'object', properties: { a: str } }, { rule: 'self.a == "x"', message: 'a must be x' });
    assert.deepEqual(check(s, {}), ['root: Invalid value: "object": no such key: a evaluating rule: a must be x']);
  });

  it('null values are not validated by their own rules', () => {
    const s: Schema = { type: 'object', properties: { a: rules({ ...str, nullable: true }, { rule: 'self == "x"' }) } };
    assert.deepEqual(check(s, { a: null }), []);
  });
});

describe('x-kubernetes-validations: transition rules', () => {
  const immutable: Schema = { type: 'object', properties: { field: rules(str, { rule: 'self == oldSelf' }) } };

  it('run only on update, when the old value exists', () => {
    assert.deepEqual(check(immutable, { field: 'y' }), []);
    assert.deepEqual(check(immutable, { field: 'x' }, { field: 'x' }), []);
    assert.deepEqual(check(immutable, { field: 'y' }, { field: 'x' }), [
      'root.field: Invalid value: "string": failed rule: self == oldSelf',
    ]);
    assert.deepEqual(check(immutable, { field: 'y' }, {}), []);
  });

  it('correlate list-type map items by their keys', () => {
    const s: Schema = {
      type: 'object',
      properties: {
        field: {
          type: 'array',
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['k1', 'k2'],
          items: {
            type: 'object',
            properties: { k1: str, k2: str, v1: rules({ type: 'number' }, { rule: 'self >= oldSelf' }) },
          },
        },
      },
    };
    const item = (v1: number, k2 = 'b') => ({ field: [{ k1: 'a', k2, v1 }] });
    assert.deepEqual(check(s, item(1.2), item(1.0)), []);
    assert.deepEqual(check(s, item(0.9), item(1.0)), [
      'root.field[0].v1: Invalid value: "number": failed rule: self >= oldSelf',
    ]);
    // Another key: no old item, so the transition rule does not run.
    assert.deepEqual(check(s, item(0.9, 'c'), item(1.0)), []);
  });

  it('optionalOldSelf runs the rule on create too, with oldSelf an optional', () => {
    const s: Schema = {
      type: 'object',
      properties: {
        field: rules(str, {
          rule: '!oldSelf.hasValue() || self == oldSelf.value()',
          optionalOldSelf: true,
          message: 'immutable once set',
        }),
        other: rules(str, { rule: 'oldSelf.hasValue() || self.startsWith("a")', optionalOldSelf: true }),
      },
    };
    assert.deepEqual(check(s, { field: 'x', other: 'abc' }), []);
    assert.deepEqual(check(s, { field: 'x', other: 'bcd' }), [
      'root.other: Invalid value: "string": failed rule: oldSelf.hasValue() || self.startsWith("a")',
    ]);
    assert.deepEqual(check(s, { field: 'y', other: 'bcd' }, { field: 'x', other: 'bcd' }), [
      'root.field: Invalid value: "string": immutable once set',
    ]);
  });
});

describe('x-kubernetes-validations: compiling', () => {
  it('rules that do not compile are reported when evaluated', () => {
    const s = rules({ type: 'object', properties: { x: int } }, { rule: 'self.x == 1 + "a"' }, { rule: '1 + 1' });
    const errs = check(s, { x: 1 });
    assert.equal(errs.length, 2);
    assert.equal(errs[1], 'root: Invalid value: "object": rule compile error: cel expression must evaluate to a bool');
    assert.match(
      errs[0] ?? '',
      /^root: Invalid value: "object": rule compile error: compilation failed: ERROR: <input>:1:13: found no matching overload for '_\+_' applied to '\(int, string\)'/,
    );
  });

  it('type-checks rules against the schema', () => {
    const s = (r: Schema) =>
      check(rules({ type: 'object', properties: { x: int, tags: { type: 'array', items: str } } }, r), {
        x: 1,
        tags: [],
      });
    const [misspelt] = s({ rule: 'self.y == 1' });
    assert.match(misspelt ?? '', /rule compile error: compilation failed: ERROR: <input>:1:5: undefined field 'y'/);
    const [wrongType] = s({ rule: 'self.x == "a"' });
    assert.match(wrongType ?? '', /found no matching overload for '_==_' applied to '\(int, string\)'/);
    assert.deepEqual(s({ rule: 'self.x' }), [
      'root: Invalid value: "object": rule compile error: cel expression must evaluate to a bool',
    ]);
    assert.deepEqual(s({ rule: 'self.tags.all(t, t.startsWith("a"))' }), []);
    assert.deepEqual(s({ rule: 'false', messageExpression: 'self.x' }), [
      'root: Invalid value: "object": failed rule: false',
    ]);
  });

  it('fieldPath names fields of the schema only', () => {
    const s: Schema = {
      type: 'object',
      properties: { a: { type: 'object', properties: { b: str } }, m: { type: 'object', additionalProperties: str } },
    };
    assert.equal(validFieldPath('.a.b', s)?.toString(), 'a.b');
    assert.equal(validFieldPath(".a['b']", s)?.toString(), 'a.b');
    assert.equal(validFieldPath(".m['x.y']", s)?.toString(), 'm[x.y]');
    assert.equal(validFieldPath('.a.c', s), undefined);
    assert.equal(validFieldPath('.a[0]', s), undefined);
    assert.equal(validFieldPath('a', s), undefined);
    assert.equal(validFieldPath('.a.', s), undefined);
  });
});
