import { describe, it } from 'node:test';
import type { Schema } from '../../../api/crd-schema-node.js';
import { path } from '../../../api/field-errors.js';
import assert from '../../../testing/assert.js';
import { structuralSchemaErrors } from './structural.js';

const at = path('spec', 'versions').index(0).child('schema', 'openAPIV3Schema');
const P = 'spec.versions[0].schema.openAPIV3Schema';
const errors = (schema: Schema) => structuralSchemaErrors(schema, at).map((e) => e.message);
const root = (properties: Record<string, Schema>, extra: Schema = {}): Schema => ({
  type: 'object',
  properties,
  ...extra,
});

describe('structuralSchemaErrors: structure', () => {
  it('accepts a typical schema', () => {
    const schema = root({
      spec: {
        type: 'object',
        required: ['size'],
        properties: {
          size: { type: 'integer', minimum: 1, maximum: 10, default: 1 },
          color: { type: 'string', enum: ['red', 'blue'] },
          port: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] },
          tags: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } },
          ports: {
            type: 'array',
            'x-kubernetes-list-type': 'map',
            'x-kubernetes-list-map-keys': ['name'],
            items: { type: 'object', required: ['name'], properties: { name: { type: 'string' } } },
          },
          template: {
            type: 'object',
            'x-kubernetes-embedded-resource': true,
            'x-kubernetes-preserve-unknown-fields': true,
          },
          extra: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
          oneOfTwo: {
            type: 'object',
            properties: { a: { type: 'string' } },
            oneOf: [{ required: ['a'] }, { properties: { a: { maxLength: 3 } } }],
          },
        },
        'x-kubernetes-validations': [{ rule: 'self.size <= 5 || self.color == "red"', message: 'big ones are red' }],
      },
      metadata: { type: 'object', properties: { name: { type: 'string', maxLength: 10 } } },
      status: { type: 'object', properties: { ready: { type: 'boolean' } } },
    });
    assert.deepEqual(errors(schema), []);
  });

  it('every specified node needs a type, except int-or-string and preserve-unknown-fields', () => {
    assert.deepEqual(errors({ properties: {} }), [`${P}.type: Required value: must not be empty at the root`]);
    assert.deepEqual(errors(root({ a: {}, b: { type: 'array', items: {} }, c: { type: 'array' } })), [
      `${P}.properties[a].type: Required value: must not be empty for specified object fields`,
      `${P}.properties[b].items.type: Required value: must not be empty for specified array items`,
      `${P}.properties[c].items: Required value: must be specified`,
    ]);
    assert.deepEqual(
      errors(root({ a: { 'x-kubernetes-preserve-unknown-fields': true }, b: { 'x-kubernetes-int-or-string': true } })),
      [],
    );
    assert.deepEqual(errors({ type: 'string' }), [`${P}.type: Invalid value: "string": must be object at the root`]);
    assert.deepEqual(errors(root({ a: { type: 'foo' } })), [
      `${P}.properties[a].type: Unsupported value: "foo": supported values: "array", "boolean", "integer", "number", "object", "string"`,
    ]);
  });

  it('value validations in allOf/anyOf/oneOf/not only restrict what is specified', () => {
    assert.deepEqual(errors(root({ a: { type: 'object', anyOf: [{ type: 'object', description: 'x' }] } })), [
      `${P}.properties[a].anyOf[0].description: Forbidden: must be empty to be structural`,
      `${P}.properties[a].anyOf[0].type: Forbidden: must be empty to be structural`,
    ]);
    // Completeness is checked for the root's value validations.
    assert.deepEqual(
      errors(root({ a: { type: 'string' } }, { anyOf: [{ properties: { b: {} } }, { required: ['a'] }] })),
      [`${P}.properties[b]: Required value: because it is defined in ${P}.anyOf[0].properties[b]`],
    );
    assert.deepEqual(errors(root({ a: { type: 'string', not: { 'x-kubernetes-validations': [{ rule: 'true' }] } } })), [
      `${P}.properties[a].not.x-kubernetes-validations: Forbidden: must be empty to be structural`,
    ]);
  });

  it('additionalProperties: not at the root, not with properties', () => {
    assert.deepEqual(errors(root({}, { additionalProperties: { type: 'string' } })), [
      `${P}.additionalProperties: Forbidden: must not be used at the root`,
    ]);
    assert.deepEqual(
      errors(
        root({
          m: { type: 'object', properties: { a: { type: 'string' } }, additionalProperties: { type: 'string' } },
        }),
      ),
      [`${P}.properties[m].additionalProperties: Forbidden: additionalProperties and properties are mutual exclusive`],
    );
  });

  it('metadata at the root may restrict name and generateName only', () => {
    assert.deepEqual(errors(root({ metadata: { type: 'object', properties: { labels: { type: 'object' } } } })), [
      `${P}.properties[metadata]: Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified`,
    ]);
    assert.deepEqual(
      errors(root({ metadata: { type: 'object', properties: { name: { type: 'string', default: 'x' } } } })),
      [`${P}.properties[metadata].properties[name].default: Forbidden: must not be set in top-level metadata`],
    );
    assert.deepEqual(errors(root({ kind: { type: 'integer' } })), [
      `${P}.properties[kind].type: Invalid value: "integer": must be string`,
    ]);
  });

  it('the extensions must fit together', () => {
    assert.deepEqual(
      errors(
        root({
          a: { type: 'string', 'x-kubernetes-embedded-resource': true },
          b: { type: 'object', 'x-kubernetes-embedded-resource': true },
          c: { 'x-kubernetes-int-or-string': true, 'x-kubernetes-preserve-unknown-fields': true },
          d: { type: 'string', 'x-kubernetes-preserve-unknown-fields': false },
        }),
      ),
      [
        `${P}.properties[a].properties: Required value: must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields`,
        `${P}.properties[a].type: Invalid value: "string": must be object if x-kubernetes-embedded-resource is true`,
        `${P}.properties[b].properties: Required value: must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields`,
        `${P}.properties[c].x-kubernetes-preserve-unknown-fields: Invalid value: true: must be false if x-kubernetes-int-or-string is true`,
        `${P}.properties[d].x-kubernetes-preserve-unknown-fields: Invalid value: false: must be true or undefined`,
      ],
    );
  });

  it('refuses the OpenAPI features CRDs do not support', () => {
    assert.deepEqual(
      errors(
        root({
          a: { type: 'string', $ref: '#/definitions/x' },
          b: { type: 'array', items: { type: 'string' }, uniqueItems: true },
          c: { type: 'string', nullable: true },
        }),
      ),
      [
        `${P}.properties[a].$ref: Forbidden: $ref is not supported`,
        `${P}.properties[b].uniqueItems: Forbidden: uniqueItems cannot be set to true since the runtime complexity becomes quadratic`,
      ],
    );
    assert.deepEqual(errors(root({}, { nullable: true })), [
      `${P}.nullable: Forbidden: nullable cannot be true at the root`,
    ]);
    assert.deepEqual(errors(root({ p: { type: 'string', pattern: '(' } })), [
      `${P}.properties[p].pattern: Invalid value: "(": must be a valid regular expression, but isn't: error parsing regexp: missing closing ): \`(\``,
    ]);
  });
});

