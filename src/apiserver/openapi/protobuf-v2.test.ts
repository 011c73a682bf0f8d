import { describe, test } from 'node:test';
import { parse as parseYaml } from 'yaml';
import { readFields, WIRE_BYTES, type WireField } from '../../api/protobuf/wire.js';
import assert from '../../testing/assert.js';
import { negotiateForm } from './accept.js';
import { encodeV2Document } from './protobuf-v2.js';

const text = (b: Uint8Array) => Buffer.from(b).toString('utf8');

/** The fields numbered n of a message. */
function all(bytes: Uint8Array, n: number): WireField[] {
  return readFields(bytes).filter((f) => f.number === n);
}

/** The bytes of the one length-delimited field numbered n. */
function one(bytes: Uint8Array, n: number): Uint8Array {
  const found = all(bytes, n);
  assert.equal(found.length, 1, `one field ${n}`);
  const f = found[0] as WireField;
  assert.equal(f.wireType, WIRE_BYTES);
  return f.value as Uint8Array;
}

/** A NamedX list (name 1, value 2) as [name, value bytes] pairs. */
function namedList(bytes: Uint8Array, n: number): [string, Uint8Array][] {
  return all(bytes, n).map((f) => [text(one(f.value as Uint8Array, 1)), one(f.value as Uint8Array, 2)]);
}

const doc = {
  swagger: '2.0',
  info: { title: 'Kubernetes', version: 'v1.33.0' },
  paths: {
    '/api/v1/namespaces/{namespace}/configmaps': {
      post: {
        consumes: ['*/*'],
        operationId: 'createCoreV1NamespacedConfigMap',
        parameters: [
          { in: 'body', name: 'body', required: true, schema: { $ref: '#/definitions/io.k8s.api.core.v1.ConfigMap' } },
          { in: 'query', name: 'dryRun', type: 'string', uniqueItems: true },
        ],
        responses: {
          '201': { description: 'Created', schema: { $ref: '#/definitions/io.k8s.api.core.v1.ConfigMap' } },
        },
        'x-kubernetes-action': 'post',
      },
      parameters: [{ in: 'path', name: 'namespace', required: true, type: 'string', uniqueItems: true }],
    },
  },
  definitions: {
    'io.k8s.api.core.v1.ConfigMap': {
      type: 'object',
      required: ['data'],
      properties: {
        data: { type: 'object', additionalProperties: { type: 'string' } },
        closed: { type: 'object', additionalProperties: false },
        ports: {
          type: 'array',
          items: { type: 'integer', format: 'int32' },
          'x-kubernetes-list-map-keys': ['containerPort', 'protocol'],
        },
      },
      'x-kubernetes-group-version-kind': [{ group: '', kind: 'ConfigMap', version: 'v1' }],
    },
  },
  securityDefinitions: { BearerToken: { type: 'apiKey', name: 'authorization', in: 'header' } },
  security: [{ BearerToken: [] }],
};

