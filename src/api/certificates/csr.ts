/**
 * certificates.k8s.io facts shared by the apiserver (validation, admission) and kube-controller-manager (signing,
 * approving, cleaning): the well-known signer names, key usages, condition types, and a PKCS#10 request read from a
 * CSR's spec.request the way upstream's certificates.ParseCSR and x509.CertificateRequest see it.
 */
import { createPublicKey, verify } from 'node:crypto';
import type * as X509 from '@peculiar/x509';
import { loadX509 } from '../../util/certificates.js';
import { decodePem } from './pem.js';

export const CERTIFICATES_GROUP = 'certificates.k8s.io';

export const KUBE_APISERVER_CLIENT_SIGNER = 'kubernetes.io/kube-apiserver-client';
export const KUBE_APISERVER_CLIENT_KUBELET_SIGNER = 'kubernetes.io/kube-apiserver-client-kubelet';
export const KUBELET_SERVING_SIGNER = 'kubernetes.io/kubelet-serving';
export const LEGACY_UNKNOWN_SIGNER = 'kubernetes.io/legacy-unknown';

export const CONDITION_APPROVED = 'Approved';
export const CONDITION_DENIED = 'Denied';
export const CONDITION_FAILED = 'Failed';

/** Every key usage the API accepts (upstream's allValidUsages). */
export const ALL_KEY_USAGES: readonly string[] = [
  'signing',
  'digital signature',
  'content commitment',
  'key encipherment',
  'key agreement',
  'data encipherment',
  'cert sign',
  'crl sign',
  'encipher only',
  'decipher only',
  'any',
  'server auth',
  'client auth',
  'code signing',
  'email protection',
  's/mime',
  'ipsec end system',
  'ipsec tunnel',
  'ipsec user',
  'timestamping',
  'ocsp signing',
  'microsoft sgc',
  'netscape sgc',
];

/** A CSR's condition as stored. */
export interface CsrCondition {
  type?: string;
  status?: string;
  reason?: string;
  message?: string;
  lastUpdateTime?: string;
  lastTransitionTime?: string;
}

/** What of a CertificateSigningRequest object the helpers read. */
export interface CsrObject {
  metadata: { name?: string; creationTimestamp?: string };
  spec?: {
    request?: unknown;
    signerName?: unknown;
    usages?: unknown;
    expirationSeconds?: unknown;
    username?: unknown;
    uid?: unknown;
    groups?: unknown;
    extra?: unknown;
  };
  status?: { conditions?: unknown; certificate?: unknown };
}

export function csrConditions(csr: CsrObject): CsrCondition[] {
  const list = csr.status?.conditions;
  return Array.isArray(list) ? (list.filter((c) => c && typeof c === 'object') as CsrCondition[]) : [];
}

/** Whether the CSR has a condition of the type with status True (upstream's HasTrueCondition). */
export function hasTrueCondition(csr: CsrObject, type: string): boolean {
  return csrConditions(csr).some((c) => c.type === type && (c.status === 'True' || c.status === undefined));
}

/** Upstream's GetCertApprovalCondition. */
export function approvalState(csr: CsrObject): { approved: boolean; denied: boolean } {
  let approved = false;
  let denied = false;
  for (const c of csrConditions(csr)) {
    if (c.type === CONDITION_APPROVED) approved = true;
    if (c.type === CONDITION_DENIED) denied = true;
  }
  return { approved, denied };
}

/** Approved and not Denied (upstream's IsCertificateRequestApproved). */
export function isApproved(csr: CsrObject): boolean {
  const { approved, denied } = approvalState(csr);
  return approved && !denied;
}

export function csrUsages(csr: CsrObject): string[] {
  const u = csr.spec?.usages;
  return Array.isArray(u) ? u.filter((x): x is string => typeof x === 'string') : [];
}

export function csrSignerName(csr: CsrObject): string {
  return typeof csr.spec?.signerName === 'string' ? csr.spec.signerName : '';
}

/**
 * Go's base64.StdEncoding.DecodeString for a []byte field: the bytes, or the error text of an illegal input
 * ("illegal base64 data at input byte N").
 */
