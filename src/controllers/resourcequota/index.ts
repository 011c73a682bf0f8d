/**
 * resourcequota-controller: keeps ResourceQuota status (hard and used) current.
 */
import type { ControllerDescriptor } from '../context.js';
import { ResourceQuotaController } from './resourcequota-controller.js';

export const resourceQuotaController: ControllerDescriptor = {
  name: 'resourcequota-controller',
  serviceAccount: 'resourcequota-controller',
  create: (ctx) => new ResourceQuotaController(ctx),
};
