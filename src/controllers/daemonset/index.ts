/**
 * The daemonset-controller descriptor (alias `daemonset`; workers from --concurrent-daemonset-syncs).
 */
import type { ControllerDescriptor } from '../context.js';
import { DAEMON_SET_CONTROLLER_NAME, DaemonSetController } from './controller.js';

export { DAEMON_SET_BURST_REPLICAS, DAEMON_SET_CONTROLLER_NAME, DaemonSetController } from './controller.js';
export { daemonPodTolerations, nodeShouldRunDaemonPod } from './placement.js';

export const daemonSetController: ControllerDescriptor = {
  name: DAEMON_SET_CONTROLLER_NAME,
  serviceAccount: 'daemon-set-controller',
  create: (ctx) => new DaemonSetController(ctx),
};
