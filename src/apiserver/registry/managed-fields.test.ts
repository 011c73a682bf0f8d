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
});
