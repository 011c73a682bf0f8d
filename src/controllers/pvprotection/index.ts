import type { ControllerDescriptor } from '../context.js';
import { PvProtectionController } from './pv-protection-controller.js';

export { PV_PROTECTION_FINALIZER, PvProtectionController } from './pv-protection-controller.js';

/** kube-controller-manager's `persistentvolume-protection-controller` (alias `pv-protection`). */
export const pvProtectionController: ControllerDescriptor = {
  name: 'persistentvolume-protection-controller',
  serviceAccount: 'pv-protection-controller',
  create: (ctx) => new PvProtectionController(ctx),
};
