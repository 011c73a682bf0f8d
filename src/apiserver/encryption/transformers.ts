/**
 * Encryption at rest's value transformers, with upstream's on-disk layout so values written by kube-apiserver read
 * here and back: `k8s:enc:<provider>:v1:<key name>:` then
 *   aescbc: a 16-byte IV, then AES-CBC with PKCS#7 padding;
 *   aesgcm: a 12-byte nonce, then AES-GCM ciphertext and its 16-byte tag, the storage key as additional data;
 *   secretbox: a 24-byte nonce, then NaCl's secretbox (XSalsa20-Poly1305: the 16-byte tag, then the ciphertext);
 *   identity: the value as is, no prefix.
 */
import { type CipherGCMTypes, createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type Nacl from 'tweetnacl';
import { requireLazily } from '../../util/lazy-require.js';

export interface Transformer {
  /** What every value this transformer wrote starts with ('' for identity). */
  readonly prefix: string;
  toStorage(data: Buffer, key: string): Buffer;
  fromStorage(data: Buffer, key: string): Buffer;
}

const ENC = 'k8s:enc:';

function cipherName(mode: 'cbc' | 'gcm', key: Buffer): string {
  return `aes-${key.length * 8}-${mode}`;
}

export function aescbc(name: string, key: Buffer): Transformer {
  const prefix = `${ENC}aescbc:v1:${name}:`;
  return {
    prefix,
    toStorage(data) {
      const iv = randomBytes(16);
      const c = createCipheriv(cipherName('cbc', key), key, iv);
      return Buffer.concat([Buffer.from(prefix), iv, c.update(data), c.final()]);
    },
    fromStorage(data) {
      const body = data.subarray(prefix.length);
      if (body.length < 16) throw new Error('the stored data was shorter than the required size');
      if ((body.length - 16) % 16 !== 0) throw new Error('invalid block size');
      const d = createDecipheriv(cipherName('cbc', key), key, body.subarray(0, 16));
      try {
        return Buffer.concat([d.update(body.subarray(16)), d.final()]);
      } catch {
        throw new Error('invalid PKCS7 data (empty or not padded)');
      }
    },
  };
}

export function aesgcm(name: string, key: Buffer): Transformer {
  const prefix = `${ENC}aesgcm:v1:${name}:`;
  return {
    prefix,
    toStorage(data, storageKey) {
      const nonce = randomBytes(12);
      const c = createCipheriv(cipherName('gcm', key) as CipherGCMTypes, key, nonce);
      c.setAAD(Buffer.from(storageKey));
      const sealed = Buffer.concat([c.update(data), c.final()]);
      return Buffer.concat([Buffer.from(prefix), nonce, sealed, c.getAuthTag()]);
    },
    fromStorage(data, storageKey) {
      const body = data.subarray(prefix.length);
      if (body.length < 12 + 16) throw new Error('the stored data was shorter than the required size');
      const d = createDecipheriv(cipherName('gcm', key) as CipherGCMTypes, key, body.subarray(0, 12));
      d.setAAD(Buffer.from(storageKey));
      d.setAuthTag(body.subarray(body.length - 16));
      try {
        return Buffer.concat([d.update(body.subarray(12, body.length - 16)), d.final()]);
      } catch {
        throw new Error('cipher: message authentication failed');
      }
    },
  };
}

export function secretbox(name: string, key: Buffer): Transformer {
  // Only a secretbox provider needs tweetnacl, so it is loaded when one is configured.
  const nacl = requireLazily('tweetnacl') as typeof Nacl;
  const prefix = `${ENC}secretbox:v1:${name}:`;
  const k = new Uint8Array(key);
  return {
    prefix,
    toStorage(data) {
      const nonce = randomBytes(nacl.secretbox.nonceLength);
      const sealed = nacl.secretbox(new Uint8Array(data), new Uint8Array(nonce), k);
      return Buffer.concat([Buffer.from(prefix), nonce, sealed]);
    },
    fromStorage(data) {
      const body = data.subarray(prefix.length);
      if (body.length < nacl.secretbox.nonceLength + nacl.secretbox.overheadLength)
        throw new Error('the stored data was shorter than the required size');
      const nonce = new Uint8Array(body.subarray(0, nacl.secretbox.nonceLength));
      const opened = nacl.secretbox.open(new Uint8Array(body.subarray(nacl.secretbox.nonceLength)), nonce, k);
      if (!opened) throw new Error('secretbox: the value does not open with this key');
      return Buffer.from(opened);
    },
  };
}

export const identity: Transformer = {
  prefix: '',
  toStorage: (data) => data,
  fromStorage(data) {
    if (data.subarray(0, ENC.length).toString() === ENC)
      throw new Error('identity transformer tried to read encrypted data');
    return data;
  },
};

/** A resource's providers in order: the first writes, any whose prefix the value carries reads. */
export class TransformerChain {
  constructor(private readonly transformers: Transformer[]) {}

  toStorage(data: Buffer, key: string): Buffer {
    return (this.transformers[0] as Transformer).toStorage(data, key);
  }

  fromStorage(data: Buffer, key: string): Buffer {
    return this.read(data, key).value;
  }

  /** The value, and whether a provider other than the first read it (it should be written again, as upstream's). */
  read(data: Buffer, key: string): { value: Buffer; stale: boolean } {
    const errors: string[] = [];
    for (const [i, t] of this.transformers.entries()) {
      if (t.prefix !== '' && !data.subarray(0, t.prefix.length).equals(Buffer.from(t.prefix))) continue;
      try {
        return { value: t.fromStorage(data, key), stale: i !== 0 };
      } catch (err) {
        // identity refuses encrypted data; a later provider may hold its key.
        if (t.prefix === '') {
          errors.push((err as Error).message);
          continue;
        }
        throw err;
      }
    }
    throw new Error('no matching prefix found');
  }
}
