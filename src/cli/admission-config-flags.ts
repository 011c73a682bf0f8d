import type { AdmissionOptions } from '../apiserver/admission/options.js';

/** kube-apiserver's --admission-control-config-file (an AdmissionConfiguration, read when the server starts). */
export const admissionConfigFlagSpec = {
  'admission-control-config-file': { type: 'string' },
} as const;

export const admissionConfigFlagsHelp =
  '  --admission-control-config-file FILE  AdmissionConfiguration with plugin configurations (e.g. PodSecurity)';

/** The admission options the flag asks for (none when it is not given). */
export function admissionConfigOptionsOf(values: Record<string, unknown>): Pick<AdmissionOptions, 'configFile'> {
  const file = values['admission-control-config-file'];
  return typeof file === 'string' && file !== '' ? { configFile: file } : {};
}
