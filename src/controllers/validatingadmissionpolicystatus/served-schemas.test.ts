import { describe, it } from 'node:test';
import assert from '../../testing/assert.js';
import { inlineRefs } from './served-schemas.js';

describe('inlineRefs', () => {
  it('writes out references, plain and in the allOf form, and leaves the rest as it is', () => {
    const components = {
      Meta: {
        type: 'object',
        properties: { name: { type: 'string' }, created: { $ref: '#/components/schemas/Time' } },
      },
      Time: { type: 'string', format: 'date-time' },
    };
    const schema = {
      type: 'object',
      properties: {
        metadata: { allOf: [{ $ref: '#/components/schemas/Meta' }], description: 'standard' },
        spec: { type: 'object', properties: { size: { type: 'integer' } } },
        list: { type: 'array', items: [{ $ref: '#/components/schemas/Time' }] },
      },
    };
    assert.deepEqual(inlineRefs(schema, components), {
      type: 'object',
      properties: {
        metadata: { type: 'object', properties: { name: { type: 'string' }, created: components.Time } },
        spec: { type: 'object', properties: { size: { type: 'integer' } } },
        list: { type: 'array', items: [components.Time] },
      },
    });
  });

  it('makes a reference to nothing, or one that recurses too deep, free-form', () => {
    const components = { Node: { type: 'object', properties: { next: { $ref: '#/components/schemas/Node' } } } };
    assert.deepEqual(inlineRefs({ $ref: '#/components/schemas/Missing' }, components), {});
    let node = inlineRefs({ $ref: '#/components/schemas/Node' }, components) as Record<string, unknown>;
    let depth = 0;
    while (Object.keys(node).length > 0) {
      node = (node.properties as Record<string, Record<string, unknown>>).next as Record<string, unknown>;
      depth++;
    }
    assert.equal(depth, 16);
  });
});