describe('structuralSchemaErrors: list and map types', () => {
  it('checks list-type, map keys and map-type', () => {
    assert.deepEqual(
      errors(
        root({
          a: { type: 'string', 'x-kubernetes-list-type': 'set' },
          b: { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'bag' },
          c: {
            type: 'array',
            items: { type: 'object', properties: { k: { type: 'string' } } },
            'x-kubernetes-list-type': 'map',
          },
          d: {
            type: 'array',
            'x-kubernetes-list-type': 'map',
            'x-kubernetes-list-map-keys': ['k', 'x'],
            items: { type: 'object', required: ['k'], properties: { k: { type: 'string' } } },
          },
          e: { type: 'object', 'x-kubernetes-map-type': 'fine' },
        }),
      ),
      [
        `${P}.properties[a].type: Invalid value: "string": must be array if x-kubernetes-list-type is specified`,
        `${P}.properties[b].x-kubernetes-list-type: Unsupported value: "bag": supported values: "atomic", "set", "map"`,
        `${P}.properties[c].x-kubernetes-list-map-keys: Required value: must not be empty if x-kubernetes-list-type is map`,
        `${P}.properties[d].x-kubernetes-list-map-keys: Invalid value: []string{"k", "x"}: entries must all be names of item properties`,
        `${P}.properties[e].x-kubernetes-map-type: Unsupported value: "fine": supported values: "atomic", "granular"`,
      ],
    );
  });

  it('map keys must be required or defaulted, and set items of objects atomic', () => {
    assert.deepEqual(
      errors(
        root({
          m: {
            type: 'array',
            'x-kubernetes-list-type': 'map',
            'x-kubernetes-list-map-keys': ['key'],
            items: { type: 'object', properties: { key: { type: 'string' } } },
          },
          s: {
            type: 'array',
            'x-kubernetes-list-type': 'set',
            items: { type: 'object', properties: { a: { type: 'string' } } },
          },
        }),
      ),
      [
        `${P}.properties[m].items.properties[key].default: Required value: this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property`,
        `${P}.properties[s].items.x-kubernetes-map-type: Invalid value: "null": must be atomic as item of a list with x-kubernetes-list-type=set`,
      ],
    );
  });
});

