import { describe, it } from 'node:test';
import assert from '../../testing/assert.js';
import { invalidMessage, path } from '../field-errors.js';
import { nameIsDNSLabel, nameIsDNSSubdomain } from './name-validators.js';
import {
  annotationsSize,
  TOTAL_ANNOTATION_SIZE_LIMIT_BYTES,
  validateAnnotations,
  validateObjectMeta,
  validateOwnerReferences,
} from './object-meta.js';

const messages = (errs: { message: string }[]) => errs.map((e) => e.message);
const SUBDOMAIN_RULE =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

describe('validateObjectMeta', () => {
  const namespaced = { namespaced: true, nameValidator: nameIsDNSSubdomain };

  it('accepts a well-formed object', () => {
    const meta = { name: 'web', namespace: 'default', labels: { app: 'web' }, annotations: { 'example.com/x': 'y' } };
    assert.deepEqual(validateObjectMeta(meta, namespaced), []);
  });

  it('gives the message kubectl shows for a bad name', () => {
    const errs = validateObjectMeta({ name: 'Foo', namespace: 'default' }, namespaced);
    assert.equal(
      invalidMessage({ group: '', kind: 'Pod' }, 'Foo', errs),
      `Pod "Foo" is invalid: metadata.name: Invalid value: "Foo": ${SUBDOMAIN_RULE}`,
    );
    assert.deepEqual(errs[0]?.toCause(), {
      reason: 'FieldValueInvalid',
      message: `Invalid value: "Foo": ${SUBDOMAIN_RULE}`,
      field: 'metadata.name',
    });
  });

  it('requires a name or generateName, and checks generateName as a prefix', () => {
    assert.deepEqual(messages(validateObjectMeta({ namespace: 'default' }, namespaced)), [
      'metadata.name: Required value: name or generateName is required',
    ]);
    assert.deepEqual(validateObjectMeta({ generateName: 'web-', name: 'web-x1', namespace: 'ns' }, namespaced), []);
    assert.deepEqual(
      messages(validateObjectMeta({ generateName: 'Web-', name: 'web-x1', namespace: 'ns' }, namespaced)),
      [`metadata.generateName: Invalid value: "Web-": ${SUBDOMAIN_RULE}`],
    );
  });

  it('names at the limit pass and one character more fails', () => {
    const label = { namespaced: false, nameValidator: nameIsDNSLabel };
    assert.deepEqual(validateObjectMeta({ name: 'a'.repeat(63) }, label), []);
    assert.deepEqual(messages(validateObjectMeta({ name: 'a'.repeat(64) }, label)), [
      `metadata.name: Invalid value: "${'a'.repeat(64)}": must be no more than 63 characters`,
    ]);
    const long = `${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(61)}`;
    assert.equal(long.length, 253);
    assert.deepEqual(validateObjectMeta({ name: long }, { namespaced: false, nameValidator: nameIsDNSSubdomain }), []);
    assert.deepEqual(
      messages(validateObjectMeta({ name: `${long}d` }, { namespaced: false, nameValidator: nameIsDNSSubdomain })),
      [`metadata.name: Invalid value: "${long}d": must be no more than 253 characters`],
    );
  });

  it('by default applies only the path-segment rule', () => {
    assert.deepEqual(validateObjectMeta({ name: 'Any_Name' }, { namespaced: false }), []);
    assert.deepEqual(messages(validateObjectMeta({ name: '..' }, { namespaced: false })), [
      `metadata.name: Invalid value: "..": may not be '..'`,
    ]);
    assert.deepEqual(messages(validateObjectMeta({ name: 'a/b%c' }, { namespaced: false })), [
      `metadata.name: Invalid value: "a/b%c": may not contain '/'`,
      `metadata.name: Invalid value: "a/b%c": may not contain '%'`,
    ]);
  });

  it('requires a namespace on namespaced types and forbids it elsewhere', () => {
    assert.deepEqual(messages(validateObjectMeta({ name: 'a' }, namespaced)), ['metadata.namespace: Required value']);
    assert.deepEqual(messages(validateObjectMeta({ name: 'a', namespace: 'Bad' }, namespaced)).length, 1);
    assert.deepEqual(messages(validateObjectMeta({ name: 'a', namespace: 'x' }, { namespaced: false })), [
      'metadata.namespace: Forbidden: not allowed on this type',
    ]);
  });

  it('checks generation, labels, finalizers and managed fields', () => {
    const errs = validateObjectMeta(
      {
        name: 'a',
        generation: -1,
        labels: { ok: 'a b' },
        finalizers: ['orphan', 'foregroundDeletion', 'bad/name/x'],
        managedFields: [{ manager: 'm\u0007', operation: 'Patch', fieldsType: 'FieldsV2' }],
      },
      { namespaced: false },
    );
    const got = messages(errs);
    assert.equal(got[0], 'metadata.generation: Invalid value: -1: must be greater than or equal to 0');
    assert.match(got[1] ?? '', /^metadata\.labels: Invalid value: "a b": a valid label must be/);
    assert.match(got[2] ?? '', /^metadata\.finalizers: Invalid value: "bad\/name\/x": a qualified name/);
    assert.equal(
      got[3],
      'metadata.finalizers: Invalid value: []string{"orphan", "foregroundDeletion", "bad/name/x"}: finalizer orphan and foregroundDeletion cannot be both set',
    );
    assert.deepEqual(got.slice(4), [
      'metadata.managedFields[0].operation: Invalid value: "Patch": must be `Apply` or `Update`',
      'metadata.managedFields[0].fieldsType: Invalid value: "FieldsV2": must be `FieldsV1`',
      'metadata.managedFields[0].manager: Invalid value: "m\\a": invalid character U+0007 (at position 1)',
    ]);
  });
});

