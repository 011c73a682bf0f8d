import { after, before, describe, it } from 'node:test';
import { parseEncryptionConfiguration } from '../../src/apiserver/encryption/config.js';
import type { EncryptingStore } from '../../src/apiserver/encryption/store.js';
import { type ControlPlane, startControlPlane } from '../../src/index.js';
import { apiRequest } from '../../src/testing/api-client.js';
import assert from '../../src/testing/assert.js';

describe('apiserver: a value no configured key reads', () => {
  let cp: ControlPlane;
  before(async () => {
    cp = await startControlPlane({
      encryptionProviderConfig: parseEncryptionConfiguration({
        kind: 'EncryptionConfiguration',
        apiVersion: 'apiserver.config.k8s.io/v1',
        resources: [
          {
            resources: ['secrets'],
            providers: [{ aesgcm: { keys: [{ name: 'k', secret: Buffer.alloc(16, 3).toString('base64') }] } }],
          },
        ],
      }),
    });
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
      'Internal error occurred: unable to transform key "/registry/secrets/default/lost": no matching prefix found',
    );
    const list = await apiRequest(cp, 'GET', '/api/v1/namespaces/default/secrets');
    assert.equal(list.status, 200);
    const names = (list.body as { items: { metadata: { name: string } }[] }).items.map((i) => i.metadata.name);
    assert.ok(names.includes('ok'));
    assert.equal(names.includes('lost'), false);
  });
});