describe('/openapi/v2 in protobuf (gnostic openapi.v2.Document)', () => {
  const bytes = encodeV2Document(doc);

  test('the document: swagger, info, definitions, security', () => {
    assert.equal(text(one(bytes, 1)), '2.0');
    const info = one(bytes, 2);
    assert.equal(text(one(info, 1)), 'Kubernetes');
    assert.equal(text(one(info, 2)), 'v1.33.0');
    const [[scheme, item] = ['', new Uint8Array()]] = namedList(one(bytes, 13), 1);
    assert.equal(scheme, 'BearerToken');
    const apiKey = one(item, 2);
    assert.deepEqual(
      [1, 2, 3].map((n) => text(one(apiKey, n))),
      ['apiKey', 'authorization', 'header'],
    );
    const [[required, scopes] = ['', new Uint8Array()]] = namedList(one(bytes, 12), 1);
    assert.equal(required, 'BearerToken');
    assert.equal(scopes.length, 0, 'an empty StringArray');
  });

  test('a schema: type, required, properties in order, additionalProperties both ways, items, extensions', () => {
    const [[name, cm] = ['', new Uint8Array()]] = namedList(one(bytes, 9), 1);
    assert.equal(name, 'io.k8s.api.core.v1.ConfigMap');
    assert.equal(text(one(one(cm, 22), 1)), 'object');
    assert.deepEqual(
      all(cm, 19).map((f) => text(f.value as Uint8Array)),
      ['data'],
    );
    const props = namedList(one(cm, 25), 1);
    assert.deepEqual(
      props.map(([n]) => n),
      ['data', 'closed', 'ports'],
    );
    const [, data] = props[0] as [string, Uint8Array];
    assert.equal(text(one(one(one(one(data, 21), 1), 22), 1)), 'string', 'additionalProperties is a schema (1)');
    const [, closed] = props[1] as [string, Uint8Array];
    const falseItem = readFields(one(closed, 21));
    assert.deepEqual(
      falseItem.map((f) => [f.number, f.value]),
      [[2, 0n]],
      'additionalProperties: false is written as the oneof boolean (2)',
    );
    const [, ports] = props[2] as [string, Uint8Array];
    const item = one(one(ports, 23), 1);
    assert.equal(text(one(item, 2)), 'int32');
    const [[ext, any] = ['', new Uint8Array()]] = namedList(ports, 31);
    assert.equal(ext, 'x-kubernetes-list-map-keys');
    assert.deepEqual(parseYaml(text(one(any, 2))), ['containerPort', 'protocol']);
    const [[gvk, gvkAny] = ['', new Uint8Array()]] = namedList(cm, 31);
    assert.equal(gvk, 'x-kubernetes-group-version-kind');
    assert.deepEqual(parseYaml(text(one(gvkAny, 2))), [{ group: '', kind: 'ConfigMap', version: 'v1' }]);
  });

  test('a path: body, query and path parameters, responses, the operation extensions', () => {
    const [[path, pathItem] = ['', new Uint8Array()]] = namedList(one(bytes, 8), 2);
    assert.equal(path, '/api/v1/namespaces/{namespace}/configmaps');
    const post = one(pathItem, 4);
    assert.equal(text(one(post, 5)), 'createCoreV1NamespacedConfigMap');
    const [bodyItem, queryItem] = all(post, 8).map((f) => one(f.value as Uint8Array, 1));
    const body = one(bodyItem as Uint8Array, 1);
    assert.equal(text(one(body, 2)), 'body');
    assert.equal(text(one(one(body, 5), 1)), '#/definitions/io.k8s.api.core.v1.ConfigMap');
    // A query parameter (3) numbers its type 6, after allowEmptyValue (5).
    const query = one(one(queryItem as Uint8Array, 2), 3);
    assert.equal(text(one(query, 4)), 'dryRun');
    assert.equal(text(one(query, 6)), 'string');
    assert.deepEqual(
      all(query, 20).map((f) => f.value),
      [1n],
      'uniqueItems',
    );
    // A path parameter (4) numbers its type 5.
    const pathParam = one(one(one(one(pathItem, 9), 1), 2), 4);
    assert.equal(text(one(pathParam, 4)), 'namespace');
    assert.equal(text(one(pathParam, 5)), 'string');
    const [[code, value] = ['', new Uint8Array()]] = namedList(one(post, 9), 1);
    assert.equal(code, '201');
    const response = one(value, 1);
    assert.equal(text(one(response, 1)), 'Created');
    assert.equal(text(one(one(one(response, 2), 1), 1)), '#/definitions/io.k8s.api.core.v1.ConfigMap');
    const [[action, actionAny] = ['', new Uint8Array()]] = namedList(post, 13);
    assert.equal(action, 'x-kubernetes-action');
    assert.equal(parseYaml(text(one(actionAny, 2))), 'post');
  });
});

describe('the form an Accept header asks for', () => {
  const v2 = ['json', 'protobuf'] as const;
  test("kubectl's Accept (the older spelling) and the current one get protobuf; */* and none get JSON", () => {
    assert.equal(negotiateForm('application/com.github.proto-openapi.spec.v2@v1.0+protobuf', v2), 'protobuf');
    assert.equal(negotiateForm('application/com.github.proto-openapi.spec.v2.v1.0+protobuf', v2), 'protobuf');
    assert.equal(negotiateForm('*/*', v2), 'json');
    assert.equal(negotiateForm(undefined, v2), 'json');
    assert.equal(
      negotiateForm('application/json;q=0.5, application/com.github.proto-openapi.spec.v2.v1.0+protobuf', v2),
      'protobuf',
    );
    assert.equal(negotiateForm('text/html', v2), undefined);
    assert.equal(negotiateForm('application/com.github.proto-openapi.spec.v2.v1.0+protobuf', ['json']), undefined);
    assert.equal(negotiateForm('application/json;q=0', v2), undefined);
  });
});
