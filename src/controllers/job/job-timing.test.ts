import { after, before, describe, it } from 'node:test';
import type { KubeObject } from '../../client/types.js';
import { type ControlPlane, startControlPlane } from '../../index.js';
import assert from '../../testing/assert.js';
import { eventually, runControllers } from '../../testing/controllers.js';
import { FakeClock } from '../../util/clock.js';
import type { ControllerManager } from '../manager.js';
import { jobControllerWith } from './index.js';
import { finishPod, jobPods, newJob } from './test-fixtures.js';

type Condition = { type: string; status: string; reason?: string; message?: string };
const cond = (job: KubeObject, type: string) =>
  ((job.status?.conditions ?? []) as Condition[]).find((c) => c.type === type);

describe('job controller on a fake clock', () => {
  let cp: ControlPlane;
  let manager: ControllerManager;
  const clock = new FakeClock(Date.now());

  before(async () => {
    cp = await startControlPlane({ storage: 'memory' });
    manager = await runControllers(cp, [jobControllerWith({ syncBatchPeriodMs: 0 })], { clock });
  });
  after(async () => {
    await manager?.stop();
    await cp?.stop();
  });

  const live = async (ns: string) =>
    (await jobPods(cp, ns)).filter((p) => !['Succeeded', 'Failed'].includes(String(p.status?.phase ?? '')));

  it('replaces failed pods only after the exponential backoff (10 s, then 20 s)', async () => {
    const ns = 'default';
    await cp.client.jobs(ns).create(newJob('retry', { backoffLimit: 5 }));
    const [first] = await eventually(async () => {
      const pods = await live(ns);
      assert.equal(pods.length, 1, 'first pod');
      return pods;
    });
    await finishPod(cp, ns, first as KubeObject, { phase: 'Failed', at: clock.now() });
    // The sync that counts the failure would have replaced the pod if there were no backoff.
    await eventually(async () => {
      const job = await cp.client.jobs(ns).get('retry');
      assert.equal(job.status?.failed, 1, `failed: ${JSON.stringify(job.status)}`);
      assert.equal(job.status?.active, undefined, 'no active pod during the backoff');
    });
    assert.equal((await live(ns)).length, 0, 'no replacement before 10 s');
    clock.step(10_000);
    const [second] = await eventually(async () => {
      const pods = await live(ns);
      assert.equal(pods.length, 1, 'replaced after 10 s');
      return pods;
    });
    await finishPod(cp, ns, second as KubeObject, { phase: 'Failed', at: clock.now() });
    await eventually(async () => {
      const job = await cp.client.jobs(ns).get('retry');
      assert.equal(job.status?.failed, 2, 'second failure counted');
    });
    clock.step(10_000);
    // Still waiting: the second failure asks for 20 s. A spec change forces a sync now.
    await cp.client.jobs(ns).patch('retry', 'merge', { metadata: { labels: { poke: '1' } } });
    await eventually(async () => {
      const job = await cp.client.jobs(ns).get('retry');
      assert.equal(job.metadata.labels?.poke, '1', 'poked');
    });
    assert.equal((await live(ns)).length, 0, 'no replacement 10 s after the second failure');
    clock.step(10_000);
    await eventually(async () => assert.equal((await live(ns)).length, 1, 'replaced 20 s after the second failure'));
  });

  it('fails with DeadlineExceeded after activeDeadlineSeconds and deletes its pods', async () => {
    const ns = 'default';
    await cp.client.jobs(ns).create(newJob('deadline', { activeDeadlineSeconds: 30, parallelism: 2, completions: 4 }));
    await eventually(async () => assert.equal((await live(ns)).filter(isOf('deadline')).length, 2, 'two pods'));
    clock.step(30_000);
    const job = await eventually(async () => {
      const j = await cp.client.jobs(ns).get('deadline');
      assert.equal(cond(j, 'Failed')?.status, 'True', `Failed: ${JSON.stringify(j.status)}`);
      return j;
    });
    assert.equal(cond(job, 'FailureTarget')?.reason, 'DeadlineExceeded', 'reason');
    assert.equal(cond(job, 'FailureTarget')?.message, 'Job was active longer than specified deadline', 'message');
    assert.equal(job.status?.failed, 2, 'the deleted pods count as failed');
    assert.equal((await live(ns)).filter(isOf('deadline')).length, 0, 'pods deleted');
  });
});

const isOf = (job: string) => (p: KubeObject) => p.metadata.labels?.['job-name'] === job;
