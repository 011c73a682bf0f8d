import type { ControllerDescriptor } from '../context.js';
import { ServiceAccountsController } from './serviceaccounts-controller.js';

export { SERVICE_ACCOUNTS_TO_ENSURE, ServiceAccountsController } from './serviceaccounts-controller.js';

/** kube-controller-manager's `serviceaccount-controller`: a `default` ServiceAccount in every active namespace. */
export const serviceAccountController: ControllerDescriptor = {
  name: 'serviceaccount-controller',
  serviceAccount: 'service-account-controller',
  create: (ctx) => new ServiceAccountsController(ctx),
};
