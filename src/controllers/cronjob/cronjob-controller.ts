/**
 * The CronJob controller (upstream's pkg/controller/cronjob, ControllerV2). One sync per CronJob key: it finds the
 * Jobs whose controllerRef names the CronJob, deletes the oldest finished ones past the history limits, brings
 * status.active and lastSuccessfulTime up to date, and — unless the CronJob is suspended or being deleted — runs
 * the most recent scheduled time that has not run yet, honouring startingDeadlineSeconds and the concurrency
 * policy. The key is queued again for the next scheduled time (on the controller-manager's Clock).
 */
import { type CronSchedule, loadLocationError, parseSchedule } from '../../api/cron/index.js';
import { Lister } from '../../client/cache/listers.js';
import type { SharedIndexInformer } from '../../client/cache/shared-informer.js';
import { DeletedFinalStateUnknown, metaNamespaceKeyFunc, splitMetaNamespaceKey } from '../../client/cache/store.js';
import { waitForCacheSync } from '../../client/cache/wait-for-cache-sync.js';
import type { EventRecorder } from '../../client/events/broadcaster.js';
import { isAlreadyExists, isNotFound, type KubeObject, type OwnerReference } from '../../client/types.js';
import { createRateLimitingQueue, type RateLimitingQueue } from '../../client/workqueue/rate-limiting.js';
import { getControllerOf } from '../common/controller-ref.js';
import { isNamespaceTerminatingError } from '../common/pods.js';
import type { Controller, ControllerContext } from '../context.js';
import { runWorkers } from '../worker.js';
import {
  activeList,
  byJobStartTime,
  deleteFromActiveList,
  finishedCondition,
  inActiveList,
  inActiveListByName,
  isJobFinished,
  isJobSucceeded,
  jobFromTemplate,
  jobName,
  jobReference,
  timeZoneOf,
} from './jobs.js';
import {
  formatRFC1123Z,
  mostRecentScheduleTime,
  nextScheduleTimeDuration,
  startingDeadlineSeconds,
} from './schedule-times.js';

export const CRONJOB_CONTROLLER = 'cronjob-controller';

const JOBS = { group: 'batch', version: 'v1', resource: 'jobs' };
const CRONJOBS = { group: 'batch', version: 'v1', resource: 'cronjobs' };

type Rec = Record<string, unknown>;
const rec = (v: unknown): Rec => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Rec) : {});

const withKind = (cj: KubeObject): KubeObject => ({ ...cj, apiVersion: 'batch/v1', kind: 'CronJob' });

/** Upstream's formatSchedule: a valid spec.timeZone becomes a `TZ=` prefix; a TZ in the schedule is warned about. */
export function formatSchedule(cj: KubeObject, recorder: EventRecorder | undefined): string {
  const schedule = String(rec(cj.spec).schedule ?? '');
  if (schedule.includes('TZ')) {
    recorder?.eventf(
      withKind(cj),
      'Warning',
      'UnsupportedSchedule',
      'CRON_TZ or TZ used in schedule %q is not officially supported, see https://kubernetes.io/docs/concepts/workloads/controllers/cron-jobs/ for more details',
      schedule,
    );
    return schedule;
  }
  const zone = timeZoneOf(cj);
  if (zone !== undefined) return loadLocationError(zone) === undefined ? `TZ=${zone} ${schedule}` : schedule;
  return schedule;
}

interface SyncResult {
  requeueAfter?: number;
  updateStatus: boolean;
  error?: unknown;
}

export class CronJobController implements Controller {
  readonly queue: RateLimitingQueue<string>;
  private readonly jobInformer: SharedIndexInformer<KubeObject>;
  private readonly cronJobInformer: SharedIndexInformer<KubeObject>;
  private readonly jobs: Lister<KubeObject>;
  private readonly cronJobs: Lister<KubeObject>;
  private readonly recorder: EventRecorder;

