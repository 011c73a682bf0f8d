import { describe, test } from 'node:test';
import { schemaForKind } from '../../api/schema.js';
import type { SchemaNode } from '../../api/schema-node.js';
import { StatusError } from '../../api/status-error.js';
import assert from '../../testing/assert.js';
import type { HttpResponse } from '../context.js';
import {
  addWarnings,
  cleanJsonBody,
  dropUnknownFields,
  fieldValidationDirective,
  findDuplicateFields,
  findUnknownFields,
  patchMayAddUnknownFields,
  patchStrictDecodingError,
  patchStrictErrors,
  requestBodyStrictErrors,
  strictDecodingError,
  strictDecodingErrors,
  warningHeaderValue,
} from './field-validation.js';

const kind = (group: string, version: string, k: string): SchemaNode => {
  const node = schemaForKind({ group, version, kind: k });
  assert.ok(node, `${k} is in the tables`);
  return node;
};
const deployment = kind('apps', 'v1', 'Deployment');
const configMap = kind('', 'v1', 'ConfigMap');

describe('fieldValidationDirective', () => {
  test('defaults to Warn, takes the first value, and refuses unknown directives as upstream does', () => {
    assert.equal(fieldValidationDirective(new URLSearchParams(''), 'CreateOptions'), 'Warn');
    assert.equal(fieldValidationDirective(new URLSearchParams('fieldValidation='), 'CreateOptions'), 'Warn');
    assert.equal(fieldValidationDirective(new URLSearchParams('fieldValidation=Strict'), 'PatchOptions'), 'Strict');
    assert.equal(
      fieldValidationDirective(new URLSearchParams('fieldValidation=Ignore&fieldValidation=Strict'), 'CreateOptions'),
      'Ignore',
    );
    assert.throws(
      () => fieldValidationDirective(new URLSearchParams('fieldValidation=strict'), 'UpdateOptions'),
      (err: unknown) => {
        assert.ok(err instanceof StatusError);
        assert.equal(err.code, 422);
        assert.equal(err.reason, 'Invalid');
        assert.equal(
          err.message,
          'UpdateOptions.meta.k8s.io "" is invalid: fieldValidation: Unsupported value: "strict": supported values: "", "Ignore", "Strict", "Warn"',
        );
        assert.deepEqual(err.status.details, {
          group: 'meta.k8s.io',
          kind: 'UpdateOptions',
          causes: [
            {
              reason: 'FieldValueNotSupported',
              message: 'Unsupported value: "strict": supported values: "", "Ignore", "Strict", "Warn"',
              field: 'fieldValidation',
            },
          ],
        });
        return true;
      },
    );
  });
});

