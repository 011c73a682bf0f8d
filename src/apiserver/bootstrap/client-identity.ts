import { X509Certificate } from 'node:crypto';
import type { PeerCertificate } from 'node:tls';

/** Who a client certificate says its holder is: the user is the subject's CN, the groups its O values. */
export interface ClientIdentity {
  user: string;
  groups: string[];
}

/**
 * Reads the identity of a client certificate as kube-apiserver's x509 authenticator does: CN is the user name (the
 * last CN if there are several, as Go reads a subject), every O is a group, in order. A certificate without a CN
 * identifies no one and gives undefined. This only reads: the TLS layer must have verified the chain first (check
 * `socket.authorized`).
 */
export function parseClientIdentity(
  certificate: PeerCertificate | X509Certificate | Uint8Array,
): ClientIdentity | undefined {
  const subject = subjectOf(certificate);
  if (subject === undefined) return undefined;
  const user = values(subject.CN).at(-1);
  if (user === undefined || user === '') return undefined;
  return { user, groups: values(subject.O) };
}

type Subject = Record<string, string | string[] | undefined>;

function subjectOf(certificate: PeerCertificate | X509Certificate | Uint8Array): Subject | undefined {
  if (certificate instanceof X509Certificate) return certificate.toLegacyObject().subject as Subject | undefined;
  if (certificate instanceof Uint8Array) return new X509Certificate(certificate).toLegacyObject().subject as Subject;
  // An empty object is what getPeerCertificate() returns when the client sent no certificate.
  return (certificate.subject as Subject | undefined) ?? undefined;
}

/** Node gives one value as a string and repeated ones as an array. */
function values(value: string | string[] | undefined): string[] {
  if (value === undefined) return [];
  return Array.isArray(value) ? value : [value];
}
