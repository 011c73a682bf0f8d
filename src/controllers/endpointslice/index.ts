import type { ControllerDescriptor } from '../context.js';
import { EndpointSliceController } from './controller.js';

/** kube-controller-manager's `endpointslice-controller` (alias `endpointslice`). */
export const endpointSliceController: ControllerDescriptor = {
  name: 'endpointslice-controller',
  serviceAccount: 'endpointslice-controller',
  create: (ctx) => new EndpointSliceController(ctx),
};