describe('findUnknownFields', () => {
  test('names unknown fields with their paths, through arrays, and stays quiet for known ones', () => {
    const obj = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', labels: { app: 'web' }, colour: 'blue' },
      spec: {
        replica: 3,
        selector: { matchLabels: { app: 'web' } },
        template: {
          metadata: { labels: { app: 'web' } },
          spec: {
            containers: [
              { name: 'c', image: 'nginx' },
              { name: 'd', image: 'x', imagePullPolice: 'Always' },
            ],
          },
        },
      },
    };
    assert.deepEqual(findUnknownFields(obj, deployment), [
      'metadata.colour',
      'spec.replica',
      'spec.template.spec.containers[1].imagePullPolice',
    ]);
    assert.deepEqual(findUnknownFields({ apiVersion: 'v1', kind: 'ConfigMap', data: { a: 'b' } }, configMap), []);
  });

  test('matches names exactly and does not look inside values that keep unknown fields', () => {
    const obj = {
      Kind: 'ConfigMap',
      metadata: { managedFields: [{ manager: 'm', fieldsV1: { 'f:data': { 'f:a': {} } } }] },
    };
    assert.deepEqual(findUnknownFields(obj, configMap), ['Kind']);
    const event = kind('', 'v1', 'Event');
    assert.deepEqual(findUnknownFields({ involvedObject: { kind: 'Pod' }, series: { count: 1, x: 1 } }, event), [
      'series.x',
    ]);
  });

  test('dropUnknownFields deletes what the Go type would not keep, and nothing else', () => {
    const obj = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'a', colour: 'blue', managedFields: [{ fieldsV1: { 'f:x': {} } }] },
      data: { k: 'v' },
      foo: 1,
    };
    assert.deepEqual(dropUnknownFields(obj, configMap), ['metadata.colour', 'foo']);
    assert.deepEqual(obj, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'a', managedFields: [{ fieldsV1: { 'f:x': {} } }] },
      data: { k: 'v' },
    });
  });

  test('walks map values with the key in the path', () => {
    const pod = kind('', 'v1', 'Pod');
    // overhead is a map of quantities: scalars, nothing to find; nodeSelector a map of strings.
    assert.deepEqual(findUnknownFields({ spec: { nodeSelector: { a: 'b' }, overhead: { cpu: '1' } } }, pod), []);
    const crd = kind('apiextensions.k8s.io', 'v1', 'CustomResourceDefinition');
    const obj = { spec: { versions: [{ name: 'v1', schema: { openAPIV3Schema: { type: 'object', bogus: 1 } } }] } };
    // JSONSchemaProps is a struct: its unknown field is found through the array.
    assert.deepEqual(findUnknownFields(obj, crd), ['spec.versions[0].schema.openAPIV3Schema.bogus']);
  });
});

describe('strictDecodingErrors (JSON bodies)', () => {
  test('reports unknown and duplicate fields in the order the decoder meets them', () => {
    const body =
      '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","name":"b","labels":{"x":"1","x":"2"}},' +
      '"zeta":1,"data":{"k":"v"},"alpha":{"nested":{"deep":1}},"zeta":2}';
    assert.deepEqual(strictDecodingErrors(body, configMap), [
      'duplicate field "metadata.name"',
      'duplicate field "metadata.labels.x"',
      'unknown field "zeta"',
      'unknown field "alpha"',
    ]);
  });

  test('uses Go quoting and decodes escaped keys', () => {
    assert.deepEqual(strictDecodingErrors('{"d\\u0061ta":{},"we\\"ird":1}', configMap), ['unknown field "we\\"ird"']);
  });

  test('does not look into preserved values, and checks untyped values for duplicates only', () => {
    const event = kind('', 'v1', 'Event');
    assert.deepEqual(
      strictDecodingErrors('{"metadata":{"managedFields":[{"fieldsV1":{"a":1,"a":2}}]},"involvedObject":{}}', event),
      [],
    );
    assert.deepEqual(findDuplicateFields('{"a":{"b":[{"c":1,"c":2}]},"a":0}'), ['a.b[0].c', 'a']);
  });

  test('stops at 100 errors', () => {
    const fields = Array.from({ length: 150 }, (_, i) => `"f${i}":1`).join(',');
    assert.equal(strictDecodingErrors(`{${fields}}`, configMap).length, 100);
  });

  test('YAML bodies are checked in sorted key order', () => {
    const decoded = { zz: 1, metadata: { name: 'a', b: 1 }, aa: 1 };
    assert.deepEqual(requestBodyStrictErrors('', 'application/yaml', decoded, configMap), [
      'unknown field "aa"',
      'unknown field "metadata.b"',
      'unknown field "zz"',
    ]);
  });
});

