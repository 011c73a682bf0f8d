import type { ControllerDescriptor } from '../context.js';
import { CONTROLLER_NAME, ValidatingAdmissionPolicyStatusController } from './status-controller.js';

/** kube-controller-manager's `validatingadmissionpolicy-status-controller`: type checking written to policies' status. */
export const validatingAdmissionPolicyStatusController: ControllerDescriptor = {
  name: CONTROLLER_NAME,
  serviceAccount: 'validatingadmissionpolicy-status-controller',
  create: (ctx) => new ValidatingAdmissionPolicyStatusController(ctx),
};
