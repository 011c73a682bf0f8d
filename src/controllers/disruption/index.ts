/**
 * disruption-controller: maintains PodDisruptionBudget status for the eviction subresource.
 */
import type { ControllerDescriptor } from '../context.js';
import { DisruptionController } from './disruption-controller.js';

export const disruptionController: ControllerDescriptor = {
  name: 'disruption-controller',
  serviceAccount: 'disruption-controller',
  create: (ctx) => new DisruptionController(ctx),
};