describe('patchStrictErrors', () => {
  const patched = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web' },
    spec: { template: { spec: { containers: [{ name: 'c', zz: 1, aa: 2 }] } }, replica: 2 },
  };

  test('merge patch: duplicates in the patch, then unknown fields of the result in sorted order', () => {
    const raw = '{"spec":{"replica":2,"replica":2}}';
    assert.deepEqual(patchStrictErrors('application/merge-patch+json', raw, patched, deployment), [
      'duplicate field "spec.replica"',
      'unknown field "spec.replica"',
      'unknown field "spec.template.spec.containers[0].aa"',
      'unknown field "spec.template.spec.containers[0].zz"',
    ]);
  });

  test('JSON patch: strict errors of the operations are prefixed "json patch "', () => {
    const raw = '[{"op":"add","path":"/spec/replica","value":2,"valeu":3,"op":"add"}]';
    assert.deepEqual(patchStrictErrors('application/json-patch+json', raw, { spec: { replica: 2 } }, deployment), [
      'json patch unknown field "[0].valeu"',
      'json patch duplicate field "[0].op"',
      'unknown field "spec.replica"',
    ]);
  });

  test('strategic merge patch: the converter leaves map keys out of paths and sorts the messages', () => {
    const crd = kind('apiextensions.k8s.io', 'v1', 'CustomResourceDefinition');
    const result = {
      spec: {
        versions: [
          { name: 'v1', schema: { openAPIV3Schema: { properties: { foo: { type: 'string', zz: 1 } }, b: 1 } } },
        ],
      },
    };
    assert.deepEqual(patchStrictErrors('application/strategic-merge-patch+json', '{}', result, crd), [
      'unknown field "spec.versions[0].schema.openAPIV3Schema.b"',
      'unknown field "spec.versions[0].schema.openAPIV3Schema.properties.zz"',
    ]);
  });
});

describe('patchMayAddUnknownFields', () => {
  const pod = kind('', 'v1', 'Pod');
  const SMP = 'application/strategic-merge-patch+json';
  const MERGE = 'application/merge-patch+json';

  test('a patch of known fields (strategic directives and nulls aside) cannot add unknown ones', () => {
    const status = {
      metadata: { uid: 'u1', labels: { 'any/key': 'v' } },
      status: {
        phase: 'Succeeded',
        message: null,
        conditions: [{ type: 'Ready', status: 'False', reason: null }],
        '$setElementOrder/conditions': [{ type: 'Ready' }],
      },
    };
    assert.equal(patchMayAddUnknownFields(SMP, status, pod), false);
    const finalizer = { metadata: { '$deleteFromPrimitiveList/finalizers': ['batch.kubernetes.io/job-tracking'] } };
    assert.equal(patchMayAddUnknownFields(SMP, finalizer, pod), false);
    assert.equal(patchMayAddUnknownFields(MERGE, { spec: { replicas: 3 } }, deployment), false);
  });

  test('an unknown key at any depth, an unknown directive, or a JSON patch that adds sends the patch through the full walk', () => {
    const JSON_PATCH = 'application/json-patch+json';
    assert.equal(patchMayAddUnknownFields(SMP, { status: { conditions: [{ type: 'Ready', zz: 1 }] } }, pod), true);
    assert.equal(patchMayAddUnknownFields(SMP, { spec: { $unknown: 1 } }, pod), true);
    assert.equal(patchMayAddUnknownFields(MERGE, { spec: { $patch: 'replace' } }, deployment), true);
    for (const op of ['add', 'replace', 'copy', 'move']) {
      assert.equal(
        patchMayAddUnknownFields(JSON_PATCH, [{ op, path: '/spec/x', from: '/spec/y', value: 1 }], pod),
        true,
      );
    }
    // Tests and removals add nothing: a job's finalizer removal is not walked.
    const removal = [
      { op: 'test', path: '/metadata/finalizers/0', value: 'batch.kubernetes.io/job-tracking' },
      { op: 'remove', path: '/metadata/finalizers/0' },
    ];
    assert.equal(patchMayAddUnknownFields(JSON_PATCH, removal, pod), false);
    assert.equal(patchMayAddUnknownFields(JSON_PATCH, [], pod), false);
    // Such a patch still answers its own unknown operation fields.
    const raw = '[{"op":"remove","path":"/metadata/finalizers/0","frm":"x"}]';
    assert.deepEqual(patchStrictErrors(JSON_PATCH, raw, { metadata: {} }, pod, JSON.parse(raw)), [
      'json patch unknown field "[0].frm"',
    ]);
  });

  test('with the patch body given, a known-field patch answers only its own duplicates; an unknown one as before', () => {
    const clean = { metadata: { name: 'web' }, spec: { replicas: 3 } };
    assert.deepEqual(
      patchStrictErrors(MERGE, '{"spec":{"replicas":3,"replicas":3}}', clean, deployment, { spec: { replicas: 3 } }),
      ['duplicate field "spec.replicas"'],
    );
    const patched = { metadata: { name: 'web' }, spec: { replicas: 3, replica: 2 } };
    assert.deepEqual(
      patchStrictErrors(MERGE, '{"spec":{"replica":2}}', patched, deployment, { spec: { replica: 2 } }),
      patchStrictErrors(MERGE, '{"spec":{"replica":2}}', patched, deployment),
    );
    assert.deepEqual(
      patchStrictErrors(MERGE, '{"spec":{"replica":2}}', patched, deployment, { spec: { replica: 2 } }),
      ['unknown field "spec.replica"'],
    );
  });
});

