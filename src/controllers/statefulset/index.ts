/**
 * The statefulset controller's descriptor for kube-controller-manager (`statefulset-controller`, alias
 * `statefulset`; workers from --concurrent-statefulset-syncs).
 */
import type { ControllerDescriptor } from '../context.js';
import { StatefulSetController } from './controller.js';

export { StatefulSetController } from './controller.js';

export const statefulSetController: ControllerDescriptor = {
  name: 'statefulset-controller',
  serviceAccount: 'statefulset-controller',
  create: (ctx) => new StatefulSetController(ctx),
};
