/**
 * ttl-after-finished-controller: deletes finished Jobs once their ttlSecondsAfterFinished has passed.
 */
import type { ControllerDescriptor } from '../context.js';
import { TTLAfterFinishedController } from './ttlafterfinished-controller.js';

export const ttlAfterFinishedController: ControllerDescriptor = {
  name: 'ttl-after-finished-controller',
  serviceAccount: 'ttl-after-finished-controller',
  create: (ctx) => new TTLAfterFinishedController(ctx),
};
