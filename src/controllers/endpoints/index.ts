import type { ControllerDescriptor } from '../context.js';
import { EndpointsController } from './controller.js';

/** kube-controller-manager's `endpoints-controller` (alias `endpoint`). */
export const endpointsController: ControllerDescriptor = {
  name: 'endpoints-controller',
  serviceAccount: 'endpoint-controller',
  create: (ctx) => new EndpointsController(ctx),
};
