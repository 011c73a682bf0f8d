/**
 * taint-eviction-controller: deletes pods from nodes with NoExecute taints they do not tolerate (or tolerate only
 * for a while).
 */
import type { ControllerDescriptor } from '../context.js';
import { TaintEvictionController } from './taint-eviction-controller.js';

export const taintEvictionController: ControllerDescriptor = {
  name: 'taint-eviction-controller',
  serviceAccount: 'node-controller',
  create: (ctx) => new TaintEvictionController(ctx),
};
