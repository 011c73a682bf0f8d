import { describe, it } from 'node:test';
import assert from '../../testing/assert.js';
import { MAX_DEPTH, MessageDecoder } from './message.js';
import { ProtobufError } from './protobuf-error.js';
import { buildProtoTable, kubernetesProtoTable, type ProtoTable } from './table.js';
import { bytesField, doubleField, mapEntry, message, messageField, varintBytes, varintField } from './wire-writer.js';

const CORE = 'k8s.io.api.core.v1.';
const APPS = 'k8s.io.api.apps.v1.';
const META = 'k8s.io.apimachinery.pkg.apis.meta.v1.';
const EXT = 'k8s.io.apiextensions_apiserver.pkg.apis.apiextensions.v1.';

function decode(typeName: string, bytes: Uint8Array, table: ProtoTable = kubernetesProtoTable()): unknown {
  const decoder = new MessageDecoder(table, () => {
    throw new Error('no envelope expected');
  });
  return decoder.decode(typeName, bytes, 0);
}

describe('MessageDecoder: Go JSON rules for fields', () => {
  it('keeps a pointer field that is present with a zero value, and leaves an absent one out', () => {
    assert.deepEqual(decode(`${APPS}DeploymentSpec`, varintField(1, 0)), {
      replicas: 0,
      selector: null,
      template: { metadata: { creationTimestamp: null }, spec: { containers: null } },
      strategy: {},
    });
    const spec = decode(`${APPS}DeploymentSpec`, new Uint8Array(0)) as Record<string, unknown>;
    assert.equal('replicas' in spec, false);
    assert.equal('revisionHistoryLimit' in spec, false);
  });

  it('drops zero values of omitempty non-pointer fields, as Go clients put them on the wire anyway', () => {
    const meta = message(
      bytesField(1, 'c'),
      bytesField(2, ''),
      bytesField(3, ''),
      varintField(7, 0),
      bytesField(8, new Uint8Array(0)),
    );
    assert.deepEqual(decode(`${META}ObjectMeta`, meta), { name: 'c', creationTimestamp: null });
  });

  it('writes fields without omitempty even when zero or absent', () => {
    assert.deepEqual(decode(`${CORE}ContainerPort`, new Uint8Array(0)), { containerPort: 0 });
    assert.deepEqual(decode(`${CORE}ContainerPort`, message(varintField(3, 80), bytesField(4, ''))), {
      containerPort: 80,
    });
    // APIResource.verbs is a non-pointer slice type without omitempty: nil is null.
    assert.deepEqual(decode(`${META}APIResource`, bytesField(1, 'pods')), {
      name: 'pods',
      singularName: '',
      namespaced: false,
      kind: '',
      verbs: null,
    });
  });

  it('lets the last occurrence of a scalar win and merges occurrences of a message field', () => {
    const body = message(
      messageField(1, bytesField(1, 'first')),
      messageField(1, bytesField(1, 'second'), mapEntry(11, 'app', 'x')),
    );
    assert.deepEqual(decode(`${CORE}ConfigMap`, body), {
      metadata: { name: 'second', creationTimestamp: null, labels: { app: 'x' } },
    });
  });

  it('skips fields the table does not know', () => {
    const body = message(bytesField(1, 'n'), varintField(99, 5), bytesField(100, 'x'), doubleField(101, 1));
    assert.deepEqual(decode(`${META}ObjectMeta`, body), { name: 'n', creationTimestamp: null });
  });

  it('reads repeated numbers unpacked and packed', () => {
    const unpacked = message(varintField(4, 5), varintField(4, -1));
    const packed = bytesField(4, message(varintBytes(5), varintBytes(-1)));
    const want = { supplementalGroups: [5, -1] };
    assert.deepEqual(decode(`${CORE}PodSecurityContext`, unpacked), want);
    assert.deepEqual(decode(`${CORE}PodSecurityContext`, packed), want);
    assert.deepEqual(decode(`${CORE}PodSecurityContext`, bytesField(4, new Uint8Array(0))), {});
  });

  it('decodes int32 values written as 64-bit negatives, and bools', () => {
    const port = message(bytesField(1, 'p'), varintField(3, -5), varintField(5, 2n ** 32n + 7n));
    assert.deepEqual(decode(`${CORE}ServicePort`, port), { name: 'p', port: -5, targetPort: 0, nodePort: 7 });
    assert.deepEqual(decode(`${CORE}ConfigMap`, varintField(4, false)), {
      metadata: { creationTimestamp: null },
      immutable: false,
    });
  });

  it('turns maps into objects, keeping hostile keys as plain own properties', () => {
    const body = message(
      messageField(1, mapEntry(11, '__proto__', 'x'), mapEntry(11, 'a', '1'), mapEntry(11, 'a', '2')),
      mapEntry(2, 'key', 'value'),
      messageField(2, bytesField(1, 'no-value')),
    );
    const got = decode(`${CORE}ConfigMap`, body) as { metadata: { labels: Record<string, string> } };
    assert.equal(Object.getPrototypeOf(got.metadata.labels), Object.prototype);
    assert.deepEqual(Object.keys(got.metadata.labels), ['__proto__', 'a']);
    assert.equal(got.metadata.labels.a, '2');
    assert.deepEqual((got as unknown as { data: unknown }).data, { key: 'value', 'no-value': '' });
  });

  it('writes bytes as base64, an absent non-omitempty slice as null and a present empty one as ""', () => {
    assert.deepEqual(decode(`${CORE}Secret`, mapEntry(2, 'k', Uint8Array.of(0, 255, 1))), {
      metadata: { creationTimestamp: null },
      data: { k: 'AP8B' },
    });
    const csr = 'k8s.io.api.certificates.v1.CertificateSigningRequestSpec';
    assert.deepEqual(decode(csr, bytesField(7, 'x')), { request: null, signerName: 'x' });
    assert.deepEqual(decode(csr, message(bytesField(1, new Uint8Array(0)), bytesField(7, 'x'))), {
      request: '',
      signerName: 'x',
    });
  });

  it('puts the fields of inlined embeds at the parent level', () => {
    const probe = message(messageField(1, messageField(1, bytesField(1, 'true'))), varintField(4, 3));
    assert.deepEqual(decode(`${CORE}Probe`, probe), { exec: { command: ['true'] }, periodSeconds: 3 });
    const volume = message(bytesField(1, 'v'), messageField(2, messageField(2, bytesField(1, 'Memory'))));
    assert.deepEqual(decode(`${CORE}Volume`, volume), { name: 'v', emptyDir: { medium: 'Memory' } });
  });

  it('writes slice-typed messages as arrays, also as map values', () => {
    const resource = message(bytesField(1, 'pods'), messageField(4, bytesField(1, 'get'), bytesField(1, 'list')));
    assert.deepEqual((decode(`${META}APIResource`, resource) as { verbs: unknown }).verbs, ['get', 'list']);
    const user = message(
      messageField(4, bytesField(1, 'scopes'), messageField(2, bytesField(1, 'a'), bytesField(1, 'b'))),
      messageField(4, bytesField(1, 'none'), bytesField(2, new Uint8Array(0))),
    );
    assert.deepEqual(decode('k8s.io.api.authentication.v1.UserInfo', user), {
      extra: { scopes: ['a', 'b'], none: null },
    });
  });

  it('uses Go JSON names that differ from proto names, and doubles', () => {
    const schema = message(bytesField(3, '#/x'), doubleField(9, 2.5), varintField(38, true));
    assert.deepEqual(decode(`${EXT}JSONSchemaProps`, schema), {
      $ref: '#/x',
      maximum: 2.5,
      'x-kubernetes-preserve-unknown-fields': true,
    });
    assert.throws(() => decode(`${EXT}JSONSchemaProps`, doubleField(9, Number.NaN)), /NaN/);
  });

  it('names the field whose wire type contradicts its type', () => {
    assert.throws(
      () => decode(`${META}ObjectMeta`, varintField(1, 3)),
      (err: unknown) =>
        err instanceof ProtobufError &&
        /ObjectMeta\.name \(1\) has wire type varint, expected length-delimited/.test(err.message),
    );
    assert.throws(() => decode(`${CORE}ConfigMap`, varintField(1, 3)), /ConfigMap\.metadata \(1\)/);
    assert.throws(() => decode(`${CORE}ConfigMap`, varintField(2, 3)), /ConfigMap\.data \(2\)/);
    assert.throws(() => decode(`${APPS}DeploymentSpec`, bytesField(1, 'x')), /DeploymentSpec\.replicas/);
  });

  it('refuses nesting deeper than the limit', () => {
    let schema: Uint8Array = new Uint8Array(0);
    for (let i = 0; i <= MAX_DEPTH; i++) schema = messageField(28, schema);
    assert.throws(() => decode(`${EXT}JSONSchemaProps`, schema), /nesting deeper than/);
  });

  it('leaves json:"-" fields out and reports types it does not know', () => {
    const table = buildProtoTable({
      groupVersions: {},
      messages: {
        'x.T': {
          f: [
            [1, 'kept', 'string', ''],
            [2, 'hidden', 'string', 'x'],
            [3, 'other', 'x.Missing', 'p'],
          ],
        },
      },
    });
    assert.deepEqual(decode('x.T', message(bytesField(1, 'a'), bytesField(2, 'b')), table), { kept: 'a', other: null });
    assert.throws(() => decode('x.T', messageField(3), table), /no protobuf type x\.Missing is known/);
  });
});
