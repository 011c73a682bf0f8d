/**
 * kube-controller-manager's certificatesigningrequest-approving-controller (upstream's sarapprove): a pending CSR
 * for kubernetes.io/kube-apiserver-client-kubelet whose request is a kubelet client certificate's (O=system:nodes,
 * CN=system:node:…, no SANs, the client usages) is approved when a SubjectAccessReview says its requester may
 * `create` certificatesigningrequests/selfnodeclient (a node renewing its own certificate: CN equals the
 * requester) or certificatesigningrequests/nodeclient (a bootstrapper asking for a node). Anything else is left
 * for a person or another approver.
 */
import {
  approvalState,
  type CertificateRequestInfo,
  CONDITION_APPROVED,
  type CsrObject,
  csrSignerName,
  csrUsages,
  KUBE_APISERVER_CLIENT_KUBELET_SIGNER,
  kubeletClientCsrError,
  loadCsrParser,
  requestOfCsr,
} from '../../api/certificates/csr.js';
import type { KubeObject } from '../../client/types.js';
import type { Controller, ControllerContext, ControllerDescriptor } from '../context.js';
import { CertificateController, CSR_RESOURCE } from './certificate-controller.js';

const SUBJECT_ACCESS_REVIEWS = { group: 'authorization.k8s.io', version: 'v1', resource: 'subjectaccessreviews' };

interface Recognizer {
  recognize(csr: CsrObject, req: CertificateRequestInfo): boolean;
  subresource: string;
  successMessage: string;
}

function isNodeClientCert(csr: CsrObject, req: CertificateRequestInfo): boolean {
  if (csrSignerName(csr) !== KUBE_APISERVER_CLIENT_KUBELET_SIGNER) return false;
  return kubeletClientCsrError(req, csrUsages(csr)) === undefined;
}

const RECOGNIZERS: readonly Recognizer[] = [
  {
    recognize: (csr, req) => isNodeClientCert(csr, req) && csr.spec?.username === req.commonName,
    subresource: 'selfnodeclient',
    successMessage: 'Auto approving self kubelet client certificate after SubjectAccessReview.',
  },
  {
    recognize: isNodeClientCert,
    subresource: 'nodeclient',
    successMessage: 'Auto approving kubelet client certificate after SubjectAccessReview.',
  },
];

/** Upstream's sarApprover.handle. */
export function approverHandler(ctx: ControllerContext): (csr: KubeObject) => Promise<void> {
  const csrs = ctx.client.resource(CSR_RESOURCE);
  const reviews = ctx.client.resource(SUBJECT_ACCESS_REVIEWS);
  const authorize = async (csr: CsrObject, subresource: string): Promise<boolean> => {
    const spec = csr.spec ?? {};
    const review = await reviews.create({
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SubjectAccessReview',
      metadata: {},
      spec: {
        user: spec.username,
        ...(spec.uid ? { uid: spec.uid } : {}),
        ...(Array.isArray(spec.groups) ? { groups: spec.groups } : {}),
        ...(spec.extra && typeof spec.extra === 'object' ? { extra: spec.extra } : {}),
        resourceAttributes: {
          group: 'certificates.k8s.io',
          resource: 'certificatesigningrequests',
          verb: 'create',
          subresource,
          version: '*',
        },
      },
    });
    return (review.status as { allowed?: boolean } | undefined)?.allowed === true;
  };
  return async (obj) => {
    const csr = obj as KubeObject & CsrObject;
    const { approved, denied } = approvalState(csr);
    if (approved || denied) return;
    await loadCsrParser();
    let req: CertificateRequestInfo;
    try {
      req = requestOfCsr(csr);
    } catch (err) {
      throw new Error(`unable to parse csr "${csr.metadata.name}": ${(err as Error).message}`);
    }
    const tried: string[] = [];
    for (const r of RECOGNIZERS) {
      if (!r.recognize(csr, req)) continue;
      tried.push(r.subresource);
      if (!(await authorize(csr, r.subresource))) continue;
      const status = (csr.status ?? {}) as { conditions?: unknown[] };
      status.conditions = [
        ...(Array.isArray(status.conditions) ? status.conditions : []),
        { type: CONDITION_APPROVED, status: 'True', reason: 'AutoApproved', message: r.successMessage },
      ];
      csr.status = status;
      try {
        await csrs.updateSubresource(csr.metadata.name ?? '', 'approval', csr);
      } catch (err) {
        throw new Error(`error updating approval for csr: ${(err as Error).message}`);
      }
      return;
    }
    if (tried.length > 0) {
      // Upstream's IgnorableError: the CSR is tried again later (its requester may be given the permission).
      throw new Error(
        `recognized csr "${csr.metadata.name}" as [${tried.join(' ')}] but subject access review was not approved`,
      );
    }
  };
}

export const csrApprovingController: ControllerDescriptor = {
  name: 'certificatesigningrequest-approving-controller',
  serviceAccount: 'certificate-controller',
  create(ctx): Controller {
    return new CertificateController(ctx, 'csrapproving', approverHandler(ctx));
  },
};
