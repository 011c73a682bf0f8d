import { describe, test } from 'node:test';
import assert from '../../testing/assert.js';
import {
  decodeFromStorage,
  encodeForStorage,
  RawJson,
  rememberWritten,
  storedJsonWithRevision,
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
