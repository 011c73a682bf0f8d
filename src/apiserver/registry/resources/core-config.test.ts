import { describe, it } from 'node:test';
import assert from '../../../testing/assert.js';
import type { KubeObject } from '../object.js';
import { configmaps, secrets } from './core-config.js';

const b64 = (s: string) => Buffer.from(s).toString('base64');
const messages = (errs: { message: string }[] | undefined) => (errs ?? []).map((e) => e.message);
const secret = (type: string, data: Record<string, string>, annotations?: Record<string, string>): KubeObject => ({
  metadata: { name: 's', namespace: 'default', resourceVersion: '1', ...(annotations ? { annotations } : {}) },
  type,
  data,
});

describe('core/v1 ConfigMaps and Secrets', () => {
  it('keeps an immutable ConfigMap immutable: its data, its binaryData and the flag itself', () => {
    const old: KubeObject = {
      metadata: { name: 'c', namespace: 'default', resourceVersion: '1' },
      immutable: true,
      data: { a: 'b' },
    };
    const update = (next: Record<string, unknown>) =>
      messages(configmaps.def.strategy.validateUpdate?.({ metadata: old.metadata, ...next }, old));
    assert.deepEqual(update({ immutable: true, data: { a: 'b' } }), []);
    assert.deepEqual(update({ immutable: false, data: { a: 'b' } }), [
      'immutable: Forbidden: field is immutable when `immutable` is set',
    ]);
    assert.deepEqual(update({ data: { a: 'c' }, binaryData: { x: 'eA==' } }), [
      'immutable: Forbidden: field is immutable when `immutable` is set',
      'data: Forbidden: field is immutable when `immutable` is set',
      'binaryData: Forbidden: field is immutable when `immutable` is set',
    ]);
    // A mutable one may change anything, including becoming immutable.
    assert.deepEqual(
      messages(configmaps.def.strategy.validateUpdate?.(old, { metadata: old.metadata, data: { a: 'x' } })),
      [],
    );
  });

  it('keeps an immutable Secret immutable, and its type fixed', () => {
    const old = { ...secret('Opaque', { a: b64('b') }), immutable: true };
    const update = (next: KubeObject) => messages(secrets.def.strategy.validateUpdate?.(next, old));
    assert.deepEqual(update({ ...old }), []);
    assert.deepEqual(update({ ...old, immutable: false, data: { a: b64('c') } }), [
      'immutable: Forbidden: field is immutable when `immutable` is set',
      'data: Forbidden: field is immutable when `immutable` is set',
    ]);
    assert.deepEqual(update({ ...old, type: 'kubernetes.io/basic-auth', data: { a: b64('b'), username: b64('u') } }), [
      'type: Invalid value: "kubernetes.io/basic-auth": field is immutable',
      'data: Forbidden: field is immutable when `immutable` is set',
    ]);
  });

  it("checks what each well-known Secret type must hold, as upstream's ValidateSecret does", () => {
    const check = (s: KubeObject) => messages(secrets.def.strategy.validate?.(s));
    assert.deepEqual(check(secret('kubernetes.io/tls', { foo: b64('a') })), [
      'data[tls.crt]: Required value',
      'data[tls.key]: Required value',
    ]);
    assert.deepEqual(check(secret('kubernetes.io/tls', { 'tls.crt': '', 'tls.key': '' })), []);
    assert.deepEqual(check(secret('kubernetes.io/basic-auth', { x: b64('a') })), [
      'data[username]: Required value',
      'data[password]: Required value',
    ]);
    assert.deepEqual(check(secret('kubernetes.io/basic-auth', { password: '' })), []);
    assert.deepEqual(check(secret('kubernetes.io/ssh-auth', { 'ssh-privatekey': '' })), [
      'data[ssh-privatekey]: Required value',
    ]);
    assert.deepEqual(check(secret('kubernetes.io/service-account-token', {})), [
      'metadata.annotations[kubernetes.io/service-account.name]: Required value',
    ]);
    assert.deepEqual(
      check(secret('kubernetes.io/service-account-token', {}, { 'kubernetes.io/service-account.name': 'default' })),
      [],
    );
    assert.deepEqual(check(secret('kubernetes.io/dockerconfigjson', {})), ['data[.dockerconfigjson]: Required value']);
    assert.deepEqual(check(secret('kubernetes.io/dockerconfigjson', { '.dockerconfigjson': b64('a') })), [
      'data[.dockerconfigjson]: Invalid value: "<secret contents redacted>": invalid character \'a\' looking for beginning of value',
    ]);
    assert.deepEqual(check(secret('kubernetes.io/dockercfg', { '.dockercfg': b64('[]') })), [
      'data[.dockercfg]: Invalid value: "<secret contents redacted>": json: cannot unmarshal array into Go value of type map[string]interface {}',
    ]);
    assert.deepEqual(check(secret('kubernetes.io/dockerconfigjson', { '.dockerconfigjson': b64('{"auths":{}}') })), []);
    assert.deepEqual(check(secret('Opaque', { big: Buffer.alloc(1024 * 1024 + 1).toString('base64') })), [
      'data: Too long: may not be more than 1048576 bytes',
    ]);
    assert.deepEqual(check(secret('example.com/anything', { x: b64('y') })), []);
  });
});
