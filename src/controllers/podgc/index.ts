/**
 * pod-garbage-collector-controller: deletes terminated pods over the threshold, orphaned pods and unscheduled
 * terminating pods.
 */
import type { ControllerDescriptor } from '../context.js';
import { PodGCController } from './podgc-controller.js';

export const podGcController: ControllerDescriptor = {
  name: 'pod-garbage-collector-controller',
  serviceAccount: 'pod-garbage-collector',
  create: (ctx) => new PodGCController(ctx),
};
