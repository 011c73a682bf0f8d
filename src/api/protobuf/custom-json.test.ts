import { describe, it } from 'node:test';
import assert from '../../testing/assert.js';
import { decodeKubernetesProtobuf } from './decode.js';
import { MessageDecoder } from './message.js';
import { kubernetesProtoTable } from './table.js';
import { bytesField, kubernetesBody, mapEntry, message, messageField, varintField } from './wire-writer.js';

const META = 'k8s.io.apimachinery.pkg.apis.meta.v1.';
const EXT = 'k8s.io.apiextensions_apiserver.pkg.apis.apiextensions.v1.';

function decode(typeName: string, bytes: Uint8Array): unknown {
  const decoder = new MessageDecoder(kubernetesProtoTable(), (inner) => decodeKubernetesProtobuf(inner).object);
  return decoder.decode(typeName, bytes, 0);
}

const json = (value: unknown): Uint8Array => new TextEncoder().encode(JSON.stringify(value));

describe('Time and MicroTime', () => {
  it('writes seconds as RFC 3339 in UTC, dropping nanoseconds for Time', () => {
    assert.equal(
      decode(`${META}Time`, message(varintField(1, 1700000000), varintField(2, 999))),
      '2023-11-14T22:13:20Z',
    );
    assert.equal(decode(`${META}Time`, varintField(2, 5)), '1970-01-01T00:00:00Z');
  });

  it('writes no bytes and Go’s zero instant as null', () => {
    assert.equal(decode(`${META}Time`, new Uint8Array(0)), null);
    assert.equal(decode(`${META}Time`, varintField(1, -62135596800)), null);
    assert.equal(decode(`${META}MicroTime`, varintField(1, -62135596800)), null);
  });

  it('writes MicroTime with six fraction digits, truncating nanoseconds and normalising negative ones', () => {
    const at = (seconds: number, nanos: number) =>
      decode(`${META}MicroTime`, message(varintField(1, seconds), varintField(2, nanos)));
    assert.equal(at(1700000000, 123456789), '2023-11-14T22:13:20.123456Z');
    assert.equal(at(1700000000, 0), '2023-11-14T22:13:20.000000Z');
    assert.equal(at(10, -1000), '1970-01-01T00:00:09.999999Z');
    assert.equal(at(10, 1_500_000_000), '1970-01-01T00:00:11.500000Z');
  });

  it('keeps a present pointer Time that is empty as null, and leaves an absent one out', () => {
    const meta = message(bytesField(1, 'x'), bytesField(9, new Uint8Array(0)));
    assert.deepEqual(decode(`${META}ObjectMeta`, meta), {
      name: 'x',
      creationTimestamp: null,
      deletionTimestamp: null,
    });
    const created = decode(`${META}ObjectMeta`, messageField(8, varintField(1, 86400)));
    assert.deepEqual(created, { creationTimestamp: '1970-01-02T00:00:00Z' });
  });
});

describe('Duration, Quantity, IntOrString, GroupVersion', () => {
  it('writes Duration as Go prints it', () => {
    assert.equal(decode(`${META}Duration`, varintField(1, 5_400_000_000_000)), '1h30m0s');
    assert.equal(decode(`${META}Duration`, varintField(1, -1_500_000)), '-1.5ms');
    assert.equal(decode(`${META}Duration`, new Uint8Array(0)), '0s');
  });

  it('writes Quantity as its string, "0" when unset, and refuses malformed ones', () => {
    const quota = messageField(2, mapEntry(1, 'cpu', bytesField(1, '100m')), mapEntry(1, 'pods', ''));
    assert.deepEqual(decode('k8s.io.api.core.v1.ResourceQuota', quota), {
      metadata: { creationTimestamp: null },
      spec: { hard: { cpu: '100m', pods: '0' } },
      status: {},
    });
    const canonical: Array<[string, string]> = [
      ['1', '1'],
      ['1.5Gi', '1536Mi'],
      ['-2e3', '-2e3'],
      ['.5', '500m'],
      ['1E-2', '10e-3'],
      ['12k', '12k'],
      ['1000m', '1'],
    ];
    for (const [ok, want] of canonical) {
      assert.equal(decode('k8s.io.apimachinery.pkg.api.resource.Quantity', bytesField(1, ok)), want, ok);
    }
    for (const bad of ['', 'abc', '1 Gi', ' 1', '1Kb', '1e']) {
      assert.throws(
        () => decode('k8s.io.apimachinery.pkg.api.resource.Quantity', bytesField(1, bad)),
        /not a valid Kubernetes quantity/,
        bad,
      );
    }
  });

  it('writes IntOrString as a number or a string by its type', () => {
    const ios = 'k8s.io.apimachinery.pkg.util.intstr.IntOrString';
    assert.equal(decode(ios, message(varintField(1, 0), varintField(2, 8080))), 8080);
    assert.equal(decode(ios, message(varintField(1, 1), bytesField(3, 'http'))), 'http');
    assert.equal(decode(ios, message(varintField(1, 1))), '');
    assert.equal(decode(ios, new Uint8Array(0)), 0);
    assert.throws(() => decode(ios, varintField(1, 2)), /IntOrString type 2/);
  });

  it('writes GroupVersion as "group/version" or the version alone', () => {
    assert.equal(decode(`${META}GroupVersion`, message(bytesField(1, 'apps'), bytesField(2, 'v1'))), 'apps/v1');
    assert.equal(decode(`${META}GroupVersion`, bytesField(2, 'v1')), 'v1');
  });
});