export function decodeBytesField(value: unknown): { bytes: Buffer } | { error: string } {
  if (value === undefined || value === null) return { bytes: Buffer.alloc(0) };
  if (typeof value !== 'string') return { error: 'json: cannot unmarshal into Go value of type []uint8' };
  const text = value.replace(/[\r\n]/g, '');
  const bad = text.search(/[^A-Za-z0-9+/=]/);
  if (bad >= 0) return { error: `illegal base64 data at input byte ${bad}` };
  const pad = text.indexOf('=');
  if (text.length % 4 !== 0 || (pad >= 0 && (pad < text.length - 2 || /[^=]/.test(text.slice(pad))))) {
    const at = pad >= 0 ? pad : text.length - (text.length % 4);
    return { error: `illegal base64 data at input byte ${at}` };
  }
  return { bytes: Buffer.from(text, 'base64') };
}

/** A PKCS#10 request as the checks need it (upstream's x509.CertificateRequest fields). */
export interface CertificateRequestInfo {
  commonName: string;
  organizations: string[];
  dnsNames: string[];
  ipAddresses: string[];
  emailAddresses: string[];
  uris: string[];
  /** The subject as @peculiar/x509 names it, for a certificate issued for this request. */
  subject: X509.Name;
  /** The public key, SubjectPublicKeyInfo DER. */
  publicKeySpki: Buffer;
  /** Whether the request's self-signature verifies with its own key. */
  signatureValid: boolean;
  /** Go's CheckSignature error text when the signature does not verify. */
  signatureError: string;
}

type X509Module = typeof X509;
let loaded: X509Module | undefined;

/** Loads the X.509 reader; parseCertificateRequest may be called once this has resolved. */
export async function loadCsrParser(): Promise<void> {
  loaded ??= await loadX509();
}

const SAN_OID = '2.5.29.17';

/**
 * Upstream's certificates.ParseCSR: the first PEM block must be a CERTIFICATE REQUEST that parses. Throws an Error
 * with upstream's text. Needs loadCsrParser() to have resolved.
 */
export function parseCertificateRequest(pemBytes: Buffer): CertificateRequestInfo {
  if (!loaded) throw new Error('the X.509 reader is not loaded');
  const x509 = loaded;
  const decoded = decodePem(pemBytes.toString('latin1'));
  if (decoded?.block.type !== 'CERTIFICATE REQUEST') {
    throw new Error('PEM block type must be CERTIFICATE REQUEST');
  }
  let req: X509.Pkcs10CertificateRequest;
  try {
    req = new x509.Pkcs10CertificateRequest(new Uint8Array(decoded.block.der));
  } catch {
    throw new Error('x509: malformed certificate request');
  }
  const subject = req.subjectName;
  const san = req.extensions.find((e) => e.type === SAN_OID) as X509.SubjectAlternativeNameExtension | undefined;
  const names = san?.names?.items ?? [];
  const ofType = (type: string) => names.filter((n) => n.type === type).map((n) => n.value);
  const spki = Buffer.from(req.publicKey.rawData);
  const { valid, error } = checkSignature(req, spki, signedPart(decoded.block.der));
  return {
    commonName: subject.getField('CN')[0] ?? '',
    organizations: subject.getField('O'),
    dnsNames: ofType('dns'),
    ipAddresses: ofType('ip'),
    emailAddresses: ofType('email'),
    uris: ofType('url'),
    subject,
    publicKeySpki: spki,
    signatureValid: valid,
    signatureError: error,
  };
}

const NODE_HASH: Record<string, string> = {
  'SHA-1': 'sha1',
  'SHA-256': 'sha256',
  'SHA-384': 'sha384',
  'SHA-512': 'sha512',
};

/** The length of a DER element at offset and where its content starts. */
function derHeader(der: Buffer, offset: number): { start: number; length: number } {
  const first = der[offset + 1] ?? 0;
  if (first < 0x80) return { start: offset + 2, length: first };
  const count = first & 0x7f;
  let length = 0;
  for (let i = 0; i < count; i++) length = length * 256 + (der[offset + 2 + i] ?? 0);
  return { start: offset + 2 + count, length };
}

/** The DER of certificationRequestInfo, the first element of the request's outer SEQUENCE: what is signed. */
function signedPart(der: Buffer): Buffer {
  const outer = derHeader(der, 0);
  const inner = derHeader(der, outer.start);
  return der.subarray(outer.start, inner.start + inner.length);
}

