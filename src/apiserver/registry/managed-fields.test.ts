import { describe, test } from 'node:test';
import { schemaForKind } from '../../api/schema.js';
import assert from '../../testing/assert.js';
import { type ManagedFieldsEntry, updateManagedFields } from './managed-fields.js';

const schema = schemaForKind({ group: '', version: 'v1', kind: 'Pod' });
const opts = (manager: string, subresource?: string) => ({
  manager,
  apiVersion: 'v1',
  time: '2026-12-02T00:00:00Z',
  schema,
  ...(subresource ? { subresource } : {}),
});

describe('updateManagedFields', () => {
  const pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p', labels: { app: 'a' } },
    spec: { containers: [{ name: 'c', image: 'i' }] },
  };
  const created = updateManagedFields([], undefined, pod, opts('kube-controller-manager'));

  test("a status update adds the kubelet's entry and leaves the creator's entry as it was", () => {
    const next = { ...pod, status: { phase: 'Running' } };
    const entries = updateManagedFields(created, pod, next, opts('kubelet', 'status'));
    assert.equal(entries.length, 2, 'two managers');
    assert.equal(entries[0], created[0], "the creator's entry is kept, not rebuilt");
    assert.deepEqual(entries[1]?.fieldsV1, { 'f:status': { 'f:phase': {} } }, "the kubelet's fields");
  });

  test("a change that takes fields from another manager rebuilds that manager's set without them", () => {
    const next = { ...pod, metadata: { ...pod.metadata, labels: { app: 'b' } } };
    const entries: ManagedFieldsEntry[] = updateManagedFields(created, pod, next, opts('kubectl'));
    const creator = entries.find((e) => e.manager === 'kube-controller-manager');
    const fields = JSON.stringify(creator?.fieldsV1);
    assert.ok(!fields.includes('f:app'), `the label moved to kubectl: ${fields}`);
    assert.ok(fields.includes('f:containers'), `the creator keeps the containers: ${fields}`);
    const kubectl = entries.find((e) => e.manager === 'kubectl');
    assert.deepEqual(kubectl?.fieldsV1, { 'f:metadata': { 'f:labels': { 'f:app': {} } } }, "kubectl's fields");
  });

  const full = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: 'p',
      namespace: 'default',
      labels: { 'app.kubernetes.io/name': 'web', app: 'a' },
      annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '{}' },
    },
    spec: {
      containers: [
        {
          name: 'c',
          image: 'i',
          ports: [{ containerPort: 80, protocol: 'TCP' }],
          volumeMounts: [{ name: 'token', mountPath: '/var/run/secrets/kubernetes.io/serviceaccount' }],
        },
      ],
      securityContext: {},
      tolerations: [{ key: 'node.kubernetes.io/not-ready', operator: 'Exists' }],
      volumes: [{ name: 'token', projected: { sources: [{ serviceAccountToken: { path: 'token' } }] } }],
    },
  };

  test('keys holding "/" (labels, annotations, a mount path as list key) stay one field each', () => {
    const [entry] = updateManagedFields([], undefined, full, opts('kubectl'));
    const meta = entry?.fieldsV1['f:metadata'] as Record<string, unknown>;
    assert.deepEqual(meta, {
      'f:annotations': { '.': {}, 'f:kubectl.kubernetes.io/last-applied-configuration': {} },
      'f:labels': { '.': {}, 'f:app': {}, 'f:app.kubernetes.io/name': {} },
    });
    const spec = entry?.fieldsV1['f:spec'] as Record<string, Record<string, Record<string, unknown>>>;
    const container = spec['f:containers']?.['k:{"name":"c"}'] as Record<string, unknown>;
    assert.deepEqual(container['f:volumeMounts'], {
      'k:{"mountPath":"/var/run/secrets/kubernetes.io/serviceaccount"}': { '.': {}, 'f:mountPath': {}, 'f:name': {} },
    });
  });

  test('an empty struct is a field of its own; atomic lists are one field; children come in FieldsV1 order', () => {
    const [entry] = updateManagedFields([], undefined, full, opts('kubectl'));
    const spec = entry?.fieldsV1['f:spec'] as Record<string, unknown>;
    assert.deepEqual(spec['f:securityContext'], {});
    assert.deepEqual(spec['f:tolerations'], {});
    assert.deepEqual(Object.keys(spec), ['f:containers', 'f:securityContext', 'f:tolerations', 'f:volumes']);
    const container = (spec['f:containers'] as Record<string, Record<string, unknown>>)['k:{"name":"c"}'];
    assert.deepEqual(Object.keys(container ?? {}), ['.', 'f:image', 'f:name', 'f:ports', 'f:volumeMounts']);
  });

  test("a create's fields are those a later writer's update would compute from the same object", () => {
    const [direct] = updateManagedFields([], undefined, full, opts('kubectl'));
    // With an entry of another manager present, the path-based computation runs instead of the create's.
    const other: ManagedFieldsEntry = { ...(created[0] as ManagedFieldsEntry), manager: 'other', fieldsV1: {} };
    const viaPaths = updateManagedFields([other], undefined, full, opts('kubectl')).find(
      (e) => e.manager === 'kubectl',
    );
    assert.deepEqual(viaPaths?.fieldsV1, direct?.fieldsV1);
    assert.equal(JSON.stringify(viaPaths?.fieldsV1), JSON.stringify(direct?.fieldsV1), 'in the same order');
  });

  test('an update that takes a label with "/" from the creator leaves the creator its other labels', () => {
    const [entry] = updateManagedFields([], undefined, full, opts('creator'));
    const next = {
      ...full,
      metadata: { ...full.metadata, labels: { ...full.metadata.labels, 'app.kubernetes.io/name': 'api' } },
    };
    const entries = updateManagedFields(entry ? [entry] : [], full, next, opts('kubectl'));
    const creator = entries.find((e) => e.manager === 'creator');
    assert.deepEqual((creator?.fieldsV1['f:metadata'] as Record<string, unknown> | undefined)?.['f:labels'], {
      '.': {},
      'f:app': {},
    });
    const kubectl = entries.find((e) => e.manager === 'kubectl');
    assert.deepEqual(kubectl?.fieldsV1, { 'f:metadata': { 'f:labels': { 'f:app.kubernetes.io/name': {} } } });
  });
});
