import { describe, it } from 'node:test';
import type { Schema } from '../../../api/crd-schema-node.js';
import { path } from '../../../api/field-errors.js';
import assert from '../../../testing/assert.js';
import { validateAgainstSchema } from './openapi-validate.js';

/** The messages of validating `obj`, sorted (upstream's tests compare them as sets). */
const messages = (schema: Schema, obj: unknown) =>
  validateAgainstSchema(null, obj, schema)
    .map((e) => e.message)
    .sort();
const sorted = (m: string[]) => [...m].sort();
const obj = (properties: Record<string, Schema>, extra: Schema = {}): Schema => ({
  type: 'object',
  properties,
  ...extra,
});

// Golden cases from apiextensions-apiserver's pkg/apiserver/validation tests.
describe('value validation: types', () => {
  it('x-kubernetes-int-or-string takes integers and strings only', () => {
    const s = obj({ field: { 'x-kubernetes-int-or-string': true } });
    for (const ok of [{}, { field: 42 }, { field: 'foo' }]) assert.deepEqual(messages(s, ok), []);
    assert.deepEqual(messages(s, { field: null }), [
      'field: Invalid value: "null": field in body must be of type integer,string: "null"',
    ]);
    assert.deepEqual(messages(s, { field: true }), [
      'field: Invalid value: "boolean": field in body must be of type integer,string: "boolean"',
    ]);
    assert.deepEqual(messages(s, { field: 1.2 }), [
      'field: Invalid value: "number": field in body must be of type integer,string: "number"',
    ]);
    assert.deepEqual(messages(s, { field: {} }), [
      'field: Invalid value: "object": field in body must be of type integer,string: "object"',
    ]);
    assert.deepEqual(messages(s, { field: [] }), [
      'field: Invalid value: "array": field in body must be of type integer,string: "array"',
    ]);
  });

  it('nullable takes null', () => {
    const s = obj({ field: { nullable: true, 'x-kubernetes-int-or-string': true } });
    assert.deepEqual(messages(s, { field: null }), []);
    assert.deepEqual(messages(s, { field: true }), [
      'field: Invalid value: "boolean": field in body must be of type integer,string: "boolean"',
    ]);
  });

  it('int-or-string with its anyOf reports the anyOf too', () => {
    const s = obj({
      field: { nullable: true, 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] },
    });
    assert.deepEqual(messages(s, { field: null }), []);
    assert.deepEqual(messages(s, { field: 42 }), []);
    assert.deepEqual(
      messages(s, { field: true }),
      sorted([
        '<nil>: Invalid value: "": "field" must validate at least one schema (anyOf)',
        'field: Invalid value: "boolean": field in body must be of type integer,string: "boolean"',
        'field: Invalid value: "boolean": field in body must be of type integer: "boolean"',
      ]),
    );
    const allOf = obj({
      field: {
        nullable: true,
        'x-kubernetes-int-or-string': true,
        allOf: [{ anyOf: [{ type: 'integer' }, { type: 'string' }] }],
      },
    });
    assert.deepEqual(
      messages(allOf, { field: 1.2 }),
      sorted([
        '<nil>: Invalid value: "": "field" must validate all the schemas (allOf). None validated',
        '<nil>: Invalid value: "": "field" must validate at least one schema (anyOf)',
        'field: Invalid value: "number": field in body must be of type integer,string: "number"',
        'field: Invalid value: "number": field in body must be of type integer: "number"',
      ]),
    );
  });

  it('a number field takes integers, an integer field no fractions', () => {
    const s = obj({ n: { type: 'number' }, i: { type: 'integer' } });
    assert.deepEqual(messages(s, { n: 3, i: 3 }), []);
    assert.deepEqual(messages(s, { i: 1.5 }), [
      'i: Invalid value: "number": i in body must be of type integer: "number"',
    ]);
  });
});

