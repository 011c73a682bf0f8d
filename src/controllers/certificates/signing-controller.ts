/**
 * kube-controller-manager's certificatesigningrequest-signing-controller (upstream's pkg/controller/certificates/
 * signer): one signing loop per well-known signer that has a CA configured — kubernetes.io/kube-apiserver-client,
 * kube-apiserver-client-kubelet, kubelet-serving and legacy-unknown. A loop signs the approved, not failed CSRs of
 * its signer: it checks the request against the signer's rules (client usages; kubelet subjects, SANs and usages)
 * and marks a request that breaks them Failed (SignerValidationFailure); otherwise it writes status.certificate,
 * valid for --cluster-signing-duration or the CSR's shorter expirationSeconds (at least 10 minutes).
 */
import {
  apiserverClientUsagesError,
  type CertificateRequestInfo,
  CONDITION_FAILED,
  type CsrObject,
  csrSignerName,
  csrUsages,
  hasTrueCondition,
  isApproved,
  KUBE_APISERVER_CLIENT_KUBELET_SIGNER,
  KUBE_APISERVER_CLIENT_SIGNER,
  KUBELET_SERVING_SIGNER,
  kubeletClientCsrError,
  kubeletServingCsrError,
  LEGACY_UNKNOWN_SIGNER,
  loadCsrParser,
  requestOfCsr,
} from '../../api/certificates/csr.js';
import type { KubeObject } from '../../client/types.js';
import type { CertificateAuthority } from '../../util/certificates.js';
import type { Controller, ControllerContext, ControllerDescriptor } from '../context.js';
import type { ClusterSigningCAs } from '../options.js';
import { CertificateAuthoritySigner } from './authority.js';
import { CertificateController, CSR_RESOURCE } from './certificate-controller.js';

const MINUTE = 60_000;
const BACKDATE_MS = 5 * MINUTE;
const SHORT_MS = 8 * 60 * MINUTE;
/** The shortest certificate a signer issues, whatever expirationSeconds asks (twice the backdate). */
const MIN_DURATION_MS = 10 * MINUTE;

/** Whether the signer's rules accept the request: undefined, or the reason it fails. */
type SignerCheck = (req: CertificateRequestInfo, usages: readonly string[]) => string | undefined;

interface SignerLoop {
  signerName: string;
  /** The queue's name, as upstream names each loop. */
  name: string;
  ca: (cas: ClusterSigningCAs) => CertificateAuthority | undefined;
  check: SignerCheck;
}

const LOOPS: readonly SignerLoop[] = [
  {
    signerName: KUBELET_SERVING_SIGNER,
    name: 'csrsigning-kubelet-serving',
    ca: (c) => c.kubeletServing,
    check: kubeletServingCsrError,
  },
  {
    signerName: KUBE_APISERVER_CLIENT_KUBELET_SIGNER,
    name: 'csrsigning-kubelet-client',
    ca: (c) => c.kubeletClient,
    check: kubeletClientCsrError,
  },
  {
    signerName: KUBE_APISERVER_CLIENT_SIGNER,
    name: 'csrsigning-kube-apiserver-client',
    ca: (c) => c.kubeApiserverClient,
    check: (_req, usages) => apiserverClientUsagesError(usages),
  },
  {
    signerName: LEGACY_UNKNOWN_SIGNER,
    name: 'csrsigning-legacy-unknown',
    ca: (c) => c.legacyUnknown,
    check: () => undefined,
  },
];

/** The certificate's lifetime: the configured duration, or the CSR's expirationSeconds when shorter (min 10m). */
export function signingDuration(maxMs: number, expirationSeconds: unknown): number {
  if (typeof expirationSeconds !== 'number') return maxMs;
  const requested = expirationSeconds * 1000;
  if (requested > maxMs) return maxMs;
  if (requested < MIN_DURATION_MS) return MIN_DURATION_MS;
  return requested;
}

/** One signer's handler (upstream's signer.handle). */
export function signerHandler(
  ctx: ControllerContext,
  loop: SignerLoop,
  ca: () => Promise<CertificateAuthoritySigner>,
): (csr: KubeObject) => Promise<void> {
  const client = ctx.client.resource(CSR_RESOURCE);
  return async (obj) => {
    const csr = obj as KubeObject & CsrObject;
    if (!isApproved(csr) || hasTrueCondition(csr, CONDITION_FAILED)) return;
    if (csrSignerName(csr) !== loop.signerName) return;
    await loadCsrParser();
    const name = csr.metadata.name ?? '';
    let req: CertificateRequestInfo;
    try {
      req = requestOfCsr(csr);
    } catch (err) {
      throw new Error(`unable to parse csr "${name}": ${(err as Error).message}`);
    }
    const usages = csrUsages(csr);
    const problem = loop.check(req, usages);
    const status = (csr.status ?? {}) as { conditions?: unknown[]; certificate?: string };
    if (problem !== undefined) {
      status.conditions = [
        ...(Array.isArray(status.conditions) ? status.conditions : []),
        {
          type: CONDITION_FAILED,
          status: 'True',
          reason: 'SignerValidationFailure',
          message: problem,
          lastUpdateTime: new Date(ctx.clock.now()).toISOString().replace(/\.\d+Z$/, 'Z'),
        },
      ];
      csr.status = status;
      try {
        await client.updateStatus(csr);
      } catch (err) {
        throw new Error(`error adding failure condition for csr: ${(err as Error).message}`);
      }
      return;
    }
    let certificate: string;
    try {
      certificate = await (await ca()).sign(req, {
        ttlMs: signingDuration(ctx.options.clusterSigningDurationMs, csr.spec?.expirationSeconds),
        usages,
        backdateMs: BACKDATE_MS,
        shortMs: SHORT_MS,
        now: ctx.clock.now(),
      });
    } catch (err) {
      throw new Error(`error auto signing csr: ${(err as Error).message}`);
    }
    status.certificate = Buffer.from(certificate).toString('base64');
    csr.status = status;
    try {
      await client.updateStatus(csr);
    } catch (err) {
      throw new Error(`error updating signature for csr: ${(err as Error).message}`);
    }
  };
}

export const csrSigningController: ControllerDescriptor = {
  name: 'certificatesigningrequest-signing-controller',
  serviceAccount: 'certificate-controller',
  create(ctx): Controller {
    const cas = ctx.options.clusterSigning ?? {};
    const loops: CertificateController[] = [];
    for (const loop of LOOPS) {
      const pair = loop.ca(cas);
      if (!pair) {
        ctx.logger.info('Skipping CSR signer controller because no csr cert/key was specified', {
          signerName: loop.signerName,
        });
        continue;
      }
      let loaded: Promise<CertificateAuthoritySigner> | undefined;
      const ca = () => {
        loaded ??= CertificateAuthoritySigner.load(pair);
        return loaded;
      };
      loops.push(new CertificateController(ctx, loop.name, signerHandler(ctx, loop, ca)));
    }
    return {
      async run() {
        await Promise.all(loops.map((l) => l.run()));
      },
    };
  },
};
