import type { ControllerDescriptor } from '../context.js';
import { NamespaceController } from './namespace-controller.js';

export { NamespacedResourcesDeleter, ResourcesRemainingError } from './deleter.js';
export { NamespaceController } from './namespace-controller.js';

/** kube-controller-manager's `namespace-controller`: empties namespaces being deleted, then lets them go. */
export const namespaceController: ControllerDescriptor = {
  name: 'namespace-controller',
  serviceAccount: 'namespace-controller',
  create: (ctx) => new NamespaceController(ctx),
};
