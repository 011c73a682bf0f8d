/**
 * AlwaysAdmit and AlwaysDeny (upstream's plugin/pkg/admission/admit and deny, deprecated there): the first lets
 * everything through, the second refuses every write.
 */
import { type AdmissionPlugin, admissionForbidden } from '../types.js';

export function alwaysAdmit(): AdmissionPlugin {
  return { name: 'AlwaysAdmit', admit() {}, validate() {} };
}

export function alwaysDeny(): AdmissionPlugin {
  const deny: AdmissionPlugin['admit'] = (attrs) => {
    throw admissionForbidden(attrs, 'admission control is denying all modifications');
  };
  return { name: 'AlwaysDeny', admit: deny, validate: deny };
}
