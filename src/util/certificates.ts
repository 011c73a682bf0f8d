import { createPrivateKey, randomBytes } from 'node:crypto';
import type * as X509 from '@peculiar/x509';

/** A certificate and its private key, both PEM (the key as PKCS#8 `PRIVATE KEY`). */
/** DNS names and IP addresses for a certificate's subjectAltName. */
export interface AltNames {
  dnsNames: string[];
  ips: string[];
}

export interface CertificateAndKey {
  certPem: string;
  keyPem: string;
}

/** A CA is a certificate and key like any other; its certificate is self-signed and may sign others. */
export type CertificateAuthority = CertificateAndKey;

export interface CertificateSpec {
  commonName: string;
  organizations?: string[];
  notBefore: Date;
  notAfter: Date;
}

export interface LeafSpec extends CertificateSpec {
  /** serverAuth for a serving certificate, clientAuth for a client identity (kubeadm sets exactly one or both). */
  extendedKeyUsages: ('serverAuth' | 'clientAuth')[];
  altNames?: AltNames;
}

const EC_P256 = { name: 'ECDSA', namedCurve: 'P-256' } as const;

let x509Module: Promise<typeof X509> | undefined;

/** @peculiar/x509 costs ~100 ms to load; only generation needs it, so it is loaded on first use. */
export function loadX509(): Promise<typeof X509> {
  // A bundler may hand the CommonJS build over as the namespace's default export only.
  x509Module ??= import('reflect-metadata')
    .then(() => import('@peculiar/x509'))
    .then((m) => ('X509CertificateGenerator' in m ? m : (m as { default: typeof X509 }).default));
  return x509Module;
}

/** A self-signed CA (ECDSA P-256) with kubeadm's extensions: CA basic constraints, keyCertSign usage. */
export async function createCertificateAuthority(spec: CertificateSpec): Promise<CertificateAuthority> {
  const x509 = await loadX509();
  const keys = await crypto.subtle.generateKey(EC_P256, true, ['sign', 'verify']);
  const certificate = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: randomSerial(),
    name: subjectName(spec),
    notBefore: spec.notBefore,
    notAfter: spec.notAfter,
    signingAlgorithm: { name: 'ECDSA', hash: 'SHA-256' },
    keys,
    extensions: [
      new x509.BasicConstraintsExtension(true, undefined, true),
      new x509.KeyUsagesExtension(keyUsages(x509, true), true),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
      // client-go's self-signed CA also names its common name as a DNS SAN.
      new x509.SubjectAlternativeNameExtension([{ type: 'dns', value: spec.commonName }]),
    ],
  });
  return { certPem: certificate.toString('pem'), keyPem: await exportKey(x509, keys.privateKey) };
}

/** A new ECDSA P-256 key and a certificate for it signed by `ca`, with kubeadm's usages for a leaf. */
export async function signCertificate(ca: CertificateAuthority, spec: LeafSpec): Promise<CertificateAndKey> {
  const x509 = await loadX509();
  const [{ caCertificate, signer, authorityKeyId }, keys] = await Promise.all([
    issuerOf(x509, ca),
    crypto.subtle.generateKey(EC_P256, true, ['sign', 'verify']),
  ]);
  const extensions: X509.Extension[] = [
    new x509.BasicConstraintsExtension(false, undefined, true),
    new x509.KeyUsagesExtension(keyUsages(x509, false), true),
    new x509.ExtendedKeyUsageExtension(spec.extendedKeyUsages.map((usage) => x509.ExtendedKeyUsage[usage])),
    authorityKeyId,
  ];
  const names = [
    ...(spec.altNames?.dnsNames ?? []).map((value) => ({ type: 'dns' as const, value })),
    ...(spec.altNames?.ips ?? []).map((value) => ({ type: 'ip' as const, value })),
  ];
  if (names.length > 0) extensions.push(new x509.SubjectAlternativeNameExtension(names));
  const certificate = await x509.X509CertificateGenerator.create({
    serialNumber: randomSerial(),
    subject: subjectName(spec),
    // The issuer is copied byte for byte from the CA's subject: Go matches issuer to subject on the raw bytes.
    issuer: caCertificate.subjectName,
    notBefore: spec.notBefore,
    notAfter: spec.notAfter,
    signingAlgorithm: signer.algorithm,
    publicKey: keys.publicKey,
    signingKey: signer.key,
    extensions,
  });
  return { certPem: certificate.toString('pem'), keyPem: await exportKey(x509, keys.privateKey) };
}

