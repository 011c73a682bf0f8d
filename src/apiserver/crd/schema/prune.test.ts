import { describe, it } from 'node:test';
import type { Schema } from '../../../api/crd-schema-node.js';
import assert from '../../../testing/assert.js';
import { applyDefaults } from './defaults.js';
import { pruneObject } from './prune.js';

const prune = (json: string, schema: Schema) => {
  const obj = JSON.parse(json) as Record<string, unknown>;
  const pruned = pruneObject(obj, schema);
  return { obj, pruned };
};

describe('pruneObject', () => {
  it('drops fields the schema does not specify, in objects, arrays and maps, and reports their paths', () => {
    const schema: Schema = {
      type: 'object',
      properties: {
        array: {
          type: 'array',
          items: { type: 'object', properties: { a: { type: 'integer' }, c: { type: 'integer' } } },
        },
        specified: { type: 'object', properties: { a: { type: 'integer' }, c: { type: 'integer' } } },
        map: { type: 'object', additionalProperties: { type: 'object', properties: { a: { type: 'integer' } } } },
      },
    };
    const { obj, pruned } = prune(
      '{"array":[{"a":1},{"b":1},{"a":1,"b":2,"c":3}],"unspecified":{"a":1},"specified":{"a":1,"b":2,"c":3},"map":{"x":{"a":1,"z":2}}}',
      schema,
    );
    assert.deepEqual(obj, { array: [{ a: 1 }, {}, { a: 1, c: 3 }], specified: { a: 1, c: 3 }, map: { x: { a: 1 } } });
    assert.deepEqual(pruned, ['array[1].b', 'array[2].b', 'map.x.z', 'specified.b', 'unspecified']);
  });

  it('keeps apiVersion, kind and metadata at the root and in embedded resources, prunes them elsewhere', () => {
    const schema: Schema = {
      type: 'object',
      properties: {
        spec: {
          type: 'object',
          properties: {
            template: {
              type: 'object',
              'x-kubernetes-embedded-resource': true,
              properties: { spec: { type: 'object', properties: { x: { type: 'string' } } } },
            },
            plain: { type: 'object', properties: {} },
          },
        },
      },
    };
    const { obj, pruned } = prune(
      JSON.stringify({
        apiVersion: 'example.com/v1',
        kind: 'Widget',
        metadata: { name: 'w1', labels: { a: 'b' } },
        spec: {
          template: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', bogus: 1 }, spec: { x: 'y', junk: 1 } },
          plain: { metadata: {}, kind: 'K' },
        },
      }),
      schema,
    );
    assert.deepEqual(obj, {
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      metadata: { name: 'w1', labels: { a: 'b' } },
      spec: { template: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { x: 'y' } }, plain: {} },
    });
    assert.deepEqual(pruned, [
      'spec.plain.kind',
      'spec.plain.metadata',
      'spec.template.metadata.bogus',
      'spec.template.spec.junk',
    ]);
  });

  it('x-kubernetes-preserve-unknown-fields keeps unknown fields but still prunes inside specified ones', () => {
    const schema: Schema = {
      type: 'object',
      properties: {
        preserving: {
          type: 'object',
          'x-kubernetes-preserve-unknown-fields': true,
          properties: {
            pruning: { type: 'object', properties: {} },
            preservingUnknownType: { 'x-kubernetes-preserve-unknown-fields': true },
          },
        },
      },
    };
    const { obj, pruned } = prune(
      JSON.stringify({
        preserving: {
          unspecified: 'bar',
          unspecifiedObject: { unspecified: 'bar' },
          pruning: { unspecified: 'bar' },
          preservingUnknownType: [{ foo: true }, { bar: true }],
        },
      }),
      schema,
    );
    assert.deepEqual(obj, {
      preserving: {
        unspecified: 'bar',
        unspecifiedObject: { unspecified: 'bar' },
        pruning: {},
        preservingUnknownType: [{ foo: true }, { bar: true }],
      },
    });
    assert.deepEqual(pruned, ['preserving.pruning.unspecified']);
  });

  it('drops nulls whose schema is neither nullable nor defaulted, without reporting them', () => {
    const schema: Schema = {
      type: 'object',
      properties: {
        spec: {
          type: 'object',
          properties: {
            a: { type: 'string' },
            b: { type: 'string', nullable: true },
            c: { type: 'string', default: 'C' },
          },
        },
      },
    };
    const { obj, pruned } = prune('{"spec":{"a":null,"b":null,"c":null}}', schema);
    assert.deepEqual(obj, { spec: { b: null, c: null } });
    assert.deepEqual(pruned, []);
  });
});

describe('applyDefaults', () => {
  const schema: Schema = {
    type: 'object',
    properties: {
      array: {
        type: 'array',
        items: {
          type: 'object',
          properties: { a: { type: 'string', default: 'A' }, b: { type: 'string', default: 'B' } },
        },
      },
      object: { type: 'object', default: {}, properties: { a: { type: 'string', default: 'A' } } },
      map: {
        type: 'object',
        additionalProperties: { type: 'object', properties: { n: { type: 'integer', default: 1 } } },
      },
      nullable: { type: 'string', nullable: true, default: 'N' },
      notNullable: { type: 'string', default: 'X' },
      nulls: { type: 'array', items: { type: 'string', default: 'I' } },
    },
  };

  it('fills missing fields from the top down (a defaulted object gets its own fields defaulted)', () => {
    const obj: Record<string, unknown> = { array: [{ a: 'x' }, {}], map: { k: {} } };
    applyDefaults(obj, schema);
    assert.deepEqual(obj, {
      array: [
        { a: 'x', b: 'B' },
        { a: 'A', b: 'B' },
      ],
      object: { a: 'A' },
      map: { k: { n: 1 } },
      nullable: 'N',
      notNullable: 'X',
    });
  });

  it('replaces null with the default unless the field is nullable', () => {
    const obj: Record<string, unknown> = { nullable: null, notNullable: null, nulls: [null, 'x'] };
    applyDefaults(obj, schema);
    assert.equal(obj.nullable, null);
    assert.equal(obj.notNullable, 'X');
    assert.deepEqual(obj.nulls, ['I', 'x']);
  });

  it('copies defaults, never shares them between objects', () => {
    const a: Record<string, unknown> = {};
    const b: Record<string, unknown> = {};
    applyDefaults(a, schema);
    applyDefaults(b, schema);
    (a.object as Record<string, unknown>).a = 'changed';
    assert.deepEqual(b.object, { a: 'A' });
    assert.deepEqual((schema.properties as Record<string, Schema>).object?.default, {});
  });
});
