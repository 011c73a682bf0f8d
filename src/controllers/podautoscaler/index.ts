/**
 * horizontal-pod-autoscaler-controller: keeps each HorizontalPodAutoscaler's target within its bounds and reports
 * why it cannot scale from metrics.
 */
import type { ControllerDescriptor } from '../context.js';
import { HorizontalController } from './horizontal.js';

export const horizontalPodAutoscalerController: ControllerDescriptor = {
  name: 'horizontal-pod-autoscaler-controller',
  serviceAccount: 'horizontal-pod-autoscaler',
  create: (ctx) => new HorizontalController(ctx),
};
