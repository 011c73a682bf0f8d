import { createCipheriv } from 'node:crypto';
import { describe, it } from 'node:test';
import assert from '../../testing/assert.js';
import {
  aescbc,
  aesgcm,
  identityProvider,
  keyedProvider,
  secretbox,
  type Transformer,
  TransformerChain,
} from './transformers.js';

const KEY = '/registry/secrets/default/s1';
const A = Buffer.alloc(32, 1);
const B = Buffer.alloc(32, 2);
const PLAIN = Buffer.from('{"kind":"Secret"}');

const cbc = (...keys: Transformer[]) => keyedProvider('aescbc', keys);

/** An aescbc value under key name `name` whose one block decrypts with `secret` to `block` (no padding added). */
function cbcValue(name: string, secret: Buffer, block: Buffer): Buffer {
  const iv = Buffer.alloc(16);
  const c = createCipheriv('aes-256-cbc', secret, iv);
  c.setAutoPadding(false);
  return Buffer.concat([Buffer.from(`k8s:enc:aescbc:v1:${name}:`), iv, c.update(block), c.final()]);
}

const failure = (chain: TransformerChain, value: Buffer) => {
  try {
    chain.read(value, KEY);
  } catch (err) {
    return (err as Error).message;
  }
  return 'read';
};

describe('encryption transformers: reading', () => {
  it('says `no matching prefix found` only when no provider’s prefix matches', () => {
    const written = aescbc('key1', A).toStorage(PLAIN, KEY);
    assert.equal(failure(new TransformerChain([identityProvider]), written), 'no matching prefix found');
    assert.equal(
      failure(new TransformerChain([keyedProvider('aesgcm', [aesgcm('key1', A)])]), written),
      'no matching prefix found',
    );
    // Plain values need identity among the providers.
    assert.equal(failure(new TransformerChain([cbc(aescbc('key1', A))]), PLAIN), 'no matching prefix found');
  });

  it('names the provider that lacks the value’s key, as upstream’s per-provider key lookup does', () => {
    const written = aescbc('key1', A).toStorage(PLAIN, KEY);
    assert.equal(
      failure(new TransformerChain([cbc(aescbc('key2', B)), identityProvider]), written),
      'no matching key was found for the provided AES transformer',
    );
    const boxed = secretbox('sb1', A).toStorage(PLAIN, KEY);
    assert.equal(
      failure(new TransformerChain([keyedProvider('secretbox', [secretbox('sb2', B)])]), boxed),
      'no matching key was found for the provided Secretbox transformer',
    );
  });

  it('lets a later provider with a key of the same name read what an earlier one fails, and marks it stale', () => {
    const written = aescbc('key1', A).toStorage(PLAIN, KEY);
    const chain = new TransformerChain([cbc(aescbc('key1', B)), cbc(aescbc('key1', A))]);
    const { value, stale } = chain.read(written, KEY);
    assert.equal(value.toString(), PLAIN.toString());
    assert.equal(stale, true);
    assert.equal(new TransformerChain([cbc(aescbc('key1', A))]).read(written, KEY).stale, false);
    assert.equal(new TransformerChain([cbc(aescbc('key2', B), aescbc('key1', A))]).read(written, KEY).stale, true);
  });

  it('aggregates what the providers that tried said, as upstream’s aggregate error words it', () => {
    const unpadded = cbcValue('key1', A, Buffer.alloc(16, 0));
    assert.equal(
      failure(new TransformerChain([cbc(aescbc('key1', A)), cbc(aescbc('key2', B))]), unpadded),
      '[invalid PKCS7 data (empty or not padded), no matching key was found for the provided AES transformer]',
    );
    const sealed = aesgcm('g', A).toStorage(PLAIN, KEY);
    const gcm = (secret: Buffer) => keyedProvider('aesgcm', [aesgcm('g', secret)]);
    // The same message twice is said once.
    assert.equal(
      failure(new TransformerChain([gcm(B), gcm(Buffer.alloc(32, 3))]), sealed),
      'cipher: message authentication failed',
    );
  });

  it('words each cipher’s failures as upstream does', () => {
    const one = (t: Transformer, kind: 'aescbc' | 'aesgcm' | 'secretbox') =>
      new TransformerChain([keyedProvider(kind, [t])]);
    const badPadding = Buffer.concat([Buffer.alloc(13, 7), Buffer.from([1, 2, 3])]);
    assert.equal(
      failure(one(aescbc('key1', A), 'aescbc'), cbcValue('key1', A, badPadding)),
      'invalid padding on input',
    );
    assert.equal(
      failure(one(aescbc('key1', A), 'aescbc'), Buffer.from('k8s:enc:aescbc:v1:key1:0123456789abcdefXYZ')),
      'the stored data is not a multiple of the block size',
    );
    assert.equal(
      failure(one(aescbc('key1', A), 'aescbc'), Buffer.from('k8s:enc:aescbc:v1:key1:short')),
      'the stored data was shorter than the required size',
    );
    assert.equal(
      failure(one(aesgcm('g', A), 'aesgcm'), Buffer.from('k8s:enc:aesgcm:v1:g:0123456789a')),
      'the stored data was shorter than the required size',
    );
    assert.equal(
      failure(one(aesgcm('g', A), 'aesgcm'), Buffer.from('k8s:enc:aesgcm:v1:g:0123456789abcdef')),
      'cipher: message authentication failed',
    );
    assert.equal(
      failure(one(secretbox('sb', B), 'secretbox'), secretbox('sb', A).toStorage(PLAIN, KEY)),
      'output array was not large enough for encryption',
    );
    // Well padded, with the right key: read.
    const padded = Buffer.concat([Buffer.from('abcdefghijklm'), Buffer.from([3, 3, 3])]);
    assert.equal(
      one(aescbc('key1', A), 'aescbc')
        .read(cbcValue('key1', A, padded), KEY)
        .value.toString(),
      'abcdefghijklm',
    );
  });
});
