import { describe, it } from 'node:test';
import assert from '../../testing/assert.js';
import type { ServedResource } from '../api-registry.js';
import { customDefinitions } from './openapi.js';

const served = (schema: Record<string, unknown>) =>
  ({
    def: { group: 'example.com', version: 'v1', kind: 'Thing', listKind: 'ThingList', resource: 'things' },
    openapi: { schema, signature: 'x' },
  }) as unknown as ServedResource;

describe('custom resource OpenAPI definitions', () => {
  const schema = {
    type: 'object',
    properties: {
      metadata: { type: 'object' },
      spec: {
        type: 'object',
        properties: {
          template: {
            type: 'object',
            'x-kubernetes-embedded-resource': true,
            'x-kubernetes-preserve-unknown-fields': true,
            required: ['spec'],
          },
          typed: { type: 'object', 'x-kubernetes-embedded-resource': true, properties: { spec: { type: 'object' } } },
        },
      },
    },
  };

  it("gives embedded resources apiVersion, kind and metadata, and the root ObjectMeta over the schema's own", () => {
    // biome-ignore lint/suspicious/noExplicitAny: a published schema is plain JSON
    const v3 = customDefinitions([served(schema)], 'v3')['com.example.v1.Thing'] as Record<string, any>;
    assert.deepEqual(v3.properties.metadata.allOf, [
      { $ref: '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' },
    ]);
    const template = v3.properties.spec.properties.template;
    assert.deepEqual(Object.keys(template.properties).sort(), ['apiVersion', 'kind', 'metadata']);
    assert.deepEqual(template.required, ['spec', 'kind', 'apiVersion']);
    assert.match(template.properties.kind.description, /^kind is a string value representing the type of this object/);
    const typed = v3.properties.spec.properties.typed;
    assert.deepEqual(Object.keys(typed.properties).sort(), ['apiVersion', 'kind', 'metadata', 'spec']);
  });

  it('in v2 leaves embedded resources that keep unknown fields alone, and a root that does is a bare object', () => {
    // biome-ignore lint/suspicious/noExplicitAny: a published schema is plain JSON
    const v2 = customDefinitions([served(schema)], 'v2')['com.example.v1.Thing'] as Record<string, any>;
    assert.equal(v2.properties.spec.properties.template.properties, undefined);
    assert.deepEqual(v2.properties.spec.properties.typed.required, ['kind', 'apiVersion']);
    const open = customDefinitions([served({ type: 'object', 'x-kubernetes-preserve-unknown-fields': true })], 'v2');
    assert.deepEqual(open['com.example.v1.Thing'], {
      type: 'object',
      'x-kubernetes-group-version-kind': [{ group: 'example.com', kind: 'Thing', version: 'v1' }],
    });
  });
});