  constructor(private readonly ctx: ControllerContext) {
    this.queue = createRateLimitingQueue<string>({ clock: ctx.clock, name: 'cronjob' });
    this.recorder = ctx.recorder(CRONJOB_CONTROLLER);
    this.jobInformer = ctx.informers.forGroupVersionResource(JOBS);
    this.cronJobInformer = ctx.informers.forGroupVersionResource(CRONJOBS);
    this.jobs = new Lister(this.jobInformer.getIndexer());
    this.cronJobs = new Lister(this.cronJobInformer.getIndexer());

    this.jobInformer.addEventHandler({
      onAdd: (job) => this.enqueueOwner(job),
      onUpdate: (old, cur) => {
        if (old.metadata.resourceVersion === cur.metadata.resourceVersion) return;
        const oldRef = getControllerOf(old);
        const curRef = getControllerOf(cur);
        if (oldRef && JSON.stringify(oldRef) !== JSON.stringify(curRef)) this.enqueueOwner(old);
        this.enqueueOwner(cur);
      },
      onDelete: (obj) => {
        const job = obj instanceof DeletedFinalStateUnknown ? (obj.obj as KubeObject | undefined) : obj;
        if (job) this.enqueueOwner(job);
      },
    });
    this.cronJobInformer.addEventHandler({
      onAdd: (cj) => this.queue.add(metaNamespaceKeyFunc(cj)),
      onUpdate: (old, cur) => this.updateCronJob(old, cur),
      onDelete: (obj) => {
        const cj = obj instanceof DeletedFinalStateUnknown ? (obj.obj as KubeObject | undefined) : obj;
        if (cj) this.queue.add(metaNamespaceKeyFunc(cj));
      },
    });
  }

  async run(): Promise<void> {
    const { ctx } = this;
    ctx.logger.info('Starting controller', { controller: CRONJOB_CONTROLLER });
    if (await waitForCacheSync(ctx.signal, this.jobInformer, this.cronJobInformer)) {
      await runWorkers({
        queue: this.queue,
        workers: ctx.options.concurrentCronJobSyncs,
        sync: (key) => this.sync(key),
        signal: ctx.signal,
        logger: ctx.logger,
      });
    }
    ctx.logger.info('Shutting down controller', { controller: CRONJOB_CONTROLLER });
  }

  /** The CronJob a controllerRef points at, when its kind, name and uid all agree. */
  private resolveControllerRef(namespace: string, ref: OwnerReference): KubeObject | undefined {
    if (ref.kind !== 'CronJob') return undefined;
    const cj = this.cronJobs.namespaced(namespace).get(ref.name);
    return cj && cj.metadata.uid === ref.uid ? cj : undefined;
  }

  private enqueueOwner(job: KubeObject): void {
    const ref = getControllerOf(job);
    if (!ref) return;
    const cj = this.resolveControllerRef(job.metadata.namespace ?? '', ref);
    if (cj) this.queue.add(metaNamespaceKeyFunc(cj));
  }

  /** A new schedule or time zone moves the next sync to the new schedule's next time; any other change syncs now. */
  private updateCronJob(old: KubeObject, cur: KubeObject): void {
    const key = metaNamespaceKeyFunc(cur);
    if (rec(old.spec).schedule !== rec(cur.spec).schedule || timeZoneOf(old) !== timeZoneOf(cur)) {
      let schedule: CronSchedule;
      try {
        schedule = parseSchedule(formatSchedule(cur, undefined));
      } catch {
        this.recorder.eventf(
          withKind(cur),
          'Warning',
          'UnParseableCronJobSchedule',
          'unparseable schedule for cronjob: %s',
          rec(cur.spec).schedule,
        );
        return;
      }
      this.queue.addAfter(key, nextScheduleTimeDuration(cur, this.ctx.clock.now(), schedule));
      return;
    }
    this.queue.add(key);
  }

