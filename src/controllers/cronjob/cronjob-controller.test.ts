import { after, before, describe, it } from 'node:test';
import type { KubeObject } from '../../client/types.js';
import { type ControlPlane, startControlPlane } from '../../index.js';
import assert from '../../testing/assert.js';
import { eventually, runControllers } from '../../testing/controllers.js';
import { FakeClock } from '../../util/clock.js';
import type { ControllerManager } from '../manager.js';
import { cronJobController } from './index.js';
import { SCHEDULED_TIMESTAMP_ANNOTATION } from './jobs.js';

const NS = 'default';
const MINUTE = 60_000;
const rfc3339 = (ms: number) => `${new Date(ms).toISOString().slice(0, 19)}Z`;

type Rec = Record<string, unknown>;
const rec = (v: unknown): Rec => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Rec) : {});

describe('cronjob-controller', () => {
  let cp: ControlPlane;
  let manager: ControllerManager;
  const clock = new FakeClock(Date.now());

  before(async () => {
    cp = await startControlPlane({ storage: 'memory' });
    manager = await runControllers(cp, [cronJobController], { clock });
  });
  after(async () => {
    await manager?.stop();
    await cp?.stop();
  });

  /**
   * Creates a CronJob. The fake clock runs ahead of the apiserver's creationTimestamp, so the CronJob is created
   * suspended with lastScheduleTime set to the fake now (nothing missed yet), then resumed unless asked not to.
   */
  async function createCronJob(name: string, spec: Rec = {}, opts: { suspended?: boolean } = {}): Promise<KubeObject> {
    const cj = await cp.client.cronJobs(NS).create({
      apiVersion: 'batch/v1',
      kind: 'CronJob',
      metadata: { name },
      spec: {
        schedule: '*/1 * * * *',
        jobTemplate: {
          metadata: { labels: { app: name } },
          spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox' }] } } },
        },
        ...spec,
        suspend: true,
      },
    });
    await setStatus(name, { lastScheduleTime: rfc3339(clock.now()) });
    if (!opts.suspended) await setSuspend(name, false);
    return cj;
  }

  /** The CronJob's Jobs, by name. */
  async function jobsOf(name: string): Promise<string[]> {
    const list = await cp.client.jobs(NS).list();
    return list.items
      .filter((j) => j.metadata.ownerReferences?.some((r) => r.kind === 'CronJob' && r.name === name))
      .map((j) => j.metadata.name ?? '')
      .sort();
  }

  const jobFor = (name: string, scheduled: number) => `${name}-${Math.floor(scheduled / MINUTE)}`;

  /** Moves the clock to `seconds` past the next minute; answers that minute. */
  function stepToNextMinute(seconds = 1): number {
    const minute = (Math.floor(clock.now() / MINUTE) + 1) * MINUTE;
    clock.step(minute + seconds * 1000 - clock.now());
    return minute;
  }

  async function finish(job: string, type: 'Complete' | 'Failed', startedAt: number): Promise<void> {
    const j = await cp.client.jobs(NS).get(job);
    const at = rfc3339(clock.now());
    j.status = {
      startTime: rfc3339(startedAt),
      ...(type === 'Complete' ? { completionTime: at, succeeded: 1 } : { failed: 1 }),
      // As the Job controller finishes a Job: SuccessCriteriaMet or FailureTarget first (the status API requires it).
      conditions: [type === 'Complete' ? 'SuccessCriteriaMet' : 'FailureTarget', type].map((t) => ({
        type: t,
        status: 'True',
        lastTransitionTime: at,
        lastProbeTime: at,
      })),
    };
    await cp.client.jobs(NS).updateStatus(j);
  }

  async function events(name: string): Promise<string[]> {
    const list = await cp.client.events(NS).list();
    return list.items
      .filter((e) => rec(e.involvedObject).name === name && rec(e.involvedObject).kind === 'CronJob')
      .map((e) => `${e.type} ${e.reason} ${e.message}`);
  }

  async function status(name: string): Promise<Rec> {
    return rec((await cp.client.cronJobs(NS).get(name)).status);
  }

  async function setStatus(name: string, patch: Rec): Promise<void> {
    const cj = await cp.client.cronJobs(NS).get(name);
    cj.status = { ...rec(cj.status), ...patch };
    await cp.client.cronJobs(NS).updateStatus(cj);
  }

  async function setSuspend(name: string, suspend: boolean): Promise<void> {
    await cp.client.cronJobs(NS).patch(name, 'merge', { spec: { suspend } });
  }

  /**
   * Waits until the controller's CronJob cache has seen every change made so far: a new CronJob with a missed run
   * gets its Job as soon as the controller sees it, and the cache sees changes in order.
   */
  async function controllerSawChanges(probe: string): Promise<void> {
    await createCronJob(probe, {}, { suspended: true });
    await setStatus(probe, { lastScheduleTime: rfc3339(clock.now() - 2 * MINUTE) });
    await setSuspend(probe, false);
    await eventually(async () => assert.equal((await jobsOf(probe)).length, 1, `${probe} ran its missed time`));
    await cp.client.cronJobs(NS).delete(probe);
  }

  it('creates a Job at each scheduled time, tracks it in status, and keeps the history limits', async () => {
    const cj = await createCronJob('tick', { successfulJobsHistoryLimit: 2, failedJobsHistoryLimit: 1 });
    const first = stepToNextMinute();
    const firstJob = jobFor('tick', first);
    await eventually(async () => assert.deepEqual(await jobsOf('tick'), [firstJob], 'one Job for the first minute'));

    const job = await cp.client.jobs(NS).get(firstJob);
    assert.equal(job.metadata.annotations?.[SCHEDULED_TIMESTAMP_ANNOTATION], rfc3339(first), 'scheduled timestamp');
    assert.equal(job.metadata.labels?.app, 'tick', 'labels from the job template');
    const owner = job.metadata.ownerReferences?.[0];
    assert.deepEqual(
      owner && { kind: owner.kind, name: owner.name, uid: owner.uid, controller: owner.controller },
      { kind: 'CronJob', name: 'tick', uid: cj.metadata.uid, controller: true },
      'controlled by the CronJob',
    );
    await eventually(async () => {
      const s = await status('tick');
      const active = (s.active as Rec[] | undefined) ?? [];
      assert.deepEqual(
        active.map((a) => [a.kind, a.name, a.uid, a.apiVersion]),
        [['Job', firstJob, job.metadata.uid, 'batch/v1']],
        'status.active refers to the Job',
      );
      assert.equal(s.lastScheduleTime, rfc3339(first), 'lastScheduleTime');
    });
    await eventually(async () =>
      assert.ok((await events('tick')).includes(`Normal SuccessfulCreate Created job ${firstJob}`), 'create event'),
    );

    await finish(firstJob, 'Complete', first);
    await eventually(async () => {
      const s = await status('tick');
      assert.equal(s.active, undefined, 'the finished Job left status.active');
      assert.equal(s.lastSuccessfulTime, rfc3339(clock.now()), 'lastSuccessfulTime is its completion time');
      assert.ok(
        (await events('tick')).includes(`Normal SawCompletedJob Saw completed job: ${firstJob}, condition: Complete`),
        'SawCompletedJob event',
      );
    });

    // Three more successes: only the two newest stay.
    const succeeded = [firstJob];
    for (let i = 0; i < 3; i++) {
      const minute = stepToNextMinute();
      const name = jobFor('tick', minute);
      await eventually(async () => assert.ok((await jobsOf('tick')).includes(name), `Job ${name} created`));
      await finish(name, 'Complete', minute);
      succeeded.push(name);
    }
    await eventually(async () =>
      assert.deepEqual(await jobsOf('tick'), succeeded.slice(2).sort(), 'two successes kept'),
    );
    await eventually(async () => {
      const ev = await events('tick');
      for (const gone of succeeded.slice(0, 2)) {
        assert.ok(ev.includes(`Normal SuccessfulDelete Deleted job ${gone}`), `SuccessfulDelete for ${gone}`);
      }
    });

    // Two failures: only the newest stays.
    const failed: string[] = [];
    for (let i = 0; i < 2; i++) {
      const minute = stepToNextMinute();
      const name = jobFor('tick', minute);
      await eventually(async () => assert.ok((await jobsOf('tick')).includes(name), `Job ${name} created`));
      await finish(name, 'Failed', minute);
      failed.push(name);
    }
    await eventually(async () =>
      assert.deepEqual(await jobsOf('tick'), [...succeeded.slice(2), failed[1]].sort(), 'one failure kept'),
    );
    await cp.client.cronJobs(NS).delete('tick');
  });

  it('Forbid skips a run while the last one is active; Replace deletes it', async () => {
    await createCronJob('forbid', { concurrencyPolicy: 'Forbid' });
    await createCronJob('replace', { concurrencyPolicy: 'Replace' });
    const m1 = stepToNextMinute();
    await eventually(async () => {
      assert.deepEqual(await jobsOf('forbid'), [jobFor('forbid', m1)], 'forbid ran once');
      assert.deepEqual(await jobsOf('replace'), [jobFor('replace', m1)], 'replace ran once');
    });
    const m2 = stepToNextMinute();
    await eventually(async () => {
      assert.deepEqual(await jobsOf('replace'), [jobFor('replace', m2)], 'replace swapped the running Job');
      const ev = await events('replace');
      assert.ok(ev.includes(`Normal SuccessfulDelete Deleted job ${jobFor('replace', m1)}`), 'replace deleted');
      const active = ((await status('replace')).active as Rec[] | undefined) ?? [];
      assert.deepEqual(
        active.map((a) => a.name),
        [jobFor('replace', m2)],
        'only the new Job is active',
      );
      assert.ok(
        (await events('forbid')).includes(
          'Normal JobAlreadyActive Not starting job because prior execution is running and concurrency policy is Forbid',
        ),
        'forbid said why it waits',
      );
    });
    assert.deepEqual(await jobsOf('forbid'), [jobFor('forbid', m1)], 'forbid started nothing new');
    // Once the running Job finishes, the current minute's run starts late.
    await finish(jobFor('forbid', m1), 'Complete', m1);
    await eventually(async () =>
      assert.deepEqual(await jobsOf('forbid'), [jobFor('forbid', m1), jobFor('forbid', m2)].sort(), 'late start'),
    );
    await cp.client.cronJobs(NS).delete('forbid');
    await cp.client.cronJobs(NS).delete('replace');
  });

  it('runs only the most recent of many missed times, and warns about too many', async () => {
    await createCronJob('missed', {}, { suspended: true });
    await setStatus('missed', { lastScheduleTime: rfc3339(clock.now() - 300 * MINUTE) });
    await setSuspend('missed', false);
    const latest = Math.floor(clock.now() / MINUTE) * MINUTE;
    await eventually(async () => {
      assert.deepEqual(await jobsOf('missed'), [jobFor('missed', latest)], 'one Job, for the latest missed minute');
      assert.ok(
        (await events('missed')).includes(
          'Warning TooManyMissedTimes too many missed start times. Set or decrease .spec.startingDeadlineSeconds or check clock skew',
        ),
        'TooManyMissedTimes event',
      );
    });
    await cp.client.cronJobs(NS).delete('missed');
  });

  it('does not start a missed run past startingDeadlineSeconds, nor while suspended', async () => {
    stepToNextMinute(30);
    const lastRun = clock.now() - 5 * MINUTE;
    for (const name of ['late', 'deadline']) {
      await createCronJob(name, name === 'deadline' ? { startingDeadlineSeconds: 10 } : {}, { suspended: true });
      await setStatus(name, { lastScheduleTime: rfc3339(lastRun) });
    }
    const missedMinute = Math.floor(clock.now() / MINUTE) * MINUTE;
    await setSuspend('deadline', false);
    await setSuspend('late', false);
    // Without a deadline the missed run starts 30 s late; with a 10 s deadline it is skipped.
    await eventually(async () =>
      assert.deepEqual(await jobsOf('late'), [jobFor('late', missedMinute)], 'late start without a deadline'),
    );
    assert.deepEqual(await jobsOf('deadline'), [], 'nothing past the deadline');
    const next = stepToNextMinute(5);
    await eventually(async () => {
      assert.deepEqual(await jobsOf('deadline'), [jobFor('deadline', next)], 'the next run within the deadline');
      assert.deepEqual(await jobsOf('late'), [jobFor('late', missedMinute), jobFor('late', next)].sort(), 'late ran');
    });

    // Suspended: the clock passes a scheduled time and no Job starts; resumed, the missed run starts.
    await setSuspend('late', true);
    await controllerSawChanges('probe');
    const skipped = stepToNextMinute();
    await eventually(async () =>
      assert.deepEqual(
        await jobsOf('deadline'),
        [jobFor('deadline', next), jobFor('deadline', skipped)].sort(),
        'deadline ran',
      ),
    );
    const before = [jobFor('late', missedMinute), jobFor('late', next)].sort();
    assert.deepEqual(await jobsOf('late'), before, 'no run while suspended');
    await setSuspend('late', false);
    await eventually(async () =>
      assert.deepEqual(await jobsOf('late'), [...before, jobFor('late', skipped)].sort(), 'resumed'),
    );
  });

  it('the apiserver refuses bad schedules and zones with upstream text', async () => {
    const bad = async (spec: Rec) =>
      createCronJob('bad', spec).then(
        () => assert.fail('accepted'),
        (err: Error) => err.message,
      );
    assert.match(
      await bad({ schedule: '61 * * * *' }),
      /spec\.schedule: Invalid value: "61 \* \* \* \*": end of range \(61\) above maximum \(59\): 61/,
    );
    assert.match(
      await bad({ schedule: 'TZ=UTC 0 * * * *' }),
      /spec\.schedule: Invalid value: "TZ=UTC 0 \* \* \* \*": cannot use TZ or CRON_TZ in schedule, use timeZone field instead/,
    );
    assert.match(
      await bad({ timeZone: 'Mars/Olympus' }),
      /spec\.timeZone: Invalid value: "Mars\/Olympus": unknown time zone Mars\/Olympus/,
    );
  });

  it('reads the schedule in spec.timeZone', async () => {
    // 5 past every hour in Kathmandu (UTC+05:45) is 20 past the hour in UTC.
    await createCronJob('nepal', { schedule: '5 * * * *', timeZone: 'Asia/Kathmandu' });
    const now = clock.now();
    const due = Math.floor((now - 20 * MINUTE) / (60 * MINUTE)) * 60 * MINUTE + 20 * MINUTE + 60 * MINUTE;
    clock.step(due + 1000 - now);
    await eventually(async () => assert.deepEqual(await jobsOf('nepal'), [jobFor('nepal', due)], 'ran at :20 UTC'));
    const job = await cp.client.jobs(NS).get(jobFor('nepal', due));
    assert.match(
      job.metadata.annotations?.[SCHEDULED_TIMESTAMP_ANNOTATION] ?? '',
      /^\d{4}-\d\d-\d\dT\d\d:05:00\+05:45$/,
      'scheduled timestamp in the CronJob zone',
    );
  });
});
