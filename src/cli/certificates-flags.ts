/**
 * kube-controller-manager's certificate flags: the CA each csrsigning signer signs with
 * (--cluster-signing-cert-file/--cluster-signing-key-file for all of them, or the per-signer
 * --cluster-signing-<signer>-cert-file/-key-file pairs, not both), --cluster-signing-duration, and
 * --service-account-private-key-file for the serviceaccount token controller.
 */
import { readFile } from 'node:fs/promises';
import type { ClusterSigningCAs, ControllerManagerOptions } from '../controllers/options.js';
import type { CertificateAuthority } from '../util/certificates.js';
import { parseDuration } from '../util/duration.js';
import { UsageError } from './storage-flags.js';

const SIGNERS: readonly [keyof ClusterSigningCAs, string][] = [
  ['kubeletServing', 'kubelet-serving'],
  ['kubeletClient', 'kubelet-client'],
  ['kubeApiserverClient', 'kube-apiserver-client'],
  ['legacyUnknown', 'legacy-unknown'],
];

export const certificatesFlagSpec = {
  'cluster-signing-cert-file': { type: 'string' },
  'cluster-signing-key-file': { type: 'string' },
  'cluster-signing-duration': { type: 'string' },
  'service-account-private-key-file': { type: 'string' },
  ...Object.fromEntries(
    SIGNERS.flatMap(([, flag]) => [
      [`cluster-signing-${flag}-cert-file`, { type: 'string' }],
      [`cluster-signing-${flag}-key-file`, { type: 'string' }],
    ]),
  ),
} as const;

export const certificatesFlagsHelp = `  --cluster-signing-cert-file F / --cluster-signing-key-file F   CA the CSR signers sign with
  --cluster-signing-<signer>-cert-file F / -key-file F   per signer (kubelet-serving, kubelet-client,
                                         kube-apiserver-client, legacy-unknown), instead of the pair above
  --cluster-signing-duration D           longest certificate the signers issue (default 8760h0m0s)
  --service-account-private-key-file F   key the serviceaccount token controller signs tokens with`;

async function readPair(
  values: Record<string, string | undefined>,
  prefix: string,
): Promise<CertificateAuthority | undefined> {
  const certFile = values[`${prefix}-cert-file`];
  const keyFile = values[`${prefix}-key-file`];
  if (!certFile && !keyFile) return undefined;
  if (!certFile || !keyFile)
    throw new UsageError(`--${prefix}-cert-file and --${prefix}-key-file must be set together`);
  try {
    return { certPem: await readFile(certFile, 'utf8'), keyPem: await readFile(keyFile, 'utf8') };
  } catch (err) {
    throw new UsageError(`cannot read the CA of --${prefix}-cert-file: ${(err as Error).message}`);
  }
}

/** Fills options from the certificate flags (files read here); throws UsageError on a bad combination. */
export async function applyCertificatesFlags(
  values: Record<string, string | undefined>,
  options: ControllerManagerOptions,
): Promise<void> {
  const duration = values['cluster-signing-duration'];
  if (duration !== undefined) {
    try {
      options.clusterSigningDurationMs = parseDuration(duration);
    } catch {
      throw new UsageError(
        `invalid argument "${duration}" for "--cluster-signing-duration" flag: time: invalid duration "${duration}"`,
      );
    }
  }
  const general = await readPair(values, 'cluster-signing');
  const specific: ClusterSigningCAs = {};
  for (const [key, flag] of SIGNERS) {
    const pair = await readPair(values, `cluster-signing-${flag}`);
    if (pair) specific[key] = pair;
  }
  if (general && Object.keys(specific).length > 0) {
    throw new UsageError(
      'cannot specify --cluster-signing-{cert,key}-file and other --cluster-signing-*-file flags at the same time',
    );
  }
  if (general) {
    options.clusterSigning = Object.fromEntries(SIGNERS.map(([key]) => [key, general])) as ClusterSigningCAs;
  } else if (Object.keys(specific).length > 0) {
    options.clusterSigning = specific;
  }
  const saKey = values['service-account-private-key-file'];
  if (saKey) options.serviceAccountPrivateKeyPem = await readFile(saKey, 'utf8');
}