describe('raw values', () => {
  const revision = (data: Uint8Array) => decode('k8s.io.api.apps.v1.ControllerRevision', messageField(2, data));

  it('parses RawExtension JSON, and writes none as null', () => {
    const got = revision(bytesField(1, json({ spec: { a: [1, 'b', null] } }))) as { data: unknown };
    assert.deepEqual(got.data, { spec: { a: [1, 'b', null] } });
    assert.equal((revision(new Uint8Array(0)) as { data: unknown }).data, null);
    assert.equal((revision(bytesField(1, new Uint8Array(0))) as { data: unknown }).data, null);
  });

  it('decodes a RawExtension that holds a protobuf object of its own', () => {
    const inner = kubernetesBody('v1', 'ConfigMap', messageField(1, bytesField(1, 'inner')));
    assert.deepEqual((revision(bytesField(1, inner)) as { data: unknown }).data, {
      kind: 'ConfigMap',
      apiVersion: 'v1',
      metadata: { name: 'inner', creationTimestamp: null },
    });
  });

  it('refuses raw values that are neither JSON nor protobuf', () => {
    assert.throws(() => revision(bytesField(1, '{"a":')), /RawExtension does not hold valid JSON/);
    assert.throws(() => revision(bytesField(1, Uint8Array.of(0xd9, 0xd9, 0xf7, 0xa0))), /CBOR/);
  });

  it('parses FieldsV1 in managedFields', () => {
    const entry = message(
      bytesField(1, 'kubectl'),
      bytesField(6, 'FieldsV1'),
      messageField(7, bytesField(1, '{"f:data":{}}')),
    );
    assert.deepEqual(decode(`${META}ManagedFieldsEntry`, entry), {
      manager: 'kubectl',
      fieldsType: 'FieldsV1',
      fieldsV1: { 'f:data': {} },
    });
  });

  it('parses Unknown raw JSON and refuses other content types', () => {
    const unknown = 'k8s.io.apimachinery.pkg.runtime.Unknown';
    assert.deepEqual(decode(unknown, bytesField(2, '{"a":1}')), { a: 1 });
    assert.throws(
      () => decode(unknown, message(bytesField(2, 'x'), bytesField(4, 'application/vnd.kubernetes.protobuf'))),
      /has no JSON form/,
    );
  });
});

describe('apiextensions schema types', () => {
  const schema = (...fields: Uint8Array[]) => decode(`${EXT}JSONSchemaProps`, message(...fields));

  it('parses JSON defaults and enums', () => {
    assert.deepEqual(
      schema(messageField(8, bytesField(1, '{"a":1}')), messageField(20, bytesField(1, '"x"')), messageField(20)),
      {
        default: { a: 1 },
        enum: ['x', null],
      },
    );
  });

  it('writes JSONSchemaPropsOrBool as a schema or a boolean', () => {
    assert.deepEqual(schema(messageField(30, varintField(1, true))), { additionalProperties: true });
    assert.deepEqual(schema(messageField(30)), { additionalProperties: false });
    assert.deepEqual(schema(messageField(30, varintField(1, true), messageField(2, bytesField(5, 'string')))), {
      additionalProperties: { type: 'string' },
    });
  });

  it('writes JSONSchemaPropsOrStringArray as strings, a schema or null', () => {
    const deps = (...fields: Uint8Array[]) => schema(messageField(32, bytesField(1, 'a'), messageField(2, ...fields)));
    assert.deepEqual(deps(bytesField(2, 'b'), bytesField(2, 'c')), { dependencies: { a: ['b', 'c'] } });
    assert.deepEqual(deps(messageField(1, bytesField(5, 'object'))), { dependencies: { a: { type: 'object' } } });
    assert.deepEqual(deps(), { dependencies: { a: null } });
  });

  it('writes JSONSchemaPropsOrArray as an array of schemas, one schema or null', () => {
    const items = (...fields: Uint8Array[]) => schema(messageField(24, ...fields));
    assert.deepEqual(items(messageField(2, bytesField(5, 'a')), messageField(2, bytesField(5, 'b'))), {
      items: [{ type: 'a' }, { type: 'b' }],
    });
    assert.deepEqual(items(messageField(1, bytesField(5, 'string'))), { items: { type: 'string' } });
    assert.deepEqual(items(), { items: null });
  });
});
