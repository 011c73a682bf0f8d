/**
 * The admission flags of a control plane embedded in a test (startControlPlane) when it runs no controller
 * manager: nothing then makes the `default` ServiceAccount of a namespace, so, as upstream's integration-test
 * apiservers do (`--disable-admission-plugins=ServiceAccount`), ServiceAccount admission is off unless the flags
 * name it. With controllers, and for `wheelhouse up` / `wheelhouse apiserver`, upstream's default set stands.
 */
import type { AdmissionOptions } from './options.js';
import { SERVICE_ACCOUNT } from './plugins/service-account.js';

export function embeddedAdmissionOptions(
  admission: AdmissionOptions | undefined,
  withControllers: boolean,
): AdmissionOptions | undefined {
  if (withControllers) return admission;
  const named = [...(admission?.enablePlugins ?? []), ...(admission?.disablePlugins ?? [])];
  if (named.includes(SERVICE_ACCOUNT)) return admission;
  return { ...admission, disablePlugins: [...(admission?.disablePlugins ?? []), SERVICE_ACCOUNT] };
}

/**
 * The admission flags of `wheelhouse apiserver` (an apiserver alone, its controller manager elsewhere): upstream's
 * default set, ServiceAccount included unless the flags disable it, whatever startControlPlane's embedded default.
 */
export function standaloneAdmissionOptions(admission: AdmissionOptions): AdmissionOptions {
  if ((admission.disablePlugins ?? []).includes(SERVICE_ACCOUNT)) return admission;
  if ((admission.enablePlugins ?? []).includes(SERVICE_ACCOUNT)) return admission;
  return { ...admission, enablePlugins: [...(admission.enablePlugins ?? []), SERVICE_ACCOUNT] };
}
