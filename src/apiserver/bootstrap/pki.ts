import { createPrivateKey, createPublicKey, X509Certificate } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import {
  type CertificateAndKey,
  type CertificateAuthority,
  createCertificateAuthority,
  signCertificate,
} from '../../util/certificates.js';
import type { Clock } from '../../util/clock.js';
import {
  type AltNames,
  type ApiserverAltNameOptions,
  altNamesOf,
  apiserverAltNames,
  coversAltNames,
} from './alt-names.js';
import { type ClientIdentity, parseClientIdentity } from './client-identity.js';
import { pemPairPaths, readPemFile, readPemPair, writePemPair } from './pem-files.js';

export type { CertificateAndKey, CertificateAuthority } from '../../util/certificates.js';
export { type ClientIdentity, parseClientIdentity } from './client-identity.js';

const DAY_MS = 24 * 60 * 60 * 1000;
/** kubeadm backdates certificates by five minutes so that small clock differences do not make them "not yet valid". */
const BACKDATE_MS = 5 * 60 * 1000;
const CA_VALIDITY_DAYS = 3650;
const LEAF_VALIDITY_DAYS = 365;
/** A leaf certificate that expires sooner than this is issued again at start-up. */
const RENEW_BEFORE_MS = 30 * DAY_MS;

export const CA_COMMON_NAME = 'wheelhouse-ca';
export const APISERVER_COMMON_NAME = 'kube-apiserver';
export const ADMIN_USER = 'kubernetes-admin';
export const MASTERS_GROUP = 'system:masters';
/** The users kube-controller-manager and kube-scheduler authenticate as (upstream's bootstrap RBAC names them). */
export const CONTROLLER_MANAGER_USER = 'system:kube-controller-manager';
export const SCHEDULER_USER = 'system:kube-scheduler';

export interface PkiOptions extends ApiserverAltNameOptions {
  clock?: Pick<Clock, 'now'>;
}

/** What `ensurePki` leaves in the directory: `ca`, `apiserver` and `admin`, each a `.crt` and a `.key`. */
export interface Pki {
  dir: string;
  ca: CertificateAuthority;
  /** The serving certificate of the apiserver (serverAuth) and its key. */
  apiserver: CertificateAndKey;
  /** The cluster administrator's client certificate: CN kubernetes-admin, O system:masters. */
  admin: CertificateAndKey;
  /** kube-controller-manager's client certificate: CN system:kube-controller-manager. */
  controllerManager: CertificateAndKey;
  /** kube-scheduler's client certificate: CN system:kube-scheduler. */
  scheduler: CertificateAndKey;
  /** The pairs written by this call; empty when everything on disk was reused. */
  generated: ('ca' | 'apiserver' | 'admin' | 'controller-manager' | 'scheduler')[];
}

/**
 * Loads the cluster's certificates from `dir`, creating what is missing. A new CA means new leaves; the serving
 * certificate is issued again when it does not carry every requested name, and any leaf that is unreadable, does
 * not match its key, was not signed by the CA, or expires within 30 days is issued again.
 */
export async function ensurePki(dir: string, options: PkiOptions = {}): Promise<Pki> {
  const now = options.clock?.now() ?? Date.now();
  const altNames = apiserverAltNames(options);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const generated: Pki['generated'] = [];
  let ca = await loadCertificateAuthority(dir, now);
  if (ca === undefined) {
    const notBefore = now - BACKDATE_MS;
    ca = await createCertificateAuthority({
      commonName: CA_COMMON_NAME,
      notBefore: new Date(notBefore),
      notAfter: new Date(notBefore + CA_VALIDITY_DAYS * DAY_MS),
    });
    await writePemPair(dir, 'ca', ca);
    generated.push('ca');
  }
  const authority = ca;
  const caCertificate = new X509Certificate(ca.certPem);
  const [apiserver, admin, controllerManager, scheduler] = await Promise.all([
    ensureLeaf(dir, 'apiserver', caCertificate, now, {
      fits: (certificate) => coversAltNames(altNamesOf(certificate), altNames),
      issue: () => issueServingCertificate(authority, altNames, now),
    }),
    ensureLeaf(dir, 'admin', caCertificate, now, {
      fits: (certificate) => isAdminIdentity(parseClientIdentity(certificate)),
      issue: () => issueClientCertificate(authority, { commonName: ADMIN_USER, organizations: [MASTERS_GROUP], now }),
    }),
    componentLeaf(dir, 'controller-manager', CONTROLLER_MANAGER_USER, authority, caCertificate, now),
    componentLeaf(dir, 'scheduler', SCHEDULER_USER, authority, caCertificate, now),
  ]);
  if (apiserver.generated) generated.push('apiserver');
  if (admin.generated) generated.push('admin');
  if (controllerManager.generated) generated.push('controller-manager');
  if (scheduler.generated) generated.push('scheduler');
  return {
    dir,
    ca,
    apiserver: apiserver.pair,
    admin: admin.pair,
    controllerManager: controllerManager.pair,
    scheduler: scheduler.pair,
    generated,
  };
}

