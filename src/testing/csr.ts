/**
 * Certificate signing requests for tests: a fresh key (ECDSA P-256, or RSA 2048 as a kubelet's may be) and a
 * PKCS#10 request for it (what `openssl req -new` makes), and a CertificateSigningRequest object around it.
 */
import { loadX509 } from '../util/certificates.js';

export interface CsrSubject {
  commonName: string;
  organizations?: string[];
  dnsNames?: string[];
  ips?: string[];
  /** The key's algorithm (default ECDSA). */
  keyAlgorithm?: 'ECDSA' | 'RSA';
}

/** A key and a CSR (both PEM) for the subject. */
export async function makeCertificateRequest(subject: CsrSubject): Promise<{ csrPem: string; keyPem: string }> {
  const x509 = await loadX509();
  const alg =
    subject.keyAlgorithm === 'RSA'
      ? { name: 'RSASSA-PKCS1-v1_5', modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: 'SHA-256' }
      : { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
  const keys = await crypto.subtle.generateKey(alg, true, ['sign', 'verify']);
  const names = [
    ...(subject.dnsNames ?? []).map((value) => ({ type: 'dns' as const, value })),
    ...(subject.ips ?? []).map((value) => ({ type: 'ip' as const, value })),
  ];
  const csr = await x509.Pkcs10CertificateRequestGenerator.create({
    name: [...(subject.organizations ?? []).map((o) => ({ O: [o] })), { CN: [subject.commonName] }],
    keys,
    signingAlgorithm: alg,
    extensions: names.length > 0 ? [new x509.SubjectAlternativeNameExtension(names)] : [],
  });
  const pkcs8 = await crypto.subtle.exportKey('pkcs8', keys.privateKey);
  return { csrPem: csr.toString('pem'), keyPem: x509.PemConverter.encode(pkcs8, 'PRIVATE KEY') };
}

/** A certificates.k8s.io/v1 CertificateSigningRequest for a PEM request. */
export function csrObject(
  name: string,
  csrPem: string,
  opts: { signerName?: string; usages?: string[]; expirationSeconds?: number } = {},
): Record<string, unknown> {
  return {
    apiVersion: 'certificates.k8s.io/v1',
    kind: 'CertificateSigningRequest',
    metadata: { name },
    spec: {
      request: Buffer.from(csrPem).toString('base64'),
      signerName: opts.signerName ?? 'kubernetes.io/kube-apiserver-client',
      usages: opts.usages ?? ['client auth'],
      ...(opts.expirationSeconds !== undefined ? { expirationSeconds: opts.expirationSeconds } : {}),
    },
  };
}
