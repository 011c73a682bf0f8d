import type { Controller, ControllerDescriptor } from '../context.js';
import { RootCaCertPublisher } from './publisher.js';

export {
  DESCRIPTION,
  DESCRIPTION_ANNOTATION,
  ROOT_CA_CERT_CONFIGMAP_NAME,
  ROOT_CA_CERT_KEY,
  RootCaCertPublisher,
} from './publisher.js';

/**
 * kube-controller-manager's `root-ca-certificate-publisher-controller`: the `kube-root-ca.crt` ConfigMap in every
 * namespace, with the CA from the options (upstream: --root-ca-file). Without a CA it publishes nothing.
 */
export const rootCaCertPublisherController: ControllerDescriptor = {
  name: 'root-ca-certificate-publisher-controller',
  serviceAccount: 'root-ca-cert-publisher',
  create(ctx): Controller {
    const pem = ctx.options.rootCaPem;
    if (pem === undefined || pem.trim() === '') {
      return {
        async run() {
          ctx.logger.info('Not publishing kube-root-ca.crt: no root CA certificate was given (--root-ca-file)');
        },
      };
    }
    return new RootCaCertPublisher(ctx, pem);
  },
};