describe('structuralSchemaErrors: defaults', () => {
  it('a default must validate against its schema and have no unknown fields', () => {
    assert.deepEqual(
      errors(
        root({
          a: { type: 'integer', default: 'x' },
          b: { type: 'object', properties: { x: { type: 'string' } }, default: { x: 'a', y: 1 } },
          c: { type: 'integer', maximum: 5, default: 7 },
          d: { type: 'string', default: 'ok', enum: ['ok'] },
        }),
      ),
      [
        `${P}.properties[a].default: Invalid value: "string":  in body must be of type integer: "string"`,
        `${P}.properties[b].default: Invalid value: map[string]interface {}{"x":"a", "y":1}: must not have unknown fields`,
        `${P}.properties[c].default: Invalid value: 7:  in body should be less than or equal to 5`,
      ],
    );
  });

  it('a default must pass the CEL rules of its node', () => {
    assert.deepEqual(
      errors(
        root({
          a: { type: 'integer', default: 7, 'x-kubernetes-validations': [{ rule: 'self < 5', message: 'small' }] },
        }),
      ),
      [`${P}.properties[a].default: Invalid value: "integer": small`],
    );
  });
});

describe('structuralSchemaErrors: x-kubernetes-validations', () => {
  const rules = (...r: Schema[]) =>
    errors(root({ spec: { type: 'object', properties: { a: { type: 'string' } }, 'x-kubernetes-validations': r } }));
  const V = `${P}.properties[spec].x-kubernetes-validations`;

  it('checks the shape of each rule', () => {
    assert.deepEqual(
      rules(
        { rule: ' ' },
        { rule: 'true', message: ' ' },
        { rule: 'true', reason: 'Bogus' },
        { rule: 'true', fieldPath: '.b' },
      ),
      [
        `${V}[0].rule: Required value: rule is not specified`,
        `${V}[1].message: Invalid value: " ": message must be non-empty if specified`,
        `${V}[2].reason: Unsupported value: "Bogus": supported values: "FieldValueDuplicate", "FieldValueForbidden", "FieldValueInvalid", "FieldValueRequired"`,
        `${V}[3].fieldPath: Invalid value: ".b": fieldPath must be a valid path`,
      ],
    );
    assert.deepEqual(rules({ rule: 'self.a ==\n"x"' }), [
      `${V}[0].message: Required value: message must be specified if rule contains line breaks`,
    ]);
  });

  it('compiles each rule, as upstream words its errors', () => {
    const errs = rules({ rule: 'self.a == ' }, { rule: '1 + 1' }, { rule: 'true', messageExpression: '1' });
    assert.equal(errs.length, 3);
    assert.match(
      errs[0] ?? '',
      new RegExp(
        `^${V.replace(/[[\].]/g, '\\$&')}\\[0\\]\\.rule: Invalid value: apiextensions\\.ValidationRule\\{Rule:"self\\.a == ", Message:"", MessageExpression:"", Reason:\\(\\*apiextensions\\.FieldValueErrorReason\\)\\(nil\\), FieldPath:"", OptionalOldSelf:\\(\\*bool\\)\\(nil\\)\\}: compilation failed: ERROR: <input>:1:`,
      ),
    );
    assert.match(
      errs[1] ?? '',
      /\[1\]\.rule: Invalid value: apiextensions\.ValidationRule\{Rule:"1 \+ 1".*\}: cel expression must evaluate to a bool$/,
    );
    assert.match(
      errs[2] ?? '',
      /\[2\]\.messageExpression: Invalid value: .*: messageExpression must evaluate to a string$/,
    );
  });

  it("declares kind, apiVersion and metadata's name and generateName at a resource's root, and nothing else of metadata", () => {
    const withRules = (...r: Schema[]) => root({ spec: { type: 'object' } }, { 'x-kubernetes-validations': r });
    assert.deepEqual(
      errors(
        withRules(
          { rule: "self.metadata.name.startsWith('r')" },
          { rule: "self.kind == 'Root' && self.apiVersion != ''" },
          { rule: "!has(self.metadata.generateName) || self.metadata.generateName != ''" },
        ),
      ),
      [],
    );
    const labels = errors(withRules({ rule: "self.metadata.labels['a'] == 'b'" }));
    assert.equal(labels.length, 1);
    assert.match(labels[0] ?? '', /compilation failed: ERROR: <input>:1:14: undefined field 'labels'/);
    // An embedded resource is a root of its own; a plain object is not.
    const nested = root({
      template: {
        type: 'object',
        'x-kubernetes-embedded-resource': true,
        'x-kubernetes-preserve-unknown-fields': true,
        'x-kubernetes-validations': [{ rule: "self.kind != ''" }],
      },
      plain: { type: 'object', properties: {}, 'x-kubernetes-validations': [{ rule: "self.kind != ''" }] },
    });
    const nestedErrs = errors(nested);
    assert.equal(nestedErrs.length, 1);
    assert.match(nestedErrs[0] ?? '', /properties\[plain\].*undefined field 'kind'/);
  });

  it('types date-time strings as timestamps when compiling: comparing one with a string does not compile', () => {
    const schema = root(
      { at: { type: 'string', format: 'date-time' } },
      {
        'x-kubernetes-validations': [
          { rule: "self.at > timestamp('2020-01-01T00:00:00Z')" },
          { rule: "self.at == '2020-01-01T00:00:00Z'" },
        ],
      },
    );
    const errs = errors(schema);
    assert.equal(errs.length, 1, errs.join('\n'));
    assert.match(
      errs[0] ?? '',
      /\[1\]\.rule: .*found no matching overload for '_==_' applied to '\(google\.protobuf\.Timestamp, string\)'/,
    );
  });

  it('refuses oldSelf where old values cannot be correlated, and optionalOldSelf without oldSelf', () => {
    const schema = root({
      list: {
        type: 'array',
        items: { type: 'string', 'x-kubernetes-validations': [{ rule: 'self == oldSelf' }] },
      },
      b: { type: 'string', 'x-kubernetes-validations': [{ rule: 'self == "x"', optionalOldSelf: true }] },
      c: { type: 'string', 'x-kubernetes-validations': [{ rule: 'self == oldSelf' }] },
    });
    assert.deepEqual(errors(schema), [
      `${P}.properties[list].items.x-kubernetes-validations[0].rule: Invalid value: "self == oldSelf": oldSelf cannot be used on the uncorrelatable portion of the schema within ${P}.properties[list]`,
      `${P}.properties[b].x-kubernetes-validations[0].optionalOldSelf: Invalid value: true: may not be set if oldSelf is not used in rule`,
    ]);
  });

  it('does not compile rules while the schema has other errors', () => {
    assert.deepEqual(errors(root({ a: {}, b: { type: 'string', 'x-kubernetes-validations': [{ rule: '1 + 1' }] } })), [
      `${P}.properties[a].type: Required value: must not be empty for specified object fields`,
    ]);
  });
});
