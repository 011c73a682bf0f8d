/**
 * CertificateSubjectRestriction (upstream's plugin/pkg/admission/certificates/subjectrestriction): a new CSR for
 * the kubernetes.io/kube-apiserver-client signer may not ask for the system:masters group (an organization of the
 * request's subject), which would make its holder a cluster administrator past RBAC.
 */
import { KUBE_APISERVER_CLIENT_SIGNER, loadCsrParser, requestOfCsr } from '../../../api/certificates/csr.js';
import { isObject } from '../../registry/object.js';
import { type AdmissionPlugin, admissionForbidden } from '../types.js';

export const CERTIFICATE_SUBJECT_RESTRICTION = 'CertificateSubjectRestriction';

export function certificateSubjectRestriction(): AdmissionPlugin {
  return {
    name: CERTIFICATE_SUBJECT_RESTRICTION,
    handles: (op) => op === 'CREATE',
    resources: ['certificates.k8s.io/certificatesigningrequests'],
    async validate(attrs) {
      if (attrs.subresource !== '') return;
      if (attrs.resource.group !== 'certificates.k8s.io' || attrs.resource.resource !== 'certificatesigningrequests') {
        return;
      }
      const spec = attrs.object && isObject(attrs.object.spec) ? attrs.object.spec : {};
      if (spec.signerName !== KUBE_APISERVER_CLIENT_SIGNER) return;
      await loadCsrParser();
      let organizations: string[];
      try {
        organizations = requestOfCsr({ metadata: {}, spec }).organizations;
      } catch (err) {
        throw admissionForbidden(attrs, `failed to parse CSR: ${(err as Error).message}`);
      }
      if (organizations.includes('system:masters')) {
        throw admissionForbidden(
          attrs,
          `use of ${KUBE_APISERVER_CLIENT_SIGNER} signer with system:masters group is not allowed`,
        );
      }
    },
  };
}
