/**
 * CertificateSigning (upstream's plugin/pkg/admission/certificates/signing): an update of a CSR's status that
 * changes status.certificate or status.conditions needs the `sign` verb on `signers` (certificates.k8s.io) for the
 * stored CSR's signerName, or for `<domain>/*`.
 */
import type { APIRegistry } from '../../api-registry.js';
import { isObject, jsonEqual, type KubeObject } from '../../registry/object.js';
import { type AdmissionPlugin, admissionForbidden } from '../types.js';
import { isAuthorizedForSignerName } from './certificate-signer-authorization.js';

export const CERTIFICATE_SIGNING = 'CertificateSigning';

function statusField(obj: KubeObject | undefined, field: 'certificate' | 'conditions'): unknown {
  return obj && isObject(obj.status) ? obj.status[field] : undefined;
}

export function certificateSigning(registry: APIRegistry): AdmissionPlugin {
  return {
    name: CERTIFICATE_SIGNING,
    handles: (op) => op === 'UPDATE',
    resources: ['certificates.k8s.io/certificatesigningrequests'],
    async validate(attrs) {
      if (attrs.subresource !== 'status') return;
      if (attrs.resource.group !== 'certificates.k8s.io' || attrs.resource.resource !== 'certificatesigningrequests') {
        return;
      }
      const old = attrs.oldObject;
      const next = attrs.object;
      if (!old || !next || !attrs.userInfo) return;
      const same = (field: 'certificate' | 'conditions') =>
        jsonEqual(statusField(old, field) ?? null, statusField(next, field) ?? null);
      if (same('certificate') && same('conditions')) return;
      const signerName = isObject(old.spec) && typeof old.spec.signerName === 'string' ? old.spec.signerName : '';
      if (!(await isAuthorizedForSignerName(registry.authorizer, attrs.userInfo, 'sign', signerName))) {
        throw admissionForbidden(attrs, `user not permitted to sign requests with signerName "${signerName}"`);
      }
    },
  };
}