  async sync(key: string): Promise<void> {
    const { namespace, name } = splitMetaNamespaceKey(key);
    const cached = this.cronJobs.namespaced(namespace).get(name);
    if (!cached) return;
    const jobs = this.jobs
      .namespaced(namespace)
      .list()
      .filter((job) => getControllerOf(job)?.name === name);
    const cj = withKind(structuredClone(cached));
    const cleaned = await this.cleanupFinishedJobs(cj, jobs);
    const result = await this.syncCronJob(cj, jobs);
    if (result.error !== undefined) {
      this.ctx.logger.v(2).info('Error reconciling cronjob', { cronjob: key, err: String(result.error) });
    }
    if (cleaned || result.updateStatus) {
      try {
        await this.ctx.client.cronJobs(namespace).updateStatus(cj);
      } catch (err) {
        this.ctx.logger.v(2).info('Unable to update status for cronjob', {
          cronjob: key,
          resourceVersion: cached.metadata.resourceVersion,
          err: String(err),
        });
        throw err;
      }
    }
    if (result.requeueAfter !== undefined) {
      this.ctx.logger.v(4).info('Re-queuing cronjob', { cronjob: key, requeueAfter: `${result.requeueAfter}ms` });
      this.queue.addAfter(key, result.requeueAfter);
      return;
    }
    if (result.error !== undefined) throw result.error;
  }

