/**
 * node-lifecycle-controller: node health from status and leases, Ready=Unknown for silent nodes, the not-ready and
 * unreachable NoExecute taints (rate limited per zone) and the NoSchedule condition taints.
 */
import type { ControllerDescriptor } from '../context.js';
import { NodeLifecycleController } from './node-lifecycle-controller.js';

export const nodeLifecycleController: ControllerDescriptor = {
  name: 'node-lifecycle-controller',
  serviceAccount: 'node-controller',
  create: (ctx) => new NodeLifecycleController(ctx),
};