describe('annotations', () => {
  const p = path('metadata', 'annotations');

  it('accepts exactly 256 KiB of keys and values and refuses one byte more', () => {
    const full = { k: 'v'.repeat(TOTAL_ANNOTATION_SIZE_LIMIT_BYTES - 1) };
    assert.equal(annotationsSize(full), 262144);
    assert.deepEqual(validateAnnotations(full, p), []);
    const over = { k: 'v'.repeat(TOTAL_ANNOTATION_SIZE_LIMIT_BYTES) };
    assert.deepEqual(messages(validateAnnotations(over, p)), [
      'metadata.annotations: Too long: may not be more than 262144 bytes',
    ]);
  });

  it('compares keys without case and reports the original key', () => {
    assert.deepEqual(validateAnnotations({ 'Example.COM/Key': 'x' }, p), []);
    assert.match(
      messages(validateAnnotations({ 'a b': 'x' }, p))[0] ?? '',
      /^metadata\.annotations: Invalid value: "a b": name part/,
    );
  });
});

describe('owner references', () => {
  const p = path('metadata', 'ownerReferences');

  it('requires apiVersion, kind, name and uid', () => {
    assert.deepEqual(messages(validateOwnerReferences([{}], p)), [
      'metadata.ownerReferences.apiVersion: Invalid value: "": version must not be empty',
      'metadata.ownerReferences.kind: Invalid value: "": kind must not be empty',
      'metadata.ownerReferences.name: Invalid value: "": name must not be empty',
      'metadata.ownerReferences.uid: Invalid value: "": uid must not be empty',
    ]);
  });

  it('refuses Events as owners and more than one controller', () => {
    const event = { apiVersion: 'v1', kind: 'Event', name: 'e', uid: 'u' };
    assert.match(
      messages(validateOwnerReferences([event], p))[0] ?? '',
      /: \/v1, Kind=Event is disallowed from being an owner$/,
    );
    const a = { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'a', uid: '1', controller: true };
    const b = { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'b', uid: '2', controller: true };
    const errs = messages(validateOwnerReferences([a, b], p));
    assert.equal(errs.length, 1);
    assert.match(
      errs[0] ?? '',
      /: Only one reference can have Controller set to true\. Found "true" in references for ReplicaSet\/a and ReplicaSet\/b$/,
    );
  });
});
