/**
 * TLS for test servers on loopback: a CA made on the spot and a serving certificate it signed for 127.0.0.1,
 * localhost and any extra DNS names (e.g. `<service>.<namespace>.svc`), valid from a minute ago for a day.
 */
import { type CertificateAndKey, createCertificateAuthority, signCertificate } from '../util/certificates.js';

export interface LoopbackTLS {
  ca: CertificateAndKey;
  serving: CertificateAndKey;
}

export async function loopbackServingTLS(opts: {
  caName: string;
  name: string;
  dnsNames?: string[];
}): Promise<LoopbackTLS> {
  const notBefore = new Date(Date.now() - 60_000);
  const notAfter = new Date(Date.now() + 24 * 3600_000);
  const ca = await createCertificateAuthority({ commonName: opts.caName, notBefore, notAfter });
  const serving = await signCertificate(ca, {
    commonName: opts.name,
    notBefore,
    notAfter,
    extendedKeyUsages: ['serverAuth'],
    altNames: { dnsNames: ['localhost', ...(opts.dnsNames ?? [])], ips: ['127.0.0.1'] },
  });
  return { ca, serving };
}
