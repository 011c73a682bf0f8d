/**
 * Upstream's certificates/authority: a CA that signs a PKCS#10 request under PermissiveSigningPolicy — the
 * request's subject and subjectAltNames, the usages the CSR asks for as key usage and extended key usage, no other
 * extensions, not a CA; valid from now minus the backdate; until now plus the TTL (minus the backdate when the TTL
 * is not short), never past the CA's own expiry; a CA that has expired signs nothing.
 */
import { randomBytes, X509Certificate } from 'node:crypto';
import type * as X509 from '@peculiar/x509';
import type { CertificateRequestInfo } from '../../api/certificates/csr.js';
import { type CertificateAuthority, importSigningKey, loadX509 } from '../../util/certificates.js';

export interface SigningPolicy {
  /** The certificate's lifetime, ms. */
  ttlMs: number;
  usages: readonly string[];
  /** How far NotBefore is set back, ms (upstream: 5 minutes). */
  backdateMs: number;
  /** TTLs below this are short: NotAfter is not backdated (upstream: 8 hours). */
  shortMs: number;
  now: number;
}

type KeyUsageName =
  | 'digitalSignature'
  | 'nonRepudiation'
  | 'keyEncipherment'
  | 'dataEncipherment'
  | 'keyAgreement'
  | 'keyCertSign'
  | 'cRLSign'
  | 'encipherOnly'
  | 'decipherOnly';

/** Upstream's keyUsageDict. */
const KEY_USAGES: Record<string, KeyUsageName> = {
  signing: 'digitalSignature',
  'digital signature': 'digitalSignature',
  'content commitment': 'nonRepudiation',
  'key encipherment': 'keyEncipherment',
  'key agreement': 'keyAgreement',
  'data encipherment': 'dataEncipherment',
  'cert sign': 'keyCertSign',
  'crl sign': 'cRLSign',
  'encipher only': 'encipherOnly',
  'decipher only': 'decipherOnly',
};

/** Upstream's extKeyUsageDict, as object identifiers. */
const EXT_KEY_USAGES: Record<string, string> = {
  any: '2.5.29.37.0',
  'server auth': '1.3.6.1.5.5.7.3.1',
  'client auth': '1.3.6.1.5.5.7.3.2',
  'code signing': '1.3.6.1.5.5.7.3.3',
  'email protection': '1.3.6.1.5.5.7.3.4',
  's/mime': '1.3.6.1.5.5.7.3.4',
  'ipsec end system': '1.3.6.1.5.5.7.3.5',
  'ipsec tunnel': '1.3.6.1.5.5.7.3.6',
  'ipsec user': '1.3.6.1.5.5.7.3.7',
  timestamping: '1.3.6.1.5.5.7.3.8',
  'ocsp signing': '1.3.6.1.5.5.7.3.9',
  'microsoft sgc': '1.3.6.1.4.1.311.10.3.3',
  'netscape sgc': '2.16.840.1.113730.4.1',
};

/** Go's time.Time %v of the CA's NotAfter, for upstream's error texts. */
function goTimeText(ms: number): string {
  return `${new Date(ms)
    .toISOString()
    .replace('T', ' ')
    .replace(/\.\d+Z$/, '')} +0000 UTC`;
}

/** The certificate's validity under the policy, or the error upstream's policy returns. */
export function validityFor(policy: SigningPolicy, caNotAfter: number): { notBefore: number; notAfter: number } {
  const notBefore = policy.now - policy.backdateMs;
  let notAfter =
    policy.ttlMs < policy.shortMs ? policy.now + policy.ttlMs : policy.now + policy.ttlMs - policy.backdateMs;
  if (notAfter >= caNotAfter) notAfter = caNotAfter;
  if (notBefore >= caNotAfter) throw new Error(`the signer has expired: NotAfter=${goTimeText(caNotAfter)}`);
  if (policy.now >= caNotAfter) {
    throw new Error(`refusing to sign a certificate that expired in the past: NotAfter=${goTimeText(caNotAfter)}`);
  }
  return { notBefore, notAfter };
}

/** A CA loaded for signing. */
export class CertificateAuthoritySigner {
  private constructor(
    private readonly x509: typeof X509,
    private readonly caCertificate: X509.X509Certificate,
    private readonly signingKey: { key: CryptoKey; algorithm: Algorithm },
    readonly notAfter: number,
  ) {}

  static async load(ca: CertificateAuthority): Promise<CertificateAuthoritySigner> {
    const x509 = await loadX509();
    const notAfter = Date.parse(new X509Certificate(ca.certPem).validTo);
    return new CertificateAuthoritySigner(
      x509,
      new x509.X509Certificate(ca.certPem),
      await importSigningKey(ca.keyPem),
      notAfter,
    );
  }

  /** A PEM certificate for the request under the policy; throws (upstream's texts) when the policy refuses. */
  async sign(req: CertificateRequestInfo, policy: SigningPolicy): Promise<string> {
    const x509 = this.x509;
    const { notBefore, notAfter } = validityFor(policy, this.notAfter);
    const unknown = policy.usages.find((u) => !(u in KEY_USAGES) && !(u in EXT_KEY_USAGES));
    if (unknown !== undefined) throw new Error(`unrecognized usage: ${unknown}`);
    let flags = 0;
    for (const u of policy.usages) {
      const name = KEY_USAGES[u];
      if (name) flags |= x509.KeyUsageFlags[name];
    }
    const extUsages = [...new Set(policy.usages.map((u) => EXT_KEY_USAGES[u]).filter((o): o is string => !!o))];
    const extensions: X509.Extension[] = [new x509.BasicConstraintsExtension(false, undefined, true)];
    if (flags !== 0) extensions.push(new x509.KeyUsagesExtension(flags, true));
    if (extUsages.length > 0) extensions.push(new x509.ExtendedKeyUsageExtension(extUsages));
    extensions.push(await x509.AuthorityKeyIdentifierExtension.create(this.caCertificate));
    const names = [
      ...req.dnsNames.map((value) => ({ type: 'dns' as const, value })),
      ...req.emailAddresses.map((value) => ({ type: 'email' as const, value })),
      ...req.ipAddresses.map((value) => ({ type: 'ip' as const, value })),
      ...req.uris.map((value) => ({ type: 'url' as const, value })),
    ];
    if (names.length > 0) extensions.push(new x509.SubjectAlternativeNameExtension(names));
    const publicKey = new x509.PublicKey(new Uint8Array(req.publicKeySpki));
    const certificate = await x509.X509CertificateGenerator.create({
      serialNumber: serialNumber(),
      subject: req.subject,
      issuer: this.caCertificate.subjectName,
      notBefore: new Date(notBefore),
      notAfter: new Date(notAfter),
      signingAlgorithm: this.signingKey.algorithm,
      publicKey,
      signingKey: this.signingKey.key,
      extensions,
    });
    return certificate.toString('pem');
  }
}

/** A random positive 128-bit serial, as upstream's authority draws it. */
function serialNumber(): string {
  const bytes = randomBytes(16);
  bytes[0] = ((bytes[0] ?? 0) & 0x7f) | 0x01;
  return bytes.toString('hex');
}
