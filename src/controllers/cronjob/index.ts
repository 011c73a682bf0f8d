/**
 * cronjob-controller: creates Jobs from CronJobs on their schedules (upstream's CronJobControllerV2).
 */
import type { ControllerDescriptor } from '../context.js';
import { CRONJOB_CONTROLLER, CronJobController } from './cronjob-controller.js';

export { CronJobController } from './cronjob-controller.js';

export const cronJobController: ControllerDescriptor = {
  name: CRONJOB_CONTROLLER,
  serviceAccount: 'cronjob-controller',
  create: (ctx) => new CronJobController(ctx),
};
