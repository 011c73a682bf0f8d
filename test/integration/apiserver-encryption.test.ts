import { after, before, describe, it } from 'node:test';
import { parseEncryptionConfiguration } from '../../src/apiserver/encryption/config.js';
import type { ProviderConfig } from '../../src/apiserver/encryption/config-file.js';
import type { EncryptingStore } from '../../src/apiserver/encryption/store.js';
import { aescbc } from '../../src/apiserver/encryption/transformers.js';
import { type ControlPlane, startControlPlane } from '../../src/index.js';
import { apiRequest } from '../../src/testing/api-client.js';
import assert from '../../src/testing/assert.js';

/** A control plane whose Secrets are stored through the given providers. */
function withEncryptedSecrets(providers: ProviderConfig[]): Promise<ControlPlane> {
  return startControlPlane({
    encryptionProviderConfig: parseEncryptionConfiguration({
      kind: 'EncryptionConfiguration',
      apiVersion: 'apiserver.config.k8s.io/v1',
      resources: [{ resources: ['secrets'], providers }],
    }),
  });
}

describe('apiserver: a value no configured key reads', () => {
  let cp: ControlPlane;
  before(async () => {
    cp = await withEncryptedSecrets([
      { aesgcm: { keys: [{ name: 'k', secret: Buffer.alloc(16, 3).toString('base64') }] } },
    ]);
  });
  after(async () => {
    await cp?.stop();
  });

  it('fails that object with an InternalError; the list serves the others', async () => {
    const body = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'ok' }, stringData: { a: 'b' } };
    assert.equal((await apiRequest(cp, 'POST', '/api/v1/namespaces/default/secrets', { body })).status, 201);
    const raw = (cp.storage as EncryptingStore).raw;
    assert.equal(
      (await raw.get('/registry/secrets/default/ok'))?.value.subarray(0, 17).toString(),
      'k8s:enc:aesgcm:v1',
    );
    await raw.create(
      '/registry/secrets/default/lost',
      Buffer.from('k8s:enc:aesgcm:v1:gone:0123456789abcdefghijklmnopqrstuvwxyz'),
    );
    const get = await apiRequest(cp, 'GET', '/api/v1/namespaces/default/secrets/lost');
    assert.equal(get.status, 500);
    const status = get.body as { reason: string; message: string };
    assert.equal(status.reason, 'InternalError');
    assert.equal(
      status.message,
      'Internal error occurred: unable to transform key "/registry/secrets/default/lost": no matching key was found for the provided AES transformer',
    );
    const list = await apiRequest(cp, 'GET', '/api/v1/namespaces/default/secrets');
    assert.equal(list.status, 200);
    const names = (list.body as { items: { metadata: { name: string } }[] }).items.map((i) => i.metadata.name);
    assert.ok(names.includes('ok'));
    assert.equal(names.includes('lost'), false);
  });
});

describe('apiserver: key rotation', () => {
  let cp: ControlPlane;
  const key = (n: number) => Buffer.alloc(32, n);
  before(async () => {
    cp = await withEncryptedSecrets([
      {
        aescbc: {
          keys: [
            { name: 'key2', secret: key(2).toString('base64') },
            { name: 'key1', secret: key(1).toString('base64') },
          ],
        },
      },
    ]);
  });
  after(async () => {
    await cp?.stop();
  });

  it('an unchanged update writes again a value read with a key that is no longer first, and only such a value', async () => {
    const raw = (cp.storage as EncryptingStore).raw;
    const path = '/api/v1/namespaces/default/secrets/old';
    const storageKey = '/registry/secrets/default/old';
    // Written before the rotation, with key1.
    const secret = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'old', namespace: 'default', uid: 'u-old', creationTimestamp: '2026-12-01T00:00:00Z' },
      type: 'Opaque',
      data: { a: 'Yg==' },
    };
    const plain = Buffer.from(JSON.stringify(secret));
    await raw.create(storageKey, aescbc('key1', key(1)).toStorage(plain, storageKey));
    const prefix = async () => (await raw.get(storageKey))?.value.subarray(0, 23).toString();
    assert.equal(await prefix(), 'k8s:enc:aescbc:v1:key1:');
    // kubectl get secrets -o json | kubectl replace -f -: the same object put back.
    const got = await apiRequest(cp, 'GET', path);
    assert.equal(got.status, 200, got.text);
    const put = await apiRequest(cp, 'PUT', path, { body: got.body });
    assert.equal(put.status, 200, put.text);
    assert.equal(await prefix(), 'k8s:enc:aescbc:v1:key2:');
    assert.notEqual(put.body.metadata.resourceVersion, got.body.metadata.resourceVersion);
    // Now read with the first key: an unchanged update writes nothing.
    const again = await apiRequest(cp, 'PUT', path, { body: put.body });
    assert.equal(again.status, 200, again.text);
    assert.equal(again.body.metadata.resourceVersion, put.body.metadata.resourceVersion);
  });
});
