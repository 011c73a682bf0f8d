/**
 * `wheelhouse kubeconfig --user NAME [--group G]... [--expiration D]`: a kubeconfig for a new user, with a client
 * certificate (CN = the user, O = each group) signed directly by the data directory's cluster CA — the shortcut for
 * what the CertificateSigningRequest flow (key, CSR, approve, kubeconfig) gives a user. Who may do what is still up
 * to RBAC.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { issueClientCertificate } from '../apiserver/bootstrap/pki.js';
import { buildKubeconfig, type Kubeconfig, kubeconfigToYaml } from '../client/kubeconfig.js';
import { parseDuration } from '../util/duration.js';
import { UsageError } from './storage-flags.js';

const DAY_MS = 24 * 3600_000;

export interface UserKubeconfigOptions {
  dataDir: string;
  user: string;
  groups: readonly string[];
  /** A Go duration (`24h`, `8760h`); default a year, as kubeadm's client certificates. */
  expiration?: string | undefined;
}

/** The kubeconfig text for the user, against the cluster of the data directory's admin kubeconfig. */
export async function userKubeconfig(opts: UserKubeconfigOptions): Promise<string> {
  if (opts.user.trim() === '') throw new UsageError('--user must name a user');
  if (opts.groups.includes('system:masters')) {
    throw new UsageError('refusing to mint a system:masters certificate; use the admin kubeconfig for that');
  }
  let validityMs = 365 * DAY_MS;
  if (opts.expiration !== undefined) {
    try {
      validityMs = parseDuration(opts.expiration);
    } catch {
      throw new UsageError(
        `invalid argument "${opts.expiration}" for "--expiration" flag: time: invalid duration "${opts.expiration}"`,
      );
    }
    if (validityMs < 600_000) throw new UsageError('--expiration must be at least 10m');
  }
  const pki = join(opts.dataDir, 'pki');
  let admin: Kubeconfig;
  let ca: { certPem: string; keyPem: string };
  try {
    const { parse } = await import('yaml');
    admin = parse(await readFile(join(opts.dataDir, 'kubeconfig'), 'utf8'), { version: '1.1' }) as Kubeconfig;
    ca = {
      certPem: await readFile(join(pki, 'ca.crt'), 'utf8'),
      keyPem: await readFile(join(pki, 'ca.key'), 'utf8'),
    };
  } catch {
    throw new UsageError(`no cluster in ${opts.dataDir}: start it first with wheelhouse up`);
  }
  const server = admin.clusters[0]?.cluster.server;
  if (!server) throw new UsageError(`the kubeconfig in ${opts.dataDir} names no server`);
  const pair = await issueClientCertificate(ca, {
    commonName: opts.user,
    organizations: [...opts.groups],
    validityDays: validityMs / DAY_MS,
  });
  return kubeconfigToYaml(
    buildKubeconfig({
      server,
      caPem: ca.certPem,
      certPem: pair.certPem,
      keyPem: pair.keyPem,
      userName: opts.user,
      contextName: `${opts.user}@wheelhouse`,
    }),
  );
}