  private async syncCronJob(cj: KubeObject, jobs: KubeObject[]): Promise<SyncResult> {
    const now = this.ctx.clock.now();
    let updateStatus = false;
    const namespace = cj.metadata.namespace ?? '';
    const key = `${namespace}/${cj.metadata.name ?? ''}`;
    const log = this.ctx.logger;

    const children = new Set<string>();
    for (const job of jobs) {
      const uid = job.metadata.uid ?? '';
      children.add(uid);
      const found = inActiveList(cj, uid);
      if (!found && !isJobFinished(job)) {
        let fresh: KubeObject;
        try {
          fresh = await this.ctx.client.cronJobs(namespace).get(cj.metadata.name ?? '');
        } catch (err) {
          return { updateStatus, error: err };
        }
        if (inActiveList(fresh, uid)) {
          // Our cache was behind: carry on from the stored CronJob.
          Object.assign(cj, withKind(fresh));
          continue;
        }
        this.recorder.eventf(
          cj,
          'Warning',
          'UnexpectedJob',
          'Saw a job that the controller did not create or forgot: %s',
          job.metadata.name,
        );
      } else if (isJobFinished(job)) {
        if (found) {
          deleteFromActiveList(cj, uid);
          this.recorder.eventf(
            cj,
            'Normal',
            'SawCompletedJob',
            'Saw completed job: %s, condition: %v',
            job.metadata.name,
            finishedCondition(job),
          );
          updateStatus = true;
        }
        if (isJobSucceeded(job)) {
          const completion = rec(job.status).completionTime;
          const status = rec(cj.status);
          const last = status.lastSuccessfulTime;
          if (last === undefined || last === null) {
            if (typeof completion === 'string') status.lastSuccessfulTime = completion;
            cj.status = status;
            updateStatus = true;
          } else if (typeof completion === 'string' && Date.parse(completion) > Date.parse(String(last))) {
            status.lastSuccessfulTime = completion;
            cj.status = status;
            updateStatus = true;
          }
        }
      }
    }

    // Active entries whose Job is gone (checked against the API, the cache may be slow) are dropped.
    for (const ref of activeList(cj)) {
      if (children.has(ref.uid ?? '')) continue;
      try {
        await this.ctx.client.jobs(ref.namespace ?? namespace).get(ref.name ?? '');
      } catch (err) {
        if (!isNotFound(err)) return { updateStatus, error: err };
        this.recorder.eventf(cj, 'Normal', 'MissingJob', 'Active job went missing: %v', ref.name);
        deleteFromActiveList(cj, ref.uid);
        updateStatus = true;
      }
    }

    if (cj.metadata.deletionTimestamp) return { updateStatus };

    const zone = timeZoneOf(cj);
    if (zone !== undefined) {
      const zoneError = loadLocationError(zone);
      if (zoneError !== undefined) {
        log.v(4).info('Not starting job because timeZone is invalid', { cronjob: key, timeZone: zone, err: zoneError });
        this.recorder.eventf(cj, 'Warning', 'UnknownTimeZone', 'invalid timeZone: %q: %s', zone, zoneError);
        return { updateStatus };
      }
    }

    if (rec(cj.spec).suspend === true) {
      log.v(4).info('Not starting job because the cron is suspended', { cronjob: key });
      return { updateStatus };
    }

    const scheduleText = String(rec(cj.spec).schedule ?? '');
    let schedule: CronSchedule;
    try {
      schedule = parseSchedule(formatSchedule(cj, this.recorder));
    } catch (err) {
      log.v(2).info('Unparseable schedule', { cronjob: key, schedule: scheduleText, err: String(err) });
      this.recorder.eventf(
        cj,
        'Warning',
        'UnparseableSchedule',
        'unparseable schedule: %q : %s',
        scheduleText,
        (err as Error).message,
      );
      return { updateStatus };
    }

    const recent = mostRecentScheduleTime(cj, now, schedule, true);
    const next = () => nextScheduleTimeDuration(cj, now, schedule);
    if (recent.mostRecent === undefined || recent.mostRecent > now) {
      if (recent.error !== undefined) {
        log.v(2).info('Invalid schedule', { cronjob: key, schedule: scheduleText, err: recent.error });
        this.recorder.eventf(cj, 'Warning', 'InvalidSchedule', 'invalid schedule: %s : %s', scheduleText, recent.error);
        return { updateStatus };
      }
      log.v(4).info('No unmet start times', { cronjob: key });
      return { requeueAfter: next(), updateStatus };
    }
    const scheduledTime = recent.mostRecent;
    if (recent.missed === 'many') {
      this.recorder.eventf(
        cj,
        'Warning',
        'TooManyMissedTimes',
        'too many missed start times. Set or decrease .spec.startingDeadlineSeconds or check clock skew',
      );
      log.info('too many missed times', { cronjob: key });
    }

    const deadline = startingDeadlineSeconds(cj);
    if (deadline !== undefined && scheduledTime + deadline * 1000 < now) {
      log.v(4).info('Missed starting window', { cronjob: key });
      this.recorder.eventf(
        cj,
        'Warning',
        'MissSchedule',
        'Missed scheduled time to start a job: %s',
        formatRFC1123Z(scheduledTime),
      );
      return { requeueAfter: next(), updateStatus };
    }

    const name = jobName(cj, scheduledTime);
    const lastSchedule = rec(cj.status).lastScheduleTime;
    if (
      inActiveListByName(cj, namespace, name) ||
      (typeof lastSchedule === 'string' && Date.parse(lastSchedule) === scheduledTime)
    ) {
      log.v(4).info('Not starting job because the scheduled time is already processed', {
        cronjob: key,
        schedule: new Date(scheduledTime).toISOString(),
      });
      return { requeueAfter: next(), updateStatus };
    }

    const policy = rec(cj.spec).concurrencyPolicy;
    if (policy === 'Forbid' && activeList(cj).length > 0) {
      log.v(4).info('Not starting job because prior execution is still running and concurrency policy is Forbid', {
        cronjob: key,
      });
      this.recorder.eventf(
        cj,
        'Normal',
        'JobAlreadyActive',
        'Not starting job because prior execution is running and concurrency policy is Forbid',
      );
      return { requeueAfter: next(), updateStatus };
    }
    if (policy === 'Replace') {
      for (const ref of activeList(cj)) {
        log.v(4).info('Deleting job that was still running at next scheduled start time', {
          job: `${ref.namespace}/${ref.name}`,
        });
        let job: KubeObject;
        try {
          job = await this.ctx.client.jobs(ref.namespace ?? namespace).get(ref.name ?? '');
        } catch (err) {
          this.recorder.eventf(cj, 'Warning', 'FailedGet', 'Get job: %v', (err as Error).message);
          return { updateStatus, error: err };
        }
        if (!(await this.deleteJob(cj, job))) {
          return {
            updateStatus,
            error: new Error(`could not replace job ${job.metadata.namespace}/${job.metadata.name}`),
          };
        }
        updateStatus = true;
      }
    }

    let created: KubeObject;
    let alreadyExists = false;
    try {
      created = await this.ctx.client.jobs(namespace).create(jobFromTemplate(cj, scheduledTime));
    } catch (err) {
      if (isNamespaceTerminatingError(err)) return { updateStatus, error: err };
      if (!isAlreadyExists(err)) {
        this.recorder.eventf(cj, 'Warning', 'FailedCreate', 'Error creating job: %v', (err as Error).message);
        return { updateStatus, error: err };
      }
      // Made earlier (perhaps by us before a crash): take it into status if it is ours and not there yet.
      alreadyExists = true;
      try {
        created = await this.ctx.client.jobs(namespace).get(name);
      } catch (getErr) {
        return { updateStatus, error: getErr };
      }
      const ref = getControllerOf(created);
      if (!ref || ref.uid !== cj.metadata.uid) return { updateStatus };
      if (inActiveList(cj, created.metadata.uid)) return { updateStatus };
    }

    if (alreadyExists) {
      log.info('Job already exists', { cronjob: key, job: `${namespace}/${name}` });
    } else {
      log.v(4).info('Created Job', { job: `${namespace}/${created.metadata.name}`, cronjob: key });
      this.recorder.eventf(cj, 'Normal', 'SuccessfulCreate', 'Created job %v', created.metadata.name);
    }

    const status = rec(cj.status);
    status.active = [...activeList(cj), jobReference(created)];
    status.lastScheduleTime = `${new Date(scheduledTime).toISOString().slice(0, 19)}Z`;
    cj.status = status;
    return { requeueAfter: next(), updateStatus: true };
  }