describe('answers', () => {
  test('Strict create/update: 400 naming the kind and version of the body', () => {
    const err = strictDecodingError(
      { apiVersion: 'apps/v1', kind: 'Deployment' },
      { version: 'v1', kind: 'Deployment' },
      ['unknown field "spec.replica"', 'unknown field "spec.template.spec.containers[0].imagePullPolice"'],
    );
    assert.equal(err.code, 400);
    assert.equal(err.reason, 'BadRequest');
    assert.equal(
      err.message,
      'Deployment in version "v1" cannot be handled as a Deployment: strict decoding error: unknown field "spec.replica", unknown field "spec.template.spec.containers[0].imagePullPolice"',
    );
    assert.equal(err.status.details, undefined);
    const bare = strictDecodingError({}, { version: 'v1', kind: 'ConfigMap' }, ['unknown field "x"']);
    assert.equal(
      bare.message,
      'ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: unknown field "x"',
    );
  });

  test('Strict patch: 422 Invalid on field "patch" with no kind or name', () => {
    const err = patchStrictDecodingError(
      'application/merge-patch+json',
      { data: { x: 1 } },
      { kind: 'ConfigMap', apiVersion: 'v1', x: '<&>' },
      ['unknown field "x"'],
    );
    assert.equal(err.code, 422);
    assert.equal(err.reason, 'Invalid');
    const value = '"{\\"apiVersion\\":\\"v1\\",\\"kind\\":\\"ConfigMap\\",\\"x\\":\\"\\\\u003c\\\\u0026\\\\u003e\\"}"';
    assert.equal(
      err.message,
      ` "" is invalid: patch: Invalid value: ${value}: strict decoding error: unknown field "x"`,
    );
    assert.deepEqual(err.status.details, {
      causes: [
        {
          reason: 'FieldValueInvalid',
          message: `Invalid value: ${value}: strict decoding error: unknown field "x"`,
          field: 'patch',
        },
      ],
    });
    const smp = patchStrictDecodingError(
      'application/strategic-merge-patch+json',
      { b: [1, 'x'], a: { c: null } },
      {},
      ['unknown field "b"'],
    );
    assert.match(smp.message, /^ "" is invalid: patch: Invalid value: "map\[a:map\[c:<nil>\] b:\[1 x\]\]": strict/);
  });

  test('Warning header values are 299 with the text quoted', () => {
    assert.equal(warningHeaderValue('unknown field "spec.replica"'), '299 - "unknown field \\"spec.replica\\""');
    assert.equal(warningHeaderValue('a\\b'), '299 - "a\\\\b"');
    assert.equal(warningHeaderValue('bad\nline'), undefined);
    assert.equal(Buffer.from(warningHeaderValue('é') ?? '', 'latin1').toString('utf8'), '299 - "é"');
  });

  test('addWarnings drops repeats and truncates past 4096 runes as upstream does', () => {
    const headers = new Map<string, unknown>();
    const res = {
      headersSent: false,
      getHeader: (n: string) => headers.get(n),
      setHeader: (n: string, v: unknown) => headers.set(n, v),
    } as unknown as HttpResponse;
    addWarnings(res, ['one', 'two', 'one', '']);
    addWarnings(res, ['two', 'three']);
    assert.deepEqual(headers.get('warning'), ['299 - "one"', '299 - "two"', '299 - "three"']);
    addWarnings(res, ['y'.repeat(4000)]);
    assert.equal((headers.get('warning') as string[]).length, 4, '4011 runes still fit');
    addWarnings(res, ['x'.repeat(100), 'after']);
    const values = headers.get('warning') as string[];
    assert.equal(values.length, 6);
    assert.deepEqual(values.slice(0, 3), ['299 - "one"', '299 - "two"', '299 - "three"']);
    assert.ok(values[3] === `299 - "${'y'.repeat(256)}"`, 'the long warning is sent again cut to 256 runes');
    assert.deepEqual(values.slice(4), [`299 - "${'x'.repeat(100)}"`, '299 - "after"']);
  });
});

