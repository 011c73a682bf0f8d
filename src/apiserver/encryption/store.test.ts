import { createDecipheriv } from 'node:crypto';
import { describe, it } from 'node:test';
import nacl from 'tweetnacl';
import { MemoryStore } from '../../storage/memory.js';
import type { StorageError, WatchEvent } from '../../storage/types.js';
import assert from '../../testing/assert.js';
import { eventually } from '../../testing/controllers.js';
import { parseEncryptionConfiguration } from './config.js';
import type { ProviderConfig } from './config-file.js';
import { EncryptingStore } from './store.js';

const KEY1 = Buffer.alloc(32, 1).toString('base64');
const KEY2 = Buffer.alloc(32, 2).toString('base64');
const config = (providers: unknown[], resources = ['secrets']) =>
  parseEncryptionConfiguration({
    apiVersion: 'apiserver.config.k8s.io/v1',
    kind: 'EncryptionConfiguration',
    resources: [{ resources, providers: providers as ProviderConfig[] }],
  });
const SECRET = '/registry/secrets/default/s1';
const PLAIN = '{"kind":"Secret","data":{"k":"c2VjcmV0"}}';

describe('encryption at rest', () => {
  it('aescbc writes k8s:enc:aescbc:v1:<key>: + IV + CBC ciphertext and reads it back; other resources stay plain', async () => {
    const raw = new MemoryStore();
    const store = new EncryptingStore(raw, config([{ aescbc: { keys: [{ name: 'key1', secret: KEY1 }] } }]));
    await store.create(SECRET, PLAIN);
    await store.create('/registry/configmaps/default/c1', '{"kind":"ConfigMap"}');
    const onDisk = (await raw.get(SECRET))?.value as Buffer;
    const prefix = 'k8s:enc:aescbc:v1:key1:';
    assert.equal(onDisk.subarray(0, prefix.length).toString(), prefix);
    assert.equal(onDisk.includes('c2VjcmV0'), false);
    // Upstream's layout: decrypt by hand.
    const body = onDisk.subarray(prefix.length);
    const d = createDecipheriv('aes-256-cbc', Buffer.from(KEY1, 'base64'), body.subarray(0, 16));
    assert.equal(Buffer.concat([d.update(body.subarray(16)), d.final()]).toString(), PLAIN);
    assert.equal((await store.get(SECRET))?.value.toString(), PLAIN);
    assert.equal((await raw.get('/registry/configmaps/default/c1'))?.value.toString(), '{"kind":"ConfigMap"}');
    const list = await store.list('/registry/secrets/');
    assert.deepEqual(
      list.items.map((i) => i.value.toString()),
      [PLAIN],
    );
  });

  it('aesgcm binds the value to its key (additional data), and watches see decrypted values', async () => {
    const raw = new MemoryStore();
    const store = new EncryptingStore(raw, config([{ aesgcm: { keys: [{ name: 'g', secret: KEY1 }] } }], ['*.']));
    const seen: WatchEvent[] = [];
    const w = store.watch('/registry/secrets/', 0, { onEvent: (e) => seen.push(e), onError: () => {} });
    const { revision } = await store.create(SECRET, PLAIN);
    await store.update(SECRET, `${PLAIN} `, revision);
    const onDisk = (await raw.get(SECRET))?.value as Buffer;
    assert.equal(onDisk.subarray(0, 20).toString(), 'k8s:enc:aesgcm:v1:g:');
    // Moved under another key, the value does not decrypt.
    await raw.create('/registry/secrets/default/moved', onDisk);
    await assert.rejects(store.get('/registry/secrets/default/moved'), {
      code: 'Internal',
      message: 'cipher: message authentication failed',
    });
    w.close();
    assert.deepEqual(
      seen.slice(0, 2).map((e) => (e.type === 'delete' ? '' : e.value.toString())),
      [PLAIN, `${PLAIN} `],
    );
  });

  it('rotation: a new first key writes, the old second key still reads; a removed key fails that object', async () => {
    const raw = new MemoryStore();
    const before = new EncryptingStore(raw, config([{ aescbc: { keys: [{ name: 'key1', secret: KEY1 }] } }]));
    await before.create(SECRET, PLAIN);
    const rotated = new EncryptingStore(
      raw,
      config([
        {
          aescbc: {
            keys: [
              { name: 'key2', secret: KEY2 },
              { name: 'key1', secret: KEY1 },
            ],
          },
        },
      ]),
    );
    const old = await rotated.get(SECRET);
    assert.equal(old?.value.toString(), PLAIN);
    await rotated.update(SECRET, PLAIN, old?.modRevision as number);
    assert.equal((await raw.get(SECRET))?.value.subarray(0, 23).toString(), 'k8s:enc:aescbc:v1:key2:');
    await before.create('/registry/secrets/default/s2', PLAIN);
    const keyTwoOnly = new EncryptingStore(
      raw,
      config([{ aescbc: { keys: [{ name: 'key2', secret: KEY2 }] } }, { identity: {} }]),
    );
    assert.equal((await keyTwoOnly.get(SECRET))?.value.toString(), PLAIN);
    await assert.rejects(keyTwoOnly.get('/registry/secrets/default/s2'), {
      name: 'StorageError',
      code: 'Internal',
      message: 'no matching key was found for the provided AES transformer',
    });
  });

  it('fails a whole list at a value no provider reads, naming its key, as upstream’s GetList', async () => {
    const raw = new MemoryStore();
    const before = new EncryptingStore(raw, config([{ aescbc: { keys: [{ name: 'key1', secret: KEY1 }] } }]));
    await before.create('/registry/secrets/default/a', PLAIN);
    await before.create('/registry/secrets/default/b', PLAIN);
    const identityOnly = new EncryptingStore(raw, config([{ identity: {} }]));
    await assert.rejects(identityOnly.list('/registry/secrets/'), {
      code: 'Internal',
      message: 'unable to transform key "/registry/secrets/default/a": no matching prefix found',
    });
    await assert.rejects(identityOnly.list('/registry/secrets/default/b'), {
      message: 'unable to transform key "/registry/secrets/default/b": no matching prefix found',
    });
    await assert.rejects(identityOnly.get('/registry/secrets/default/a'), { message: 'no matching prefix found' });
    // Resources no rule names are read by upstream's identity transformer, which refuses encrypted data.
    const noSecrets = new EncryptingStore(raw, config([{ identity: {} }], ['configmaps']));
    await assert.rejects(noSecrets.list('/registry/secrets/'), {
      message:
        'unable to transform key "/registry/secrets/default/a": identity transformer tried to read encrypted data',
    });
    assert.equal(await noSecrets.count('/registry/secrets/'), 2);
  });

  it('creates over a value no provider reads fail KeyExists; updates and deletes of it fail with the read', async () => {
    const raw = new MemoryStore();
    const before = new EncryptingStore(raw, config([{ aescbc: { keys: [{ name: 'key1', secret: KEY1 }] } }]));
    const { revision } = await before.create(SECRET, PLAIN);
    const after = new EncryptingStore(raw, config([{ aescbc: { keys: [{ name: 'key2', secret: KEY2 }] } }]));
    await assert.rejects(after.create(SECRET, PLAIN), (err: unknown) => {
      assert.equal((err as StorageError).code, 'KeyExists');
      assert.equal((err as StorageError).current, undefined);
      return true;
    });
    await assert.rejects(after.update(SECRET, PLAIN, revision + 100), {
      code: 'Internal',
      message: 'no matching key was found for the provided AES transformer',
    });
    await assert.rejects(after.delete(SECRET, revision + 100), {
      code: 'Internal',
      message: 'no matching key was found for the provided AES transformer',
    });
    // Nothing was written.
    assert.equal((await raw.get(SECRET))?.modRevision, revision);
    assert.equal((await before.get(SECRET))?.value.toString(), PLAIN);
  });

  it('ends a watch with the error at a value no provider reads, but not at an update’s previous value', async () => {
    const raw = new MemoryStore();
    const store = new EncryptingStore(raw, config([{ aescbc: { keys: [{ name: 'key1', secret: KEY1 }] } }]));
    const other = new EncryptingStore(raw, config([{ aescbc: { keys: [{ name: 'other', secret: KEY2 }] } }]));
    const seen: string[] = [];
    const errors: StorageError[] = [];
    const listener = {
      onEvent: (e: WatchEvent) => seen.push(`${e.type} ${e.key}`),
      onError: (err: StorageError) => errors.push(err),
    };
    const w = store.watch('/registry/secrets/', 0, listener);
    const { revision } = await other.create(SECRET, PLAIN);
    // Written by a store with another key: the update's value reads, its previous value does not.
    await store.update(SECRET, PLAIN, revision);
    await other.create('/registry/secrets/default/s2', PLAIN);
    await store.create('/registry/secrets/default/s3', PLAIN);
    await eventually(() => assert.equal(errors.length, 1));
    w.close();
    assert.deepEqual(seen, [], 'the first event is the other store’s create');
    assert.equal(errors[0]?.code, 'Internal');
    assert.equal(errors[0]?.message, 'no matching key was found for the provided AES transformer');

    const later: WatchEvent[] = [];
    const w2 = store.watch('/registry/secrets/', revision, {
      onEvent: (e) => later.push(e),
      onError: (err) => errors.push(err),
    });
    await eventually(() => assert.equal(errors.length, 2));
    w2.close();
    assert.deepEqual(
      later.map((e) => `${e.type} ${e.key}`),
      ['update /registry/secrets/default/s1'],
      'the update passes; the create of s2 ends the watch',
    );
    assert.equal(later[0]?.type === 'update' && later[0].value.toString(), PLAIN);
    assert.throws(() => later[0]?.type === 'update' && later[0].prevValue, {
      message: 'no matching key was found for the provided AES transformer',
    });
  });

  it('identity first writes plain text and still reads encrypted values with a later provider', async () => {
    const raw = new MemoryStore();
    await new EncryptingStore(raw, config([{ aescbc: { keys: [{ name: 'key1', secret: KEY1 }] } }])).create(
      SECRET,
      PLAIN,
    );
    const store = new EncryptingStore(
      raw,
      config([{ identity: {} }, { aescbc: { keys: [{ name: 'key1', secret: KEY1 }] } }]),
    );
    assert.equal((await store.get(SECRET))?.value.toString(), PLAIN);
    await store.create('/registry/secrets/default/p', PLAIN);
    assert.equal((await raw.get('/registry/secrets/default/p'))?.value.toString(), PLAIN);
  });

  it('secretbox: nonce then NaCl secretbox, readable by NaCl itself', async () => {
    const raw = new MemoryStore();
    const store = new EncryptingStore(raw, config([{ secretbox: { keys: [{ name: 'sb', secret: KEY2 }] } }], ['*.*']));
    await store.create(SECRET, PLAIN);
    const onDisk = (await raw.get(SECRET))?.value as Buffer;
    const prefix = 'k8s:enc:secretbox:v1:sb:';
    assert.equal(onDisk.subarray(0, prefix.length).toString(), prefix);
    const body = onDisk.subarray(prefix.length);
    const opened = nacl.secretbox.open(
      new Uint8Array(body.subarray(24)),
      new Uint8Array(body.subarray(0, 24)),
      new Uint8Array(Buffer.from(KEY2, 'base64')),
    );
    assert.equal(Buffer.from(opened as Uint8Array).toString(), PLAIN);
    assert.equal((await store.get(SECRET))?.value.toString(), PLAIN);
  });

  it('refuses bad configurations with upstream’s validation errors', () => {
    assert.throws(() => config([{ aescbc: { keys: [{ name: 'k', secret: Buffer.alloc(7).toString('base64') }] } }]), {
      message:
        'error while parsing file: resources[0].providers[0].aescbc.keys[0].secret: Invalid value: "REDACTED": secret is not of the expected length, got 7, expected one of [16 24 32]',
    });
    assert.throws(() => config([]), {
      message:
        'error while parsing file: resources[0].providers: Required value: at least one resources[0].providers is required',
    });
  });

  it('gives a resource named in several entries every entry’s providers, the first entry’s first writing', async () => {
    const raw = new MemoryStore();
    const first = new EncryptingStore(raw, config([{ aescbc: { keys: [{ name: 'one', secret: KEY1 }] } }]));
    await first.create(SECRET, PLAIN);
    const both = new EncryptingStore(
      raw,
      parseEncryptionConfiguration({
        apiVersion: 'apiserver.config.k8s.io/v1',
        kind: 'EncryptionConfiguration',
        resources: [
          { resources: ['secrets'], providers: [{ secretbox: { keys: [{ name: 'two', secret: KEY2 }] } }] },
          { resources: ['secrets', 'configmaps'], providers: [{ aescbc: { keys: [{ name: 'one', secret: KEY1 }] } }] },
        ],
      }),
    );
    assert.equal((await both.get(SECRET))?.value.toString(), PLAIN, 'read with the second entry’s key');
    await both.create('/registry/secrets/default/s2', PLAIN);
    const onDisk = (await raw.get('/registry/secrets/default/s2'))?.value as Buffer;
    assert.equal(onDisk.subarray(0, 25).toString(), 'k8s:enc:secretbox:v1:two:');
    await both.create('/registry/configmaps/default/c', PLAIN);
    const cm = (await raw.get('/registry/configmaps/default/c'))?.value as Buffer;
    assert.equal(cm.subarray(0, 22).toString(), 'k8s:enc:aescbc:v1:one:');
  });
});
