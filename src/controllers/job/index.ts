/**
 * job-controller: runs Jobs' pods to completion with retries (controller.ts, sync.ts).
 */
import type { ControllerDescriptor } from '../context.js';
import { JobController, type JobControllerOptions } from './controller.js';

export { JobController, type JobControllerOptions, SYNC_JOB_BATCH_PERIOD_MS } from './controller.js';

/** The descriptor with non-default options (tests shorten the pod-event batch period). */
export function jobControllerWith(opts: JobControllerOptions): ControllerDescriptor {
  return { name: 'job-controller', serviceAccount: 'job-controller', create: (ctx) => new JobController(ctx, opts) };
}

export const jobController: ControllerDescriptor = jobControllerWith({});
