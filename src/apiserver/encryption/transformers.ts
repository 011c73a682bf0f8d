/**
 * Encryption at rest's value transformers, with upstream's on-disk layout so values written by kube-apiserver read
 * here and back: `k8s:enc:<provider>:v1:<key name>:` then
 *   aescbc: a 16-byte IV, then AES-CBC with PKCS#7 padding;
 *   aesgcm: a 12-byte nonce, then AES-GCM ciphertext and its 16-byte tag, the storage key as additional data;
 *   secretbox: a 24-byte nonce, then NaCl's secretbox (XSalsa20-Poly1305: the 16-byte tag, then the ciphertext);
 *   identity: the value as is, no prefix.
 * Reading goes as upstream's prefix transformers go, in two levels: the providers whose prefix
 * (`k8s:enc:<provider>:v1:`) the value carries, each trying its keys whose `<key name>:` follows; a failure lets the
 * next candidate try, and the failures are reported together, in upstream's words, when none reads the value.
 */
import { type CipherGCMTypes, createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type Nacl from 'tweetnacl';
import { aggregateMessage } from '../../api/field-errors.js';
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
      const body = data.subarray(Buffer.byteLength(prefix));
      if (body.length < 16) throw new Error('the stored data was shorter than the required size');
      if ((body.length - 16) % 16 !== 0) throw new Error('the stored data is not a multiple of the block size');
      const d = createDecipheriv(cipherName('cbc', key), key, body.subarray(0, 16));
      // The padding is checked here, as upstream checks it, rather than by OpenSSL (whose failure says neither).
      d.setAutoPadding(false);
      const plain = Buffer.concat([d.update(body.subarray(16)), d.final()]);
      const pad = plain.length > 0 ? (plain[plain.length - 1] as number) : 0;
      if (pad === 0 || pad > plain.length) throw new Error('invalid PKCS7 data (empty or not padded)');
      for (let i = plain.length - pad; i < plain.length; i++) {
        if (plain[i] !== pad) throw new Error('invalid padding on input');
      }
      return plain.subarray(0, plain.length - pad);
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
      const body = data.subarray(Buffer.byteLength(prefix));
      if (body.length < 12) throw new Error('the stored data was shorter than the required size');
      // Go's AEAD refuses a sealed value shorter than its tag with the same error as a wrong key.
      if (body.length < 12 + 16) throw new Error('cipher: message authentication failed');
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
      const body = data.subarray(Buffer.byteLength(prefix));
      if (body.length < nacl.secretbox.nonceLength + nacl.secretbox.overheadLength)
        throw new Error('the stored data was shorter than the required size');
      const nonce = new Uint8Array(body.subarray(0, nacl.secretbox.nonceLength));
      const opened = nacl.secretbox.open(new Uint8Array(body.subarray(nacl.secretbox.nonceLength)), nonce, k);
      // Upstream's words for a value that does not open (its output buffer is never the problem).
      if (!opened) throw new Error('output array was not large enough for encryption');
      return Buffer.from(opened);
    },
  };
}

export const identity: Transformer = {
  prefix: '',
  toStorage: (data) => data,
  fromStorage(data) {
    if (hasPrefix(data, ENC)) throw new Error('identity transformer tried to read encrypted data');
    return data;
  },
};

/** One provider of a resource: its keys, each reading the values whose prefix carries its name. */
export interface Provider {
  /** What every value it wrote starts with: `k8s:enc:<provider>:v1:`, '' for identity. */
  readonly prefix: string;
  /** Its keys in order, the first writing (identity alone, for identity). */
  readonly keys: readonly Transformer[];
  /** Upstream's error for a value with the provider's prefix but no key of its name. */
  readonly noMatchingKey: string;
}

const NO_MATCHING_KEY = {
  aes: 'no matching key was found for the provided AES transformer',
  secretbox: 'no matching key was found for the provided Secretbox transformer',
};

/** The aesgcm, aescbc or secretbox provider with these keys (each made by aesgcm, aescbc or secretbox). */
export function keyedProvider(kind: 'aesgcm' | 'aescbc' | 'secretbox', keys: Transformer[]): Provider {
  return {
    prefix: `${ENC}${kind}:v1:`,
    keys,
    noMatchingKey: kind === 'secretbox' ? NO_MATCHING_KEY.secretbox : NO_MATCHING_KEY.aes,
  };
}

export const identityProvider: Provider = { prefix: '', keys: [identity], noMatchingKey: '' };

const prefixBytes = new Map<string, Buffer>();

function hasPrefix(data: Buffer, prefix: string): boolean {
  if (prefix === '') return true;
  let bytes = prefixBytes.get(prefix);
  if (!bytes) {
    bytes = Buffer.from(prefix);
    prefixBytes.set(prefix, bytes);
  }
  return data.length >= bytes.length && data.subarray(0, bytes.length).equals(bytes);
}

/** A resource's providers in order: the first one's first key writes; any whose prefix the value carries reads. */
export class TransformerChain {
  constructor(private readonly providers: readonly Provider[]) {}

  toStorage(data: Buffer, key: string): Buffer {
    return ((this.providers[0] as Provider).keys[0] as Transformer).toStorage(data, key);
  }

  fromStorage(data: Buffer, key: string): Buffer {
    return this.read(data, key).value;
  }

  /**
   * The value, and whether anything but the first provider's first key read it (it should be written again, as
   * upstream's). Throws upstream's error when none does: `no matching prefix found` when no provider's prefix
   * matches, else what the providers that tried said (a provider without the key the value names: its
   * `no matching key was found for the provided … transformer`), aggregated.
   */
  read(data: Buffer, key: string): { value: Buffer; stale: boolean } {
    const failures: string[] = [];
    for (const [i, p] of this.providers.entries()) {
      if (!hasPrefix(data, p.prefix)) continue;
      if (p.prefix === '') {
        // identity refuses encrypted data, and says nothing: a later provider may hold its key.
        if (hasPrefix(data, ENC)) continue;
        return { value: data, stale: i !== 0 };
      }
      let tried = false;
      for (const [j, t] of p.keys.entries()) {
        if (!hasPrefix(data, t.prefix)) continue;
        tried = true;
        try {
          return { value: t.fromStorage(data, key), stale: i !== 0 || j !== 0 };
        } catch (err) {
          // Keys may share a name across providers (one rotated to, one away from): the next one tries too.
          failures.push((err as Error).message);
        }
      }
      if (!tried) failures.push(p.noMatchingKey);
    }
    throw new Error(failures.length > 0 ? aggregateMessage(failures) : 'no matching prefix found');
  }
}