export interface ClientCertificateOptions {
  /** The user name (CN), e.g. `system:kube-scheduler` or `system:node:<name>`. */
  commonName: string;
  /** The groups (O), e.g. `system:nodes`. */
  organizations?: string[];
  /** Default 365, as kubeadm. */
  validityDays?: number;
  /** Issue time in milliseconds since the epoch; default now. */
  now?: number;
}

/** A client certificate (clientAuth) for a component or user, signed by the cluster CA. */
export function issueClientCertificate(
  ca: CertificateAuthority,
  options: ClientCertificateOptions,
): Promise<CertificateAndKey> {
  const notBefore = (options.now ?? Date.now()) - BACKDATE_MS;
  return signCertificate(ca, {
    commonName: options.commonName,
    organizations: options.organizations ?? [],
    notBefore: new Date(notBefore),
    notAfter: new Date(notBefore + (options.validityDays ?? LEAF_VALIDITY_DAYS) * DAY_MS),
    extendedKeyUsages: ['clientAuth'],
  });
}

/** The apiserver's serving certificate (serverAuth), CN kube-apiserver as kubeadm names it. */
export function issueServingCertificate(
  ca: CertificateAuthority,
  altNames: AltNames,
  now = Date.now(),
): Promise<CertificateAndKey> {
  const notBefore = now - BACKDATE_MS;
  return signCertificate(ca, {
    commonName: APISERVER_COMMON_NAME,
    notBefore: new Date(notBefore),
    notAfter: new Date(notBefore + LEAF_VALIDITY_DAYS * DAY_MS),
    extendedKeyUsages: ['serverAuth'],
    altNames,
  });
}

/** The CA on disk, undefined when there is no `ca.crt`; a CA that cannot be used is an error, never replaced. */
async function loadCertificateAuthority(dir: string, now: number): Promise<CertificateAuthority | undefined> {
  const { certFile, keyFile } = pemPairPaths(dir, 'ca');
  const certPem = await readPemFile(certFile);
  if (certPem === undefined) return undefined;
  const keyPem = await readPemFile(keyFile);
  if (keyPem === undefined) throw new Error(`${certFile} exists but ${keyFile} does not; wheelhouse needs the CA key`);
  let certificate: X509Certificate;
  try {
    certificate = new X509Certificate(certPem);
  } catch (error) {
    throw new Error(`cannot read the cluster CA certificate ${certFile}: ${(error as Error).message}`);
  }
  if (!certificate.ca) throw new Error(`${certFile} is not a CA certificate`);
  if (Date.parse(certificate.validTo) <= now) {
    throw new Error(`the cluster CA in ${certFile} expired on ${certificate.validTo}; remove ${dir} to start over`);
  }
  if (!keyMatches(certificate, keyPem)) throw new Error(`${keyFile} is not the key of ${certFile}`);
  return { certPem, keyPem };
}

interface LeafPolicy {
  /** Whether a certificate that is otherwise fine is the one wanted (names, subject). */
  fits: (certificate: X509Certificate) => boolean;
  issue: () => Promise<CertificateAndKey>;
}

/** The pair on disk when it is usable and fits, otherwise a newly issued one, written in its place. */
/** A component's client certificate: its user as CN, no groups. */
function componentLeaf(
  dir: string,
  name: string,
  user: string,
  authority: CertificateAuthority,
  ca: X509Certificate,
  now: number,
): Promise<{ pair: CertificateAndKey; generated: boolean }> {
  return ensureLeaf(dir, name, ca, now, {
    fits: (certificate) => parseClientIdentity(certificate)?.user === user,
    issue: () => issueClientCertificate(authority, { commonName: user, now }),
  });
}

async function ensureLeaf(
  dir: string,
  name: string,
  ca: X509Certificate,
  now: number,
  policy: LeafPolicy,
): Promise<{ pair: CertificateAndKey; generated: boolean }> {
  const existing = await readPemPair(dir, name);
  if (existing !== undefined && isUsableLeaf(existing, ca, now, policy.fits)) {
    return { pair: existing, generated: false };
  }
  const pair = await policy.issue();
  await writePemPair(dir, name, pair);
  return { pair, generated: true };
}

function isUsableLeaf(
  pair: CertificateAndKey,
  ca: X509Certificate,
  now: number,
  fits: (certificate: X509Certificate) => boolean,
): boolean {
  try {
    const certificate = new X509Certificate(pair.certPem);
    return (
      certificate.checkIssued(ca) &&
      certificate.verify(ca.publicKey) &&
      Date.parse(certificate.validTo) - now > RENEW_BEFORE_MS &&
      keyMatches(certificate, pair.keyPem) &&
      fits(certificate)
    );
  } catch {
    return false;
  }
}

function isAdminIdentity(identity: ClientIdentity | undefined): boolean {
  return identity?.user === ADMIN_USER && identity.groups.join(',') === MASTERS_GROUP;
}

function keyMatches(certificate: X509Certificate, keyPem: string): boolean {
  const fromKey = createPublicKey(createPrivateKey(keyPem)).export({ type: 'spki', format: 'der' });
  return fromKey.equals(certificate.publicKey.export({ type: 'spki', format: 'der' }));
}