interface Issuer {
  caCertificate: X509.X509Certificate;
  signer: SigningKey;
  authorityKeyId: X509.AuthorityKeyIdentifierExtension;
}

/** The CA that signed last, parsed and with its key imported: a start-up signs several leaves with one CA. */
let lastIssuer: { certPem: string; keyPem: string; issuer: Promise<Issuer> } | undefined;

function issuerOf(x509: typeof X509, ca: CertificateAuthority): Promise<Issuer> {
  if (lastIssuer?.certPem !== ca.certPem || lastIssuer.keyPem !== ca.keyPem) {
    const caCertificate = new x509.X509Certificate(ca.certPem);
    const issuer = Promise.all([
      importSigningKey(ca.keyPem),
      x509.AuthorityKeyIdentifierExtension.create(caCertificate),
    ]).then(([signer, authorityKeyId]) => ({ caCertificate, signer, authorityKeyId }));
    lastIssuer = { certPem: ca.certPem, keyPem: ca.keyPem, issuer };
  }
  return lastIssuer.issuer;
}

/** kubeadm's key usages: digitalSignature and keyEncipherment, plus keyCertSign for a CA. */
function keyUsages(x509: typeof X509, ca: boolean): X509.KeyUsageFlags {
  const flags = x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment;
  return ca ? flags | x509.KeyUsageFlags.keyCertSign : flags;
}

/** Organizations before the common name, in the order Go's pkix.Name writes them. */
function subjectName(spec: CertificateSpec): X509.JsonName {
  return [...(spec.organizations ?? []).map((o) => ({ O: [o] })), { CN: [spec.commonName] }];
}

/** 8 random bytes as a positive, non-zero serial number. */
function randomSerial(): string {
  const bytes = randomBytes(8);
  bytes[0] = ((bytes[0] ?? 0) & 0x7f) | 0x01;
  return bytes.toString('hex');
}

async function exportKey(x509: typeof X509, key: CryptoKey): Promise<string> {
  return x509.PemConverter.encode(await crypto.subtle.exportKey('pkcs8', key), 'PRIVATE KEY');
}

const WEBCRYPTO_CURVES: Record<string, string | undefined> = { prime256v1: 'P-256', secp384r1: 'P-384' };

export interface SigningKey {
  key: CryptoKey;
  algorithm: Algorithm;
}

/** Imports a CA key in any PEM form OpenSSL reads (PKCS#8, SEC1 `EC PRIVATE KEY`, PKCS#1 RSA) for WebCrypto. */
export async function importSigningKey(pem: string): Promise<SigningKey> {
  const keyObject = createPrivateKey(pem);
  const der = keyObject.export({ type: 'pkcs8', format: 'der' });
  if (keyObject.asymmetricKeyType === 'rsa') {
    const algorithm = { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' };
    return { key: await crypto.subtle.importKey('pkcs8', der, algorithm, false, ['sign']), algorithm };
  }
  const curve = WEBCRYPTO_CURVES[keyObject.asymmetricKeyDetails?.namedCurve ?? ''];
  if (keyObject.asymmetricKeyType !== 'ec' || curve === undefined) {
    throw new Error('the CA key must be RSA or ECDSA P-256/P-384');
  }
  const hash = curve === 'P-384' ? 'SHA-384' : 'SHA-256';
  const key = await crypto.subtle.importKey('pkcs8', der, { name: 'ECDSA', namedCurve: curve }, false, ['sign']);
  return { key, algorithm: { name: 'ECDSA', hash } as Algorithm };
}
