import { describe, it } from 'node:test';
import assert from '../../testing/assert.js';
import type { ObjectMetaInput } from './object-meta-types.js';
import { validateObjectMetaUpdate } from './object-meta-update.js';

const messages = (errs: { message: string }[]) => errs.map((e) => e.message);

const old: ObjectMetaInput = {
  name: 'web',
  namespace: 'default',
  uid: 'uid-1',
  resourceVersion: '5',
  generation: 2,
  creationTimestamp: '2024-01-01T00:00:00Z',
};

describe('validateObjectMetaUpdate', () => {
  it('accepts an update that keeps the system fields', () => {
    assert.deepEqual(validateObjectMetaUpdate({ ...old, labels: { a: 'b' }, generation: 3 }, old), []);
  });

  it('treats the same instant in another spelling as unchanged', () => {
    assert.deepEqual(validateObjectMetaUpdate({ ...old, creationTimestamp: '2024-01-01T01:00:00+01:00' }, old), []);
  });

  it('reports each immutable field with upstream message', () => {
    const changed = {
      ...old,
      name: 'web2',
      namespace: 'other',
      uid: 'uid-2',
      creationTimestamp: '2024-02-03T04:05:06Z',
      deletionTimestamp: '2024-03-01T00:00:00Z',
      deletionGracePeriodSeconds: 30,
    };
    assert.deepEqual(messages(validateObjectMetaUpdate(changed, old)), [
      'metadata.name: Invalid value: "web2": field is immutable',
      'metadata.namespace: Invalid value: "other": field is immutable',
      'metadata.uid: Invalid value: "uid-2": field is immutable',
      'metadata.creationTimestamp: Invalid value: 2024-02-03 04:05:06 +0000 UTC: field is immutable',
      'metadata.deletionTimestamp: Invalid value: 2024-03-01 00:00:00 +0000 UTC: field is immutable',
      'metadata.deletionGracePeriodSeconds: Invalid value: 30: field is immutable',
    ]);
  });

  it('prints a removed pointer field as "null" and a removed creationTimestamp as the zero time', () => {
    const deleting = { ...old, deletionTimestamp: '2024-03-01T00:00:00Z', deletionGracePeriodSeconds: 30 };
    const { deletionTimestamp, deletionGracePeriodSeconds, creationTimestamp, ...cleared } = deleting;
    assert.deepEqual(messages(validateObjectMetaUpdate(cleared, deleting)), [
      'metadata.creationTimestamp: Invalid value: 0001-01-01 00:00:00 +0000 UTC: field is immutable',
      'metadata.deletionTimestamp: Invalid value: "null": field is immutable',
      'metadata.deletionGracePeriodSeconds: Invalid value: "null": field is immutable',
    ]);
  });

  it('requires a resourceVersion and refuses a lower generation', () => {
    const { resourceVersion, ...noVersion } = old;
    assert.deepEqual(messages(validateObjectMetaUpdate({ ...noVersion, generation: 1 }, old)), [
      'metadata.resourceVersion: Invalid value: "": must be specified for an update',
      'metadata.generation: Invalid value: 1: must not be decremented',
    ]);
  });

  it('forbids new finalizers once deletion started, but allows removing them', () => {
    const deleting = { ...old, deletionTimestamp: '2024-03-01T00:00:00Z', finalizers: ['a'] };
    assert.deepEqual(messages(validateObjectMetaUpdate({ ...deleting, finalizers: ['c', 'a', 'b'] }, deleting)), [
      'metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{"b", "c"}',
    ]);
    assert.deepEqual(validateObjectMetaUpdate({ ...deleting, finalizers: [] }, deleting), []);
    assert.deepEqual(validateObjectMetaUpdate({ ...old, finalizers: ['x'] }, old), []);
  });

  it('still validates labels and annotations of the new object', () => {
    assert.equal(validateObjectMetaUpdate({ ...old, labels: { a: 'b c' } }, old).length, 1);
    assert.equal(validateObjectMetaUpdate({ ...old, annotations: { 'a/b/c': '' } }, old).length, 1);
  });
});
