/**
 * The scheduler's serving certificate when none is given (upstream generates a self-signed one for
 * --secure-port when --tls-cert-file is not set): ECDSA P-256, CN `localhost@<unix seconds>`, valid a year,
 * for localhost, 127.0.0.1, ::1 and the host's name.
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';

export interface ServingCert {
  certPem: string;
  keyPem: string;
}

export async function selfSignedServingCert(extraHosts: string[] = []): Promise<ServingCert> {
  await import('reflect-metadata');
  const x509 = await import('@peculiar/x509');
  const alg = { name: 'ECDSA', namedCurve: 'P-256' } as const;
  const keys = (await crypto.subtle.generateKey(alg, true, ['sign', 'verify'])) as CryptoKeyPair;
  const now = Date.now();
  const dns = [...new Set(['localhost', hostname(), ...extraHosts.filter((h) => !/^[\d.:]+$/.test(h))])];
  const ips = [...new Set(['127.0.0.1', '::1', ...extraHosts.filter((h) => /^[\d.:]+$/.test(h))])];
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: randomBytes(16)
      .toString('hex')
      .replace(/^[89a-f]/, '1'),
    name: `CN=localhost@${Math.floor(now / 1000)}`,
    notBefore: new Date(now - 60_000),
    notAfter: new Date(now + 365 * 24 * 3600_000),
    signingAlgorithm: { name: 'ECDSA', hash: 'SHA-256' },
    keys,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
      new x509.SubjectAlternativeNameExtension([
        ...dns.map((value) => ({ type: 'dns' as const, value })),
        ...ips.map((value) => ({ type: 'ip' as const, value })),
      ]),
    ],
  });
  const pkcs8 = await crypto.subtle.exportKey('pkcs8', keys.privateKey);
  const b64 = Buffer.from(pkcs8)
    .toString('base64')
    .replace(/(.{64})/g, '$1\n');
  const keyPem = `-----BEGIN PRIVATE KEY-----\n${b64.replace(/\n$/, '')}\n-----END PRIVATE KEY-----\n`;
  return { certPem: cert.toString('pem'), keyPem };
}
