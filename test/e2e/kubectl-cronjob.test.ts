/**
 * The real kubectl against `wheelhouse up`: a CronJob every minute creates a Job that runs to completion on a
 * simulated node and keeps its history limit, `kubectl create job --from=cronjob/x` is accepted, and
 * `kubectl get cronjob` prints upstream's columns (issue 7's CronJob acceptance). The scheduled run is on the real
 * clock, so this test waits up to a minute once.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import assert from '../../src/testing/assert.js';
import { eventually } from '../../src/testing/controllers.js';
import { startWheelhouse, type WheelhouseProcess } from '../../src/testing/wheelhouse-process.js';

const run = promisify(execFile);

interface Job {
  metadata: {
    name: string;
    annotations?: Record<string, string>;
    ownerReferences?: { kind: string; name: string; uid: string; controller?: boolean }[];
  };
  status: { conditions?: { type: string; status: string }[] };
}

describe('kubectl against wheelhouse up: CronJobs', () => {
  const root = mkdtempSync(join(tmpdir(), 'wheelhouse-cronjob-e2e-'));
  const dataDir = join(root, 'data');
  let up: WheelhouseProcess;
  const kubectl = async (...args: string[]) =>
    (
      await run(
        'kubectl',
        ['--kubeconfig', join(dataDir, 'kubeconfig'), '--cache-dir', join(root, 'kcache'), ...args],
        {
          timeout: 90_000,
        },
      )
    ).stdout;
  const slow = { timeoutMs: 30_000, intervalMs: 250 };
  const jobs = async (): Promise<Job[]> => JSON.parse(await kubectl('get', 'jobs', '-o', 'json')).items;

  before(async () => {
    up = await startWheelhouse('up', ['--storage', 'memory', '--data-dir', dataDir, '--nodes', '1']);
    await eventually(
      async () => assert.match(await kubectl('get', 'nodes'), /^node-1\s+Ready\s+/m, 'node ready'),
      slow,
    );
  });
  after(async () => {
    if (up) assert.equal(await up.stop(), 0, up.out());
    rmSync(root, { recursive: true, force: true });
  });

  it('runs a CronJob every minute, keeps its history limit, and takes kubectl create job --from', async () => {
    const file = join(root, 'cronjob.yaml');
    writeFileSync(
      file,
      `apiVersion: batch/v1
kind: CronJob
metadata: {name: ticker}
spec:
  schedule: "*/1 * * * *"
  successfulJobsHistoryLimit: 1
  failedJobsHistoryLimit: 1
  jobTemplate:
    metadata: {labels: {app: ticker}}
    spec:
      template:
        metadata:
          annotations: {sim.wheelhouse.dev/lifecycle: complete, sim.wheelhouse.dev/run-seconds: "1"}
        spec:
          restartPolicy: Never
          containers: [{name: tick, image: busybox}]
`,
    );
    assert.match(await kubectl('apply', '-f', file), /^cronjob\.batch\/ticker created$/m);
    const table = await kubectl('get', 'cronjob');
    assert.match(table, /^NAME\s+SCHEDULE\s+TIMEZONE\s+SUSPEND\s+ACTIVE\s+LAST SCHEDULE\s+AGE$/m);
    assert.match(table, /^ticker\s+\*\/1 \* \* \* \*\s+<none>\s+False\s+0\s+<none>\s+\S+$/m);

    // kubectl builds the Job itself from the template; the apiserver must take it as sent.
    assert.match(await kubectl('create', 'job', 'by-hand', '--from=cronjob/ticker'), /^job\.batch\/by-hand created$/m);
    const cj = JSON.parse(await kubectl('get', 'cronjob', 'ticker', '-o', 'json'));
    const manual = JSON.parse(await kubectl('get', 'job', 'by-hand', '-o', 'json')) as Job;
    assert.equal(manual.metadata.annotations?.['cronjob.kubernetes.io/instantiate'], 'manual', 'manual annotation');
    assert.deepEqual(
      manual.metadata.ownerReferences?.map((r) => [r.kind, r.name, r.uid, r.controller]),
      [['CronJob', 'ticker', cj.metadata.uid, true]],
      'owned by the CronJob',
    );

    // The first scheduled run: within a minute on the real clock.
    const scheduled = await eventually(
      async () => {
        const names = (await jobs()).map((j) => j.metadata.name).filter((n) => /^ticker-\d+$/.test(n));
        assert.equal(names.length, 1, `one scheduled Job: ${names}`);
        return names[0] as string;
      },
      { timeoutMs: 75_000, intervalMs: 1000 },
    );
    const minutes = Number(scheduled.slice('ticker-'.length));
    const job = JSON.parse(await kubectl('get', 'job', scheduled, '-o', 'json')) as Job;
    assert.equal(
      job.metadata.annotations?.['batch.kubernetes.io/cronjob-scheduled-timestamp'],
      `${new Date(minutes * 60_000).toISOString().slice(0, 19)}Z`,
      'scheduled timestamp annotation',
    );
    await eventually(async () => {
      const row = await kubectl('get', 'cronjob', 'ticker', '--no-headers');
      assert.match(row, /^ticker\s+\*\/1 \* \* \* \*\s+<none>\s+False\s+[01]\s+\d+s\s+\S+$/m, row);
      const status = JSON.parse(await kubectl('get', 'cronjob', 'ticker', '-o', 'json')).status;
      assert.equal(status.lastScheduleTime, `${new Date(minutes * 60_000).toISOString().slice(0, 19)}Z`, 'last');
    }, slow);

    // Both Jobs complete on the simulated node; with a history limit of 1 only the one started last stays. The
    // manual Job may finish after the scheduled one when the minute turned soon after it was made, so this waits
    // for it to be gone rather than for one completed Job.
    await eventually(async () => {
      const all = await jobs();
      assert.deepEqual(
        all.map((j) => j.metadata.name),
        [scheduled],
        'only the scheduled Job kept',
      );
      assert.ok(
        all[0]?.status.conditions?.some((c) => c.type === 'Complete' && c.status === 'True'),
        'the scheduled Job completed',
      );
      const status = JSON.parse(await kubectl('get', 'cronjob', 'ticker', '-o', 'json')).status;
      assert.ok(status.lastSuccessfulTime, 'lastSuccessfulTime set');
      assert.equal(status.active, undefined, 'nothing active');
    }, slow);
    const events = await kubectl('get', 'events', '--field-selector', 'involvedObject.name=ticker');
    assert.match(events, new RegExp(`SuccessfulCreate\\s+cronjob/ticker\\s+Created job ${scheduled}`));
    assert.match(
      events,
      new RegExp(`SawCompletedJob\\s+cronjob/ticker\\s+Saw completed job: ${scheduled}, condition: Complete`),
    );
    assert.match(events, /SuccessfulDelete\s+cronjob\/ticker\s+Deleted job /);
  });
});
