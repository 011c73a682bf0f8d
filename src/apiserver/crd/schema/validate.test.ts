import { describe, it } from 'node:test';
import type { Schema } from '../../../api/crd-schema-node.js';
import { invalidMessage } from '../../../api/field-errors.js';
import assert from '../../../testing/assert.js';
import { validateObject } from './validate.js';

const widget: Schema = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      required: ['size'],
      properties: {
        size: { type: 'integer', maximum: 10 },
        replicas: { type: 'integer' },
        minReplicas: { type: 'integer' },
        tags: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } },
        ports: {
          type: 'array',
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['name', 'protocol'],
          items: {
            type: 'object',
            required: ['name'],
            properties: {
              name: { type: 'string' },
              protocol: { type: 'string', default: 'TCP' },
              port: { type: 'integer' },
            },
          },
        },
        template: {
          type: 'object',
          'x-kubernetes-embedded-resource': true,
          'x-kubernetes-preserve-unknown-fields': true,
        },
        name: {
          type: 'string',
          'x-kubernetes-validations': [{ rule: 'self == oldSelf', message: 'name is immutable' }],
        },
      },
      'x-kubernetes-validations': [
        {
          rule: 'self.minReplicas <= self.replicas',
          message: 'replicas should be greater than or equal to minReplicas',
        },
      ],
    },
  },
};

const w = (spec: Record<string, unknown>) => ({
  apiVersion: 'example.com/v1',
  kind: 'Widget',
  metadata: { name: 'w1' },
  spec,
});
const messages = (obj: Record<string, unknown>, old?: Record<string, unknown>) =>
  validateObject(obj, widget, old).map((e) => e.message);

