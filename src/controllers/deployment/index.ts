/**
 * The deployment controller's descriptor for kube-controller-manager (`deployment-controller`).
 */
import type { ControllerDescriptor } from '../context.js';
import { DeploymentController } from './controller.js';

export { DeploymentController } from './controller.js';

export const deploymentController: ControllerDescriptor = {
  name: 'deployment-controller',
  serviceAccount: 'deployment-controller',
  create: (ctx) => new DeploymentController(ctx),
};