/** The request's self-signature checked with node's crypto (synchronously, unlike WebCrypto). */
function checkSignature(
  req: X509.Pkcs10CertificateRequest,
  spki: Buffer,
  data: Buffer,
): { valid: boolean; error: string } {
  try {
    const key = createPublicKey({ key: spki, format: 'der', type: 'spki' });
    const alg = req.signatureAlgorithm as { name: string; hash?: { name: string } };
    const hash = alg.hash ? NODE_HASH[alg.hash.name] : undefined;
    const failure =
      key.asymmetricKeyType === 'rsa'
        ? 'crypto/rsa: verification error'
        : key.asymmetricKeyType === 'ec'
          ? 'x509: ECDSA verification failure'
          : 'x509: Ed25519 verification failure';
    const signature = Buffer.from(req.signature);
    const ok =
      alg.name === 'RSA-PSS'
        ? verify(hash ?? 'sha256', data, { key, padding: 6 }, signature)
        : verify(key.asymmetricKeyType === 'ed25519' ? null : (hash ?? 'sha256'), data, key, signature);
    return ok ? { valid: true, error: '' } : { valid: false, error: failure };
  } catch {
    return { valid: false, error: 'x509: cannot verify signature: algorithm unimplemented' };
  }
}

const SORTED = (set: readonly string[]) => `[${[...set].sort().join(' ')}]`;
const KUBELET_CLIENT_USAGES = ['digital signature', 'key encipherment', 'client auth'];
const KUBELET_CLIENT_USAGES_NO_RSA = ['digital signature', 'client auth'];
const KUBELET_SERVING_USAGES = ['digital signature', 'key encipherment', 'server auth'];
const KUBELET_SERVING_USAGES_NO_RSA = ['digital signature', 'server auth'];

function sameSet(a: readonly string[], b: readonly string[]): boolean {
  const sa = new Set(a);
  const sb = new Set(b);
  return sa.size === sb.size && [...sa].every((x) => sb.has(x));
}

function isNodesOrganization(req: CertificateRequestInfo): boolean {
  return req.organizations.length === 1 && req.organizations[0] === 'system:nodes';
}

/** Upstream's ValidateKubeletClientCSR: undefined when the request is a kubelet's client certificate request. */
export function kubeletClientCsrError(req: CertificateRequestInfo, usages: readonly string[]): string | undefined {
  if (!isNodesOrganization(req)) return 'subject organization is not system:nodes';
  if (req.dnsNames.length > 0) return 'DNS subjectAltNames are not allowed';
  if (req.emailAddresses.length > 0) return 'Email subjectAltNames are not allowed';
  if (req.ipAddresses.length > 0) return 'IP subjectAltNames are not allowed';
  if (req.uris.length > 0) return 'URI subjectAltNames are not allowed';
  if (!req.commonName.startsWith('system:node:')) return 'subject common name does not begin with system:node:';
  if (!sameSet(usages, KUBELET_CLIENT_USAGES) && !sameSet(usages, KUBELET_CLIENT_USAGES_NO_RSA)) {
    return `usages did not match ${SORTED(KUBELET_CLIENT_USAGES)}`;
  }
  return undefined;
}

/** Upstream's ValidateKubeletServingCSR. */
export function kubeletServingCsrError(req: CertificateRequestInfo, usages: readonly string[]): string | undefined {
  if (!isNodesOrganization(req)) return 'subject organization is not system:nodes';
  if (req.dnsNames.length === 0 && req.ipAddresses.length === 0) return 'DNS or IP subjectAltName is required';
  if (req.emailAddresses.length > 0) return 'Email subjectAltNames are not allowed';
  if (req.uris.length > 0) return 'URI subjectAltNames are not allowed';
  if (!sameSet(usages, KUBELET_SERVING_USAGES) && !sameSet(usages, KUBELET_SERVING_USAGES_NO_RSA)) {
    return `usages did not match ${SORTED(KUBELET_SERVING_USAGES)}`;
  }
  if (!req.commonName.startsWith('system:node:')) return 'subject common name does not begin with system:node:';
  return undefined;
}

/** Upstream's validAPIServerClientUsages for kubernetes.io/kube-apiserver-client. */
export function apiserverClientUsagesError(usages: readonly string[]): string | undefined {
  let clientAuth = false;
  for (const u of usages) {
    if (u === 'digital signature' || u === 'key encipherment') continue;
    if (u === 'client auth') clientAuth = true;
    else return `invalid usage for client certificate: ${u}`;
  }
  return clientAuth ? undefined : 'missing required usage for client certificate: client auth';
}

/** The request of a CSR object (spec.request decoded and parsed); throws with upstream's text when it is not one. */
export function requestOfCsr(csr: CsrObject): CertificateRequestInfo {
  const decoded = decodeBytesField(csr.spec?.request);
  if ('error' in decoded) throw new Error(decoded.error);
  return parseCertificateRequest(decoded.bytes);
}