  /** Deletes finished Jobs past spec.successfulJobsHistoryLimit / failedJobsHistoryLimit, oldest first. */
  private async cleanupFinishedJobs(cj: KubeObject, jobs: KubeObject[]): Promise<boolean> {
    const spec = rec(cj.spec);
    const successLimit = typeof spec.successfulJobsHistoryLimit === 'number' ? spec.successfulJobsHistoryLimit : null;
    const failedLimit = typeof spec.failedJobsHistoryLimit === 'number' ? spec.failedJobsHistoryLimit : null;
    if (successLimit === null && failedLimit === null) return false;
    const succeeded = jobs.filter((j) => finishedCondition(j) === 'Complete');
    const failed = jobs.filter((j) => finishedCondition(j) === 'Failed');
    let updateStatus = false;
    if (successLimit !== null && (await this.removeOldestJobs(cj, succeeded, successLimit))) updateStatus = true;
    if (failedLimit !== null && (await this.removeOldestJobs(cj, failed, failedLimit))) updateStatus = true;
    return updateStatus;
  }

  private async removeOldestJobs(cj: KubeObject, jobs: KubeObject[], max: number): Promise<boolean> {
    const toDelete = jobs.length - max;
    if (toDelete <= 0) return false;
    const key = `${cj.metadata.namespace}/${cj.metadata.name}`;
    this.ctx.logger.v(4).info('Cleaning up jobs from CronJob list', {
      deletejobnum: toDelete,
      jobnum: jobs.length,
      cronjob: key,
    });
    const sorted = [...jobs].sort(byJobStartTime);
    let updateStatus = false;
    for (const job of sorted.slice(0, toDelete)) {
      this.ctx.logger.v(4).info('Removing job from CronJob list', { job: job.metadata.name, cronjob: key });
      if (await this.deleteJob(cj, job)) updateStatus = true;
    }
    return updateStatus;
  }

  /** Deletes a Job (its pods follow in the background) and drops it from status.active. */
  private async deleteJob(cj: KubeObject, job: KubeObject): Promise<boolean> {
    try {
      await this.ctx.client
        .jobs(job.metadata.namespace ?? '')
        .delete(job.metadata.name ?? '', { propagationPolicy: 'Background' });
    } catch (err) {
      this.recorder.eventf(cj, 'Warning', 'FailedDelete', 'Deleted job: %v', (err as Error).message);
      this.ctx.logger.error('Error deleting job from cronjob', {
        job: `${job.metadata.namespace}/${job.metadata.name}`,
        err: String(err),
      });
      return false;
    }
    deleteFromActiveList(cj, job.metadata.uid);
    this.recorder.eventf(cj, 'Normal', 'SuccessfulDelete', 'Deleted job %v', job.metadata.name);
    return true;
  }
}