describe('validateObject', () => {
  it('accepts a valid object', () => {
    assert.deepEqual(messages(w({ size: 3, replicas: 2, minReplicas: 1 })), []);
  });

  it('reports value errors as the registry prints them for built-ins', () => {
    const errs = validateObject(w({ size: 11, replicas: 2, minReplicas: 1 }), widget);
    assert.equal(
      invalidMessage({ group: 'example.com', kind: 'Widget' }, 'w1', errs),
      'Widget.example.com "w1" is invalid: spec.size: Invalid value: 11: spec.size in body should be less than or equal to 10',
    );
  });

  it('runs CEL rules once the schema checks pass', () => {
    assert.deepEqual(messages(w({ size: 3, replicas: 1, minReplicas: 2 })), [
      'spec: Invalid value: "object": replicas should be greater than or equal to minReplicas',
    ]);
  });

  it('skips CEL rules, with upstream note, after an error that changes the shape', () => {
    assert.deepEqual(messages(w({ replicas: 1, minReplicas: 2 })), [
      'spec.size: Required value',
      '<nil>: Invalid value: "null": some validation rules were not checked because the object was invalid; correct the existing errors to complete validation',
    ]);
    // A bound error does not block them.
    assert.deepEqual(messages(w({ size: 11, replicas: 1, minReplicas: 2 })), [
      'spec.size: Invalid value: 11: spec.size in body should be less than or equal to 10',
      'spec: Invalid value: "object": replicas should be greater than or equal to minReplicas',
    ]);
  });

  it('transition rules compare with the old object on update', () => {
    const old = w({ size: 3, replicas: 1, minReplicas: 1, name: 'a' });
    assert.deepEqual(messages(w({ size: 3, replicas: 1, minReplicas: 1, name: 'a' }), old), []);
    assert.deepEqual(messages(w({ size: 3, replicas: 1, minReplicas: 1, name: 'b' }), old), [
      'spec.name: Invalid value: "string": name is immutable',
    ]);
    assert.deepEqual(messages(w({ size: 3, replicas: 1, minReplicas: 1, name: 'b' })), []);
  });

  it('list-type set and map items must be unique', () => {
    assert.deepEqual(
      messages(
        w({
          size: 1,
          replicas: 1,
          minReplicas: 1,
          tags: ['a', 'b', 'a', 'a'],
          ports: [
            { name: 'http', protocol: 'TCP', port: 80 },
            { name: 'http', protocol: 'UDP', port: 80 },
            { name: 'http', protocol: 'TCP', port: 8080 },
          ],
        }),
      ),
      [
        'spec.tags[2]: Duplicate value: "a"',
        'spec.ports[2]: Duplicate value: map[string]interface {}{"name":"http", "protocol":"TCP"}',
      ],
    );
  });

  it('list-type duplicates an old object already had are let through on update', () => {
    const dup = w({ size: 1, replicas: 1, minReplicas: 1, tags: ['a', 'a'] });
    assert.equal(messages(dup).length, 1);
    assert.deepEqual(messages(dup, dup), []);
  });

  it('embedded resources need apiVersion, kind and valid metadata', () => {
    assert.deepEqual(messages(w({ size: 1, replicas: 1, minReplicas: 1, template: { metadata: { name: 'a/b' } } })), [
      'spec.template.apiVersion: Required value: must not be empty',
      'spec.template.kind: Required value: must not be empty',
      'spec.template.metadata.name: Invalid value: "a/b": may not contain \'/\'',
      '<nil>: Invalid value: "null": some validation rules were not checked because the object was invalid; correct the existing errors to complete validation',
    ]);
    assert.deepEqual(
      messages(
        w({ size: 1, replicas: 1, minReplicas: 1, template: { apiVersion: 'a/b/c', kind: 'Pod_', metadata: {} } }),
      ),
      [
        'spec.template.apiVersion: Invalid value: "a/b/c": unexpected GroupVersion string: a/b/c',
        "spec.template.kind: Invalid value: \"Pod_\": may have mixed case, but should otherwise match: a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
      ],
    );
    assert.deepEqual(
      messages(
        w({
          size: 1,
          replicas: 1,
          minReplicas: 1,
          template: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' } },
        }),
      ),
      [],
    );
  });

  it('ratchets on update: unchanged invalid values pass, CEL failures on them become warnings', () => {
    // Stored before the schema tightened: size 20 and replicas below minReplicas.
    const old = w({ size: 20, replicas: 1, minReplicas: 2, tags: ['a'] });
    const warnings: string[] = [];
    const relabelled = {
      ...w({ size: 20, replicas: 1, minReplicas: 2, tags: ['a'] }),
      metadata: { name: 'w1', labels: { a: 'b' } },
    };
    assert.deepEqual(validateObject(relabelled, widget, old, warnings), []);
    assert.deepEqual(warnings, [
      'spec: Invalid value: "object": replicas should be greater than or equal to minReplicas',
    ]);
    // The spec changed, so its rule is held to it; size is unchanged and still ratcheted.
    assert.deepEqual(messages(w({ size: 20, replicas: 1, minReplicas: 3 }), old), [
      'spec: Invalid value: "object": replicas should be greater than or equal to minReplicas',
    ]);
    // A changed invalid value is refused.
    assert.deepEqual(messages(w({ size: 21, replicas: 1, minReplicas: 2 }), old), [
      'spec.size: Invalid value: 21: spec.size in body should be less than or equal to 10',
      'spec: Invalid value: "object": replicas should be greater than or equal to minReplicas',
    ]);
  });

  it('ratcheting warns for failed rules on unchanged nested values', () => {
    const schema: Schema = {
      type: 'object',
      properties: {
        spec: {
          type: 'object',
          properties: {
            a: { type: 'string', 'x-kubernetes-validations': [{ rule: 'self.size() < 3', message: 'short' }] },
            b: { type: 'string' },
          },
        },
      },
    };
    const warnings: string[] = [];
    const errs = validateObject(w({ a: 'long', b: 'new' }), schema, w({ a: 'long', b: 'old' }), warnings);
    assert.deepEqual(errs, []);
    assert.deepEqual(warnings, ['spec.a: Invalid value: "string": short']);
  });
});
