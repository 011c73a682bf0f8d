import type { ControllerDescriptor } from '../context.js';
import { PvcProtectionController } from './pvc-protection-controller.js';

export { PVC_PROTECTION_FINALIZER, PvcProtectionController } from './pvc-protection-controller.js';

/** kube-controller-manager's `persistentvolumeclaim-protection-controller` (alias `pvc-protection`). */
export const pvcProtectionController: ControllerDescriptor = {
  name: 'persistentvolumeclaim-protection-controller',
  serviceAccount: 'pvc-protection-controller',
  create: (ctx) => new PvcProtectionController(ctx),
};
