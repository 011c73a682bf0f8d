import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The key pair kubeadm keeps for ServiceAccount tokens, in the PKI directory. */
export const SA_KEY_FILE = 'sa.key';
export const SA_PUB_FILE = 'sa.pub';

/** The JWS algorithm a key signs with, as upstream's token generator picks it. */
export function algorithmOf(key: KeyObject): string {
  if (key.asymmetricKeyType === 'rsa') return 'RS256';
  if (key.asymmetricKeyType === 'ec') {
    const curve = key.asymmetricKeyDetails?.namedCurve;
    if (curve === 'prime256v1') return 'ES256';
    if (curve === 'secp384r1') return 'ES384';
    if (curve === 'secp521r1') return 'ES512';
    throw new Error(`unsupported elliptic curve ${curve ?? '(unknown)'} for service account tokens`);
  }
  throw new Error(`unsupported key type ${key.asymmetricKeyType ?? '(unknown)'} for service account tokens`);
}

/** Each key's id, worked out once: the authenticator looks up the keys of a token's key id on every request. */
const keyIds = new WeakMap<KeyObject, string>();

/** The key id upstream puts in tokens and the JWKS: base64url of the SHA-256 of the public key's DER (PKIX). */
export function keyIdOf(key: KeyObject): string {
  let id = keyIds.get(key);
  if (id === undefined) {
    const pub = key.type === 'private' ? createPublicKey(key) : key;
    id = createHash('sha256')
      .update(pub.export({ type: 'spki', format: 'der' }))
      .digest('base64url');
    keyIds.set(key, id);
  }
  return id;
}

const PEM_BLOCK = /-----BEGIN ([A-Z ]+)-----[\s\S]*?-----END \1-----/g;

/** The public keys of a --service-account-key-file: every public key, certificate or private key it holds. */
export function readPublicKeys(path: string): KeyObject[] {
  const text = readFileSync(path, 'utf8');
  const keys: KeyObject[] = [];
  for (const m of text.matchAll(PEM_BLOCK)) {
    const pem = m[0];
    const type = m[1] ?? '';
    if (type.includes('PRIVATE KEY')) keys.push(createPublicKey(createPrivateKey(pem)));
    else if (type === 'PUBLIC KEY' || type === 'RSA PUBLIC KEY' || type === 'CERTIFICATE')
      keys.push(createPublicKey(pem));
  }
  if (keys.length === 0) throw new Error(`data does not contain any valid RSA or ECDSA public keys: ${path}`);
  for (const k of keys) algorithmOf(k);
  return keys;
}

/** The private key of a --service-account-signing-key-file. */
export function readSigningKey(path: string): KeyObject {
  const key = createPrivateKey(readFileSync(path, 'utf8'));
  algorithmOf(key);
  return key;
}

/**
 * The PKI directory's sa.key/sa.pub, made the first time (an ECDSA P-256 key): the signing key and the public key
 * file that `wheelhouse up` and `wheelhouse apiserver` use when no --service-account-* key flag is given.
 */
export function ensureServiceAccountKeyPair(pkiDir: string): { keyFile: string; pubFile: string } {
  const keyFile = join(pkiDir, SA_KEY_FILE);
  const pubFile = join(pkiDir, SA_PUB_FILE);
  if (!existsSync(keyFile)) {
    mkdirSync(pkiDir, { recursive: true });
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
    writeFileSync(keyFile, privateKey.export({ type: 'sec1', format: 'pem' }), { mode: 0o600 });
    writeFileSync(pubFile, publicKey.export({ type: 'spki', format: 'pem' }), { mode: 0o644 });
  } else if (!existsSync(pubFile)) {
    writeFileSync(pubFile, createPublicKey(readFileSync(keyFile, 'utf8')).export({ type: 'spki', format: 'pem' }));
  }
  return { keyFile, pubFile };
}
