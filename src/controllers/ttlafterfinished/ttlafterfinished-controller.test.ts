import { after, before, describe, it } from 'node:test';
import { isNotFound, type KubeObject } from '../../client/types.js';
import { type ControlPlane, startControlPlane } from '../../index.js';
import assert from '../../testing/assert.js';
import { eventually, runControllers } from '../../testing/controllers.js';
import { FakeClock } from '../../util/clock.js';
import type { ControllerManager } from '../manager.js';
import { ttlAfterFinishedController } from './index.js';
import { needsCleanup, timeLeft } from './ttlafterfinished-controller.js';

const NS = 'default';
const rfc3339 = (ms: number) => `${new Date(ms).toISOString().slice(0, 19)}Z`;

describe('ttl-after-finished-controller', () => {
  let cp: ControlPlane;
  let manager: ControllerManager;
  const clock = new FakeClock(Date.now());
  /** When the test's Jobs finished: ten seconds before the fake clock's start. */
  const finishedAt = clock.now() - 10_000;

  async function createJob(name: string, ttl?: number): Promise<void> {
    await cp.client.jobs(NS).create({
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name },
      spec: {
        ...(ttl !== undefined ? { ttlSecondsAfterFinished: ttl } : {}),
        template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox' }] } },
      },
    });
  }

  async function finish(name: string, type = 'Complete'): Promise<void> {
    const job = await cp.client.jobs(NS).get(name);
    const at = rfc3339(finishedAt);
    job.status = {
      startTime: rfc3339(finishedAt - 5_000),
      ...(type === 'Complete' ? { completionTime: at, succeeded: 1 } : { failed: 1 }),
      // As the Job controller finishes a Job: SuccessCriteriaMet or FailureTarget first (the status API requires it).
      conditions: [type === 'Complete' ? 'SuccessCriteriaMet' : 'FailureTarget', type].map((t) => ({
        type: t,
        status: 'True',
        lastTransitionTime: at,
        lastProbeTime: at,
      })),
    };
    await cp.client.jobs(NS).updateStatus(job);
  }

  /** The Job, or undefined once it is gone. */
  async function job(name: string): Promise<KubeObject | undefined> {
    try {
      return await cp.client.jobs(NS).get(name);
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  /** Deleted with foreground propagation: gone, or waiting on its dependents with the foregroundDeletion finalizer. */
  async function assertDeleted(name: string): Promise<void> {
    const j = await job(name);
    if (j === undefined) return;
    assert.ok(j.metadata.deletionTimestamp, `${name} is being deleted`);
    assert.ok(j.metadata.finalizers?.includes('foregroundDeletion'), `${name} is deleted in the foreground`);
  }

  before(async () => {
    cp = await startControlPlane({ storage: 'memory' });
    manager = await runControllers(cp, [ttlAfterFinishedController], { clock });
  });
  after(async () => {
    await manager?.stop();
    await cp?.stop();
  });

  it('deletes a finished Job once its TTL has passed, and leaves others alone', async () => {
    await createJob('ttl-0', 0);
    await createJob('ttl-hour', 3600);
    await createJob('failed-ttl-0', 0);
    await createJob('no-ttl');
    await createJob('running', 0);
    await finish('ttl-0');
    await finish('ttl-hour');
    await finish('failed-ttl-0', 'Failed');
    await finish('no-ttl');

    await eventually(async () => {
      await assertDeleted('ttl-0');
      await assertDeleted('failed-ttl-0');
    });
    for (const name of ['ttl-hour', 'no-ttl', 'running']) {
      assert.equal((await job(name))?.metadata.deletionTimestamp, undefined, `${name} stays`);
    }

    clock.step(3_600_000);
    await eventually(() => assertDeleted('ttl-hour'));
    for (const name of ['no-ttl', 'running']) {
      assert.equal((await job(name))?.metadata.deletionTimestamp, undefined, `${name} stays`);
    }
  });
});

describe('ttl-after-finished time left', () => {
  const finished = (conditions: unknown[], extra: Record<string, unknown> = {}): KubeObject => ({
    metadata: { name: 'j', namespace: 'ns' },
    spec: { ttlSecondsAfterFinished: 100 },
    status: { conditions, ...extra },
  });

  it('counts from the finishing condition, or else the completion time', () => {
    const t = Date.parse('2025-01-01T00:00:00Z');
    const byCondition = finished([{ type: 'Complete', status: 'True', lastTransitionTime: '2025-01-01T00:00:00Z' }]);
    assert.equal(timeLeft(byCondition, t + 40_000).remaining, 60_000);
    const byCompletion = finished([{ type: 'Complete', status: 'True' }], { completionTime: '2025-01-01T00:00:00Z' });
    assert.equal(timeLeft(byCompletion, t + 150_000).remaining, -50_000);
    assert.throws(() => timeLeft(finished([{ type: 'Failed', status: 'True' }]), t), /unable to find the time/);
  });

  it('cleans up only finished Jobs with a TTL', () => {
    assert.equal(needsCleanup(finished([{ type: 'Complete', status: 'False' }])), false);
    assert.equal(needsCleanup(finished([{ type: 'Failed', status: 'True' }])), true);
    assert.equal(
      needsCleanup({ metadata: {}, spec: {}, status: { conditions: [{ type: 'Complete', status: 'True' }] } }),
      false,
    );
  });
});
