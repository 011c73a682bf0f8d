/**
 * CertificateApproval (upstream's plugin/pkg/admission/certificates/approval): an update of a CSR's approval
 * subresource needs the `approve` verb on `signers` (certificates.k8s.io) for the CSR's signerName, or for
 * `<domain>/*`, besides the right to update certificatesigningrequests/approval.
 */
import type { APIRegistry } from '../../api-registry.js';
import { isObject } from '../../registry/object.js';
import { type AdmissionPlugin, admissionForbidden } from '../types.js';
import { isAuthorizedForSignerName } from './certificate-signer-authorization.js';

export const CERTIFICATE_APPROVAL = 'CertificateApproval';

export function certificateApproval(registry: APIRegistry): AdmissionPlugin {
  return {
    name: CERTIFICATE_APPROVAL,
    handles: (op) => op === 'UPDATE',
    resources: ['certificates.k8s.io/certificatesigningrequests'],
    async validate(attrs) {
      if (attrs.subresource !== 'approval') return;
      if (attrs.resource.group !== 'certificates.k8s.io' || attrs.resource.resource !== 'certificatesigningrequests') {
        return;
      }
      const csr = attrs.object;
      if (!csr || !attrs.userInfo) return;
      const signerName = isObject(csr.spec) && typeof csr.spec.signerName === 'string' ? csr.spec.signerName : '';
      if (!(await isAuthorizedForSignerName(registry.authorizer, attrs.userInfo, 'approve', signerName))) {
        throw admissionForbidden(attrs, `user not permitted to approve requests with signerName "${signerName}"`);
      }
    },
  };
}
