import type { ControllerDescriptor } from '../context.js';
import { EndpointSliceMirroringController } from './controller.js';

/** kube-controller-manager's `endpointslice-mirroring-controller` (alias `endpointslicemirroring`). */
export const endpointSliceMirroringController: ControllerDescriptor = {
  name: 'endpointslice-mirroring-controller',
  serviceAccount: 'endpointslicemirroring-controller',
  create: (ctx) => new EndpointSliceMirroringController(ctx),
};