describe('cleanJsonBody', () => {
  const pod = kind('', 'v1', 'Pod');
  const crd = kind('apiextensions.k8s.io', 'v1', 'CustomResourceDefinition');
  const clean = (raw: string, schema: SchemaNode) => cleanJsonBody(raw, JSON.parse(raw), schema);

  test('vouches only for bodies the full scan finds nothing in, and sends the rest to it', () => {
    const bodies: Array<[string, SchemaNode, boolean]> = [
      // Known fields at every depth, maps (labels), lists, pretty-printed text.
      [
        '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","labels":{"a/b":"c"}},"spec":{"containers":[{"name":"c","image":"x","ports":[{"containerPort":80}]}]}}',
        pod,
        true,
      ],
      ['{\n  "metadata" : { "name" : "p" },\n  "spec" : { "nodeName" : "n" }\n}', pod, true],
      // A key ending in an escaped quote is one key.
      ['{"metadata":{"labels":{"a\\"":"b"}}}', pod, true],
      // An untyped value (a CRD's schema) is counted key by key but never unknown.
      [
        '{"spec":{"versions":[{"name":"v1","schema":{"openAPIV3Schema":{"type":"object","default":{"y":1}}}}]}}',
        crd,
        true,
      ],
      // A key twice, at the top or deep down, or inside an untyped value.
      ['{"metadata":{"name":"p","name":"q"}}', pod, false],
      ['{"metadata":{"name":"p",\n"name"\t:\r\n"q"}}', pod, false],
      ['{"spec":{"containers":[{"name":"c","image":"x","image":"y"}]}}', pod, false],
      ['{"spec":{"versions":[{"name":"v1","schema":{"openAPIV3Schema":{"default":{"a":1,"a":2}}}}]}}', crd, false],
      // Unknown fields.
      ['{"spec":{"nodeNam":"n"}}', pod, false],
      ['{"metadata":{"labels":{"a":"b"},"lables":{}}}', pod, false],
      // A string that looks like a key inside a value: not vouched for (the scan then finds nothing).
      ['{"metadata":{"annotations":{"last":"{\\"a\\":1}"}}}', pod, false],
    ];
    for (const [raw, schema, expected] of bodies) {
      assert.equal(clean(raw, schema), expected, raw);
      if (expected) {
        assert.deepEqual(strictDecodingErrors(raw, schema), [], `nothing to report in ${raw}`);
        assert.deepEqual(dropUnknownFields(JSON.parse(raw), schema), [], `nothing to drop in ${raw}`);
      }
    }
    assert.deepEqual(strictDecodingErrors('{"metadata":{"annotations":{"last":"{\\"a\\":1}"}}}', pod), []);
  });
});
