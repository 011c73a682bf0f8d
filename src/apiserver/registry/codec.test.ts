import { describe, test } from 'node:test';
import assert from '../../testing/assert.js';
import {
  decodeFromStorage,
  encodeForStorage,
  RawJson,
  rememberWritten,
  storedJsonWithRevision,
  withTypeFirst,
  writtenObjectOf,
} from './codec.js';
import type { KubeObject } from './object.js';

const text = (raw: RawJson | undefined) => Buffer.concat(raw?.parts ?? []).toString('utf8');

describe('storedJsonWithRevision', () => {
  test('splices the resourceVersion into the stored metadata, giving what decoding would', () => {
    const stored = Buffer.from(
      encodeForStorage({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'p', namespace: 'ns', resourceVersion: '3', labels: { a: 'é' } },
        spec: { template: { metadata: { name: 'inner' } } },
      }),
    );
    const raw = storedJsonWithRevision(stored, 42);
    assert.ok(raw instanceof RawJson);
    assert.deepEqual(JSON.parse(text(raw)), decodeFromStorage(stored, 42));
    assert.equal(JSON.parse(text(raw)).metadata.resourceVersion, '42');
    assert.equal(JSON.parse(text(raw)).spec.template.metadata.resourceVersion, undefined);
  });

  test('an empty metadata gets the resourceVersion without a trailing comma', () => {
    const raw = storedJsonWithRevision(Buffer.from('{"kind":"X","metadata":{}}'), 7);
    assert.deepEqual(JSON.parse(text(raw)), { kind: 'X', metadata: { resourceVersion: '7' } });
  });

  test('bytes whose top-level metadata does not come first are left to the decoder', () => {
    assert.equal(storedJsonWithRevision(Buffer.from('{"spec":{"metadata":{}},"metadata":{"name":"a"}}'), 1), undefined);
    assert.equal(storedJsonWithRevision(Buffer.from('{"kind":"X"}'), 1), undefined);
  });
});

describe('written objects', () => {
  test('are handed to the watch cache once, so that kept bytes do not keep them alive', () => {
    const bytes = Buffer.from('{"metadata":{"name":"a"}}');
    const obj: KubeObject = { metadata: { name: 'a' } };
    rememberWritten(bytes, obj);
    const taken = writtenObjectOf(bytes, 42);
    assert.equal(taken, obj);
    assert.equal(taken?.metadata.resourceVersion, '42');
    assert.equal(writtenObjectOf(bytes, 42), undefined);
    assert.equal(writtenObjectOf(Buffer.from('{"metadata":{"name":"a"}}'), 42), undefined, 'by identity only');
  });
});

describe('withTypeFirst', () => {
  test('copies the object with apiVersion, kind and metadata first, replacing the type when given', () => {
    const metadata = { name: 'x' };
    const obj = { spec: { a: 1 }, metadata, kind: 'Pod', status: {}, apiVersion: 'v1' } as unknown as KubeObject;
    const typed = withTypeFirst(obj);
    assert.notEqual(typed, obj);
    assert.equal(typed.metadata, metadata, 'the metadata object itself, not a copy');
    assert.deepEqual(Object.keys(typed), ['apiVersion', 'kind', 'metadata', 'spec', 'status']);
    const replaced = withTypeFirst(obj, 'apps/v1', 'Deployment');
    assert.deepEqual([replaced.apiVersion, replaced.kind], ['apps/v1', 'Deployment']);
    assert.deepEqual([obj.apiVersion, obj.kind], ['v1', 'Pod'], 'the given object is left as it was');
  });

  test('keeps a "__proto__" field a field, as encodeForStorage does', () => {
    const obj = JSON.parse('{"kind":"Widget","apiVersion":"x/v1","metadata":{},"__proto__":{"polluted":true}}');
    const typed = withTypeFirst(obj);
    assert.equal(Object.getPrototypeOf(typed), Object.prototype);
    assert.equal((typed as { polluted?: boolean }).polluted, undefined);
    assert.equal(
      encodeForStorage(typed),
      '{"apiVersion":"x/v1","kind":"Widget","metadata":{},"__proto__":{"polluted":true}}',
    );
  });
});