describe('value validation: constraints', () => {
  it('required and enum', () => {
    const s = obj(
      {
        field: {
          type: 'object',
          required: ['nestedint', 'nestedstring'],
          properties: {
            nestedint: { type: 'integer', enum: [1, 2] },
            nestedstring: { type: 'string', enum: ['a', 'b'] },
          },
        },
      },
      { required: ['field'] },
    );
    assert.deepEqual(messages(s, { test: 'a' }), ['field: Required value']);
    assert.deepEqual(messages(s, { field: {} }), [
      'field.nestedint: Required value',
      'field.nestedstring: Required value',
    ]);
    assert.deepEqual(
      messages(s, { field: { nestedint: 'x', nestedstring: true } }),
      sorted([
        'field.nestedint: Invalid value: "string": field.nestedint in body must be of type integer: "string"',
        'field.nestedint: Unsupported value: "x": supported values: "1", "2"',
        'field.nestedstring: Invalid value: "boolean": field.nestedstring in body must be of type string: "boolean"',
        'field.nestedstring: Unsupported value: true: supported values: "a", "b"',
      ]),
    );
  });

  it('an invalid pattern says so at validation', () => {
    const s = obj({ field: { type: 'string', pattern: '+' } });
    assert.deepEqual(messages(s, { field: 'foo' }), [
      'field: Invalid value: "foo": field in body should match \'+, but pattern is invalid: error parsing regexp: missing argument to repetition operator: `+`\'',
    ]);
  });

  it('patterns are RE2 and match anywhere unless anchored', () => {
    const s = obj({ cronSpec: { type: 'string', pattern: String.raw`^(\d+|\*)(/\d+)?(\s+(\d+|\*)(/\d+)?){4}$` } });
    assert.deepEqual(messages(s, { cronSpec: '* * * * */5' }), []);
    assert.deepEqual(messages(s, { cronSpec: '* * * *' }), [
      String.raw`cronSpec: Invalid value: "* * * *": cronSpec in body should match '^(\d+|\*)(/\d+)?(\s+(\d+|\*)(/\d+)?){4}$'`,
    ]);
    assert.deepEqual(messages(obj({ s: { type: 'string', pattern: 'b' } }), { s: 'abc' }), []);
  });

  it('minimum, maximum and their exclusive forms', () => {
    const s = obj({
      spec: {
        type: 'object',
        properties: {
          replicas: { type: 'integer', minimum: 1, maximum: 10 },
          ratio: { type: 'number', minimum: 0.5, exclusiveMinimum: true, maximum: 1.5, exclusiveMaximum: true },
        },
      },
    });
    assert.deepEqual(messages(s, { spec: { replicas: 15 } }), [
      'spec.replicas: Invalid value: 15: spec.replicas in body should be less than or equal to 10',
    ]);
    assert.deepEqual(messages(s, { spec: { replicas: 0 } }), [
      'spec.replicas: Invalid value: 0: spec.replicas in body should be greater than or equal to 1',
    ]);
    assert.deepEqual(messages(s, { spec: { ratio: 1.5 } }), [
      'spec.ratio: Invalid value: 1.5: spec.ratio in body should be less than 1.5',
    ]);
    assert.deepEqual(messages(s, { spec: { ratio: 0.5 } }), [
      'spec.ratio: Invalid value: 0.5: spec.ratio in body should be greater than 0.5',
    ]);
  });

  it('multipleOf', () => {
    const s = obj({ i: { type: 'integer', multipleOf: 3 }, f: { type: 'number', multipleOf: 0.5 } });
    assert.deepEqual(messages(s, { i: 9, f: 1.5 }), []);
    assert.deepEqual(messages(s, { i: 10 }), ['i: Invalid value: 10: i in body should be a multiple of 3']);
    assert.deepEqual(messages(s, { f: 1.2 }), ['f: Invalid value: 1.2: f in body should be a multiple of 0.5']);
  });

  it('lengths, item and property counts', () => {
    const s = obj({
      fieldX: { type: 'object', maxProperties: 2, minProperties: 1 },
      fieldY: { type: 'array', items: { type: 'string' }, maxItems: 2, minItems: 1 },
      fieldZ: { type: 'string', maxLength: 2, minLength: 1 },
    });
    assert.deepEqual(messages(s, { fieldX: { a: true, b: true, c: true } }), [
      'fieldX: Too many: 3: must have at most 2 items',
    ]);
    assert.deepEqual(messages(s, { fieldY: ['a', 'b', 'c'] }), ['fieldY: Too many: 3: must have at most 2 items']);
    assert.deepEqual(messages(s, { fieldZ: 'abc' }), ['fieldZ: Too long: may not be more than 2 bytes']);
    assert.deepEqual(
      messages(s, { fieldX: {}, fieldY: [], fieldZ: '' }),
      sorted([
        'fieldX: Invalid value: 0: fieldX in body should have at least 1 properties',
        'fieldY: Invalid value: 0: fieldY in body should have at least 1 items',
        'fieldZ: Invalid value: "": fieldZ in body should be at least 1 chars long',
      ]),
    );
    // Lengths count characters, not bytes.
    assert.deepEqual(messages(s, { fieldZ: 'éé' }), []);
  });

  it('items and additionalProperties are validated by their schemas', () => {
    const s = obj({
      list: { type: 'array', items: { type: 'integer' } },
      map: { type: 'object', additionalProperties: { type: 'string' } },
    });
    assert.deepEqual(
      messages(s, { list: [1, 'a'], map: { k: 1 } }),
      sorted([
        'list[1]: Invalid value: "string": list[1] in body must be of type integer: "string"',
        'map.k: Invalid value: "integer": map.k in body must be of type string: "integer"',
      ]),
    );
  });

  it('errors of a value below a path (a default) carry that path', () => {
    const errs = validateAgainstSchema(path('spec').child('default'), 'x', { type: 'integer' });
    assert.deepEqual(
      errs.map((e) => e.message),
      ['spec.default: Invalid value: "string":  in body must be of type integer: "string"'],
    );
  });
});

describe('value validation: formats', () => {
  const s = obj({
    when: { type: 'string', format: 'date-time' },
    day: { type: 'string', format: 'date' },
    id: { type: 'string', format: 'uuid' },
    host: { type: 'string', format: 'hostname' },
    ip: { type: 'string', format: 'ipv4' },
    data: { type: 'string', format: 'byte' },
    n: { type: 'integer', format: 'int32' },
    other: { type: 'string', format: 'no-such-format' },
  });

  it('accepts well-formed values', () => {
    assert.deepEqual(
      messages(s, {
        when: '2024-02-29T10:00:00Z',
        day: '2024-02-29',
        id: '123e4567-e89b-12d3-a456-426614174000',
        host: 'example.com',
        ip: '10.0.0.1',
        data: 'aGVsbG8=',
        n: 2 ** 40, // int32 is not enforced: apiextensions drops the format before validation
        other: 'anything',
      }),
      [],
    );
  });

  it('refuses malformed ones with the format as the type', () => {
    assert.deepEqual(
      messages(s, { when: 'yesterday', day: '2023-02-29', id: 'x', ip: '::1', data: 'abc' }),
      sorted([
        'when: Invalid value: "yesterday": when in body must be of type date-time: "yesterday"',
        'day: Invalid value: "2023-02-29": day in body must be of type date: "2023-02-29"',
        'id: Invalid value: "x": id in body must be of type uuid: "x"',
        'ip: Invalid value: "::1": ip in body must be of type ipv4: "::1"',
        'data: Invalid value: "abc": data in body must be of type byte: "abc"',
      ]),
    );
  });
});
