import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parseEncryptionConfiguration } from '../../src/apiserver/encryption/config.js';
import type { ProviderConfig } from '../../src/apiserver/encryption/config-file.js';
import type { EncryptingStore } from '../../src/apiserver/encryption/store.js';
import { aescbc } from '../../src/apiserver/encryption/transformers.js';
import { type ControlPlane, startControlPlane } from '../../src/index.js';
import { apiRequest } from '../../src/testing/api-client.js';
import assert from '../../src/testing/assert.js';
import { eventually } from '../../src/testing/controllers.js';

/** Asserts that a response's Status has these fields. */
function fields(body: unknown, want: Record<string, unknown>): void {
  const got = body as Record<string, unknown>;
  for (const [k, v] of Object.entries(want)) assert.equal(got[k], v, `${k} of ${JSON.stringify(body)}`);
}

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

  it('fails the object’s reads and writes with upstream’s InternalError, and every list that holds it', async () => {
    const secrets = '/api/v1/namespaces/default/secrets';
    const body = (name: string) => ({ apiVersion: 'v1', kind: 'Secret', metadata: { name }, stringData: { a: 'b' } });
    assert.equal((await apiRequest(cp, 'POST', secrets, { body: body('ok') })).status, 201);
    const raw = (cp.storage as EncryptingStore).raw;
    assert.equal(
      (await raw.get('/registry/secrets/default/ok'))?.value.subarray(0, 17).toString(),
      'k8s:enc:aesgcm:v1',
    );
    await raw.create(
      '/registry/secrets/default/lost',
      Buffer.from('k8s:enc:aesgcm:v1:gone:0123456789abcdefghijklmnopqrstuvwxyz'),
    );
    const internal = (res: { status: number; body: unknown }, message: string) => {
      assert.equal(res.status, 500);
      fields(res.body, { reason: 'InternalError', message: `Internal error occurred: ${message}` });
    };
    // A read by name says what the transformer said (upstream's Get wraps it without the key).
    const noKey = 'no matching key was found for the provided AES transformer';
    internal(await apiRequest(cp, 'GET', `${secrets}/lost`), noKey);
    internal(await apiRequest(cp, 'PUT', `${secrets}/lost`, { body: body('lost') }), noKey);
    internal(
      await apiRequest(cp, 'PATCH', `${secrets}/lost`, {
        body: { data: { a: 'Yw==' } },
        contentType: 'application/merge-patch+json',
      }),
      noKey,
    );
    internal(await apiRequest(cp, 'DELETE', `${secrets}/lost`), noKey);
    // A create does not read the key: AlreadyExists; a dry run, which cannot read it, goes through as upstream's.
    const again = await apiRequest(cp, 'POST', secrets, { body: body('lost') });
    assert.equal(again.status, 409, again.text);
    assert.equal((again.body as { message: string }).message, 'secrets "lost" already exists');
    assert.equal((await apiRequest(cp, 'POST', `${secrets}?dryRun=All`, { body: body('lost') })).status, 201);
    // Lists fail whole, naming the key (kubectl's limit=500 and an informer's resourceVersion=0 read storage).
    const listError = `unable to transform key "/registry/secrets/default/lost": ${noKey}`;
    internal(await apiRequest(cp, 'GET', `${secrets}?limit=500`), listError);
    internal(await apiRequest(cp, 'GET', '/api/v1/secrets?limit=500&resourceVersion=0'), listError);
    // The watch cache saw the value, could not read it, and cannot load again: what it serves is refused.
    const refused = `storage is (re)initializing: failed to list *core.Secret: ${listError}`;
    await eventually(async () => {
      const res = await apiRequest(cp, 'GET', `${secrets}?resourceVersion=0`);
      assert.equal(res.status, 429, res.text);
      fields(res.body, { reason: 'TooManyRequests', message: refused });
      assert.ok(Number(res.headers['retry-after']) >= 1);
    });
    const watch = await apiRequest(cp, 'GET', `${secrets}?watch=1`);
    assert.equal(watch.status, 429, watch.text);
    fields(watch.body, { message: refused });
    // Nothing was written or lost meanwhile; once the value goes, everything is served again.
    assert.equal(
      (await raw.get('/registry/secrets/default/lost'))?.value.subarray(0, 23).toString(),
      'k8s:enc:aesgcm:v1:gone:',
    );
    const { modRevision } = (await raw.get('/registry/secrets/default/lost')) as { modRevision: number };
    await raw.delete('/registry/secrets/default/lost', modRevision);
    await eventually(async () => {
      const res = await apiRequest(cp, 'GET', `${secrets}?resourceVersion=0`);
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(
        (res.body as { items: { metadata: { name: string } }[] }).items.map((i) => i.metadata.name),
        ['ok'],
      );
    });
  });
});

describe('apiserver: restarted with a configuration that lacks the key', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'wheelhouse-encryption-'));
  let cp: ControlPlane | undefined;
  after(async () => {
    await cp?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('starts, fails the lists that hold the old values, and answers AlreadyExists to a create of one', async () => {
    const start = (providers: ProviderConfig[]) =>
      startControlPlane({
        storage: 'sqlite',
        dataDir,
        encryptionProviderConfig: parseEncryptionConfiguration({
          kind: 'EncryptionConfiguration',
          apiVersion: 'apiserver.config.k8s.io/v1',
          resources: [{ resources: ['secrets'], providers }],
        }),
      });
    const secrets = '/api/v1/namespaces/default/secrets';
    const body = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's1' }, stringData: { a: 'b' } };
    cp = await start([{ aescbc: { keys: [{ name: 'key1', secret: Buffer.alloc(32, 1).toString('base64') }] } }]);
    assert.equal((await apiRequest(cp, 'POST', secrets, { body })).status, 201);
    await cp.stop();
    cp = await start([{ identity: {} }]);
    const list = await apiRequest(cp, 'GET', `${secrets}?limit=500`);
    assert.equal(list.status, 500, list.text);
    fields(list.body, {
      reason: 'InternalError',
      message:
        'Internal error occurred: unable to transform key "/registry/secrets/default/s1": no matching prefix found',
    });
    const get = await apiRequest(cp, 'GET', `${secrets}/s1`);
    fields(get.body, { code: 500, message: 'Internal error occurred: no matching prefix found' });
    const create = await apiRequest(cp, 'POST', secrets, { body });
    assert.equal(create.status, 409, create.text);
    fields(create.body, { reason: 'AlreadyExists', message: 'secrets "s1" already exists' });
    // Other resources are served as before.
    assert.equal((await apiRequest(cp, 'GET', '/api/v1/namespaces/default/configmaps')).status, 200);
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
