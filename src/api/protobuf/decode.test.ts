import { describe, it } from 'node:test';
import assert from '../../testing/assert.js';
import { decodeKubernetesProtobuf, messageTypeOf } from './decode.js';
import { ProtobufError } from './protobuf-error.js';
import { kubernetesProtoTable } from './table.js';
import { bytesField, kubernetesBody, mapEntry, message, messageField, varintField } from './wire-writer.js';

const PREFIX = Uint8Array.of(0x6b, 0x38, 0x73, 0x00);

function rejects(body: Uint8Array, pattern: RegExp): void {
  assert.throws(
    () => decodeKubernetesProtobuf(body),
    (err: unknown) => err instanceof ProtobufError && pattern.test(err.message),
  );
}

describe('decodeKubernetesProtobuf', () => {
  it('decodes the object in the envelope and sets kind and apiVersion from it', () => {
    const raw = message(messageField(1, bytesField(1, 'c'), bytesField(3, 'default')), mapEntry(2, 'a', 'b'));
    assert.deepEqual(decodeKubernetesProtobuf(kubernetesBody('v1', 'ConfigMap', raw)), {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      object: {
        kind: 'ConfigMap',
        apiVersion: 'v1',
        metadata: { name: 'c', namespace: 'default', creationTimestamp: null },
        data: { a: 'b' },
      },
    });
  });

  it('finds message types of named groups from their apiVersion', () => {
    const table = kubernetesProtoTable();
    assert.equal(messageTypeOf(table, 'apps/v1', 'Deployment'), 'k8s.io.api.apps.v1.Deployment');
    assert.equal(messageTypeOf(table, 'networking.k8s.io/v1', 'Ingress'), 'k8s.io.api.networking.v1.Ingress');
    assert.equal(messageTypeOf(table, 'rbac.authorization.k8s.io/v1', 'Role'), 'k8s.io.api.rbac.v1.Role');
    assert.equal(
      messageTypeOf(table, 'autoscaling/v2', 'HorizontalPodAutoscaler'),
      'k8s.io.api.autoscaling.v2.HorizontalPodAutoscaler',
    );
    assert.equal(
      messageTypeOf(table, 'apiextensions.k8s.io/v1', 'CustomResourceDefinition'),
      'k8s.io.apiextensions_apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinition',
    );
    assert.equal(
      messageTypeOf(table, 'apiregistration.k8s.io/v1', 'APIService'),
      'k8s.io.kube_aggregator.pkg.apis.apiregistration.v1.APIService',
    );
  });

  it('finds the meta types every group version registers', () => {
    const body = kubernetesBody('apps/v1', 'DeleteOptions', message(varintField(1, 0), bytesField(4, 'Foreground')));
    assert.deepEqual(decodeKubernetesProtobuf(body).object, {
      kind: 'DeleteOptions',
      apiVersion: 'apps/v1',
      gracePeriodSeconds: 0,
      propagationPolicy: 'Foreground',
    });
    const status = kubernetesBody('v1', 'Status', message(bytesField(2, 'Failure'), varintField(6, 404)));
    assert.deepEqual(decodeKubernetesProtobuf(status).object, {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      code: 404,
    });
    assert.equal(
      messageTypeOf(kubernetesProtoTable(), 'meta.k8s.io/v1', 'PartialObjectMetadata'),
      'k8s.io.apimachinery.pkg.apis.meta.v1.PartialObjectMetadata',
    );
  });

  it('decodes an object whose raw bytes are empty as the zero object', () => {
    assert.deepEqual(decodeKubernetesProtobuf(kubernetesBody('v1', 'Namespace', new Uint8Array(0))).object, {
      kind: 'Namespace',
      apiVersion: 'v1',
      metadata: { creationTimestamp: null },
      spec: {},
      status: {},
    });
  });

  it('says what is wrong with a malformed envelope', () => {
    rejects(new Uint8Array(0), /body is empty/);
    rejects(new TextEncoder().encode('{"kind":"ConfigMap"}'), /does not start with the Kubernetes protobuf prefix/);
    rejects(PREFIX, /prefix and nothing else/);
    rejects(message(PREFIX, Uint8Array.of(0x0a, 0x09, 0x0a)), /runs past the end/);
    rejects(message(PREFIX, bytesField(2, 'x')), /names no kind/);
    rejects(message(PREFIX, messageField(1, bytesField(2, 'ConfigMap'))), /kind ConfigMap names no apiVersion/);
    rejects(message(PREFIX, varintField(1, 1)), /Unknown\.typeMeta \(1\) has wire type varint/);
    const gzipped = message(kubernetesBody('v1', 'ConfigMap', new Uint8Array(0)), bytesField(3, 'gzip'));
    rejects(gzipped, /content encoding "gzip" is not supported/);
  });

  it('says which type it does not know', () => {
    rejects(
      kubernetesBody('example.com/v1', 'Widget', new Uint8Array(0)),
      /no protobuf types are known for apiVersion "example\.com\/v1"/,
    );
    rejects(kubernetesBody('apps/v1beta1', 'Deployment', new Uint8Array(0)), /apiVersion "apps\/v1beta1"/);
    rejects(kubernetesBody('v1', 'Widget', new Uint8Array(0)), /no protobuf type is known for kind "Widget" in "v1"/);
    rejects(kubernetesBody('v1', 'Container', new Uint8Array(0)), /kind "Container"/);
    rejects(kubernetesBody('apps/v1', 'Status', new Uint8Array(0)), /kind "Status" in "apps\/v1"/);
  });

  it('reports malformed object bytes with the field they broke in', () => {
    rejects(kubernetesBody('v1', 'ConfigMap', messageField(1, varintField(1, 5))), /ObjectMeta\.name \(1\)/);
    rejects(kubernetesBody('v1', 'ConfigMap', Uint8Array.of(0x12, 0x03, 0x0a)), /runs past the end/);
  });
});
