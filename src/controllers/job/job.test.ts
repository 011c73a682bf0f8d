import { after, before, describe, it } from 'node:test';
import { isNotFound, type KubeObject } from '../../client/types.js';
import { type ControlPlane, startControlPlane } from '../../index.js';
import assert from '../../testing/assert.js';
import { eventually, runControllers } from '../../testing/controllers.js';
import type { ControllerManager } from '../manager.js';
import { ttlAfterFinishedController } from '../ttlafterfinished/index.js';
import { jobControllerWith } from './index.js';
import { finishPod, jobEvents, jobPods, newJob, type PodOutcome } from './test-fixtures.js';

let cp: ControlPlane;
let manager: ControllerManager;
let seq = 0;

async function namespace(): Promise<string> {
  const name = `jobs-${++seq}`;
  await cp.client.namespaces().create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  return name;
}

const getJob = (ns: string, name: string) => cp.client.jobs(ns).get(name);
const cond = (job: KubeObject, type: string) =>
  // biome-ignore lint/suspicious/noExplicitAny: status is plain JSON
  ((job as any).status?.conditions ?? []).find((c: { type: string }) => c.type === type);

async function waitForCondition(ns: string, name: string, type: string): Promise<KubeObject> {
  return eventually(async () => {
    const job = await getJob(ns, name);
    assert.equal(cond(job, type)?.status, 'True', `${name} has ${type}: ${JSON.stringify(job.status)}`);
    return job;
  });
}

/** Waits for `count` active pods (not finished, not deleted) and answers them. */
async function waitForActive(ns: string, count: number): Promise<KubeObject[]> {
  return eventually(async () => {
    const pods = (await jobPods(cp, ns)).filter(
      (p) => !p.metadata.deletionTimestamp && !['Succeeded', 'Failed'].includes(String(p.status?.phase ?? '')),
    );
    assert.equal(pods.length, count, `active pods: ${pods.map((p) => p.metadata.name).join(', ')}`);
    return pods;
  });
}

async function finishAll(ns: string, pods: KubeObject[], outcome: PodOutcome): Promise<void> {
  for (const pod of pods) await finishPod(cp, ns, pod, outcome);
}

describe('job controller', () => {
  before(async () => {
    cp = await startControlPlane({ storage: 'memory' });
    manager = await runControllers(cp, [jobControllerWith({ syncBatchPeriodMs: 0 }), ttlAfterFinishedController]);
  });
  after(async () => {
    await manager?.stop();
    await cp?.stop();
  });

  it('runs completions with parallelism, then meets its success criteria and completes', async () => {
    const ns = await namespace();
    const created = await cp.client.jobs(ns).create(newJob('work', { completions: 3, parallelism: 2 }));
    const pods = await waitForActive(ns, 2);
    for (const pod of pods) {
      assert.deepEqual(pod.metadata.finalizers, ['batch.kubernetes.io/job-tracking'], 'tracking finalizer');
      const ref = pod.metadata.ownerReferences?.[0];
      assert.equal(ref?.kind, 'Job', 'owned by the Job');
      assert.equal(ref?.uid, created.metadata.uid, 'owner uid');
      assert.equal(ref?.controller, true, 'controller ref');
      for (const key of ['batch.kubernetes.io/controller-uid', 'controller-uid']) {
        assert.equal(pod.metadata.labels?.[key], created.metadata.uid, `label ${key}`);
      }
      for (const key of ['batch.kubernetes.io/job-name', 'job-name']) {
        assert.equal(pod.metadata.labels?.[key], 'work', `label ${key}`);
      }
      assert.match(pod.metadata.name ?? '', /^work-[a-z0-9]{5}$/, 'generated name');
    }
    await eventually(async () => {
      const job = await getJob(ns, 'work');
      assert.equal(job.status?.active, 2, `active: ${JSON.stringify(job.status)}`);
      assert.ok(job.status?.startTime, 'startTime set');
      assert.equal(job.status?.ready, 0, 'ready counted');
    });
    await finishAll(ns, pods, { phase: 'Succeeded' });
    const [last] = await waitForActive(ns, 1);
    await finishAll(ns, [last as KubeObject], { phase: 'Succeeded' });
    const job = await waitForCondition(ns, 'work', 'Complete');
    assert.equal(job.status?.succeeded, 3, 'three succeeded');
    assert.equal(job.status?.failed, undefined, 'none failed');
    const met = cond(job, 'SuccessCriteriaMet');
    assert.equal(met?.reason, 'CompletionsReached', 'SuccessCriteriaMet reason');
    assert.equal(met?.message, 'Reached expected number of succeeded pods', 'SuccessCriteriaMet message');
    assert.equal(cond(job, 'Complete')?.reason, 'CompletionsReached', 'Complete carries the reason');
    const types = ((job.status?.conditions ?? []) as { type: string }[]).map((c) => c.type);
    assert.deepEqual(types, ['SuccessCriteriaMet', 'Complete'], 'condition order');
    assert.ok(job.status?.completionTime, 'completionTime');
    assert.deepEqual(job.status?.uncountedTerminatedPods, {}, 'nothing left uncounted');
    await eventually(async () => {
      const all = await jobPods(cp, ns);
      assert.ok(
        all.every((p) => !p.metadata.finalizers?.includes('batch.kubernetes.io/job-tracking')),
        'finalizers removed',
      );
      const reasons = (await jobEvents(cp, ns, 'work')).map((e) => `${e.reason}: ${e.message}`);
      assert.ok(reasons.includes('Completed: Job completed'), `events: ${reasons.join(' | ')}`);
      assert.ok(
        reasons.some((r) => r.startsWith('SuccessfulCreate: Created pod: work-')),
        `events: ${reasons.join(' | ')}`,
      );
    });
  });

  it('fails with BackoffLimitExceeded once more pods failed than backoffLimit', async () => {
    const ns = await namespace();
    await cp.client.jobs(ns).create(newJob('flaky', { backoffLimit: 0 }));
    const [pod] = await waitForActive(ns, 1);
    await finishPod(cp, ns, pod as KubeObject, { phase: 'Failed', exitCode: 1 });
    const job = await waitForCondition(ns, 'flaky', 'Failed');
    assert.equal(job.status?.failed, 1, 'one failed');
    const target = cond(job, 'FailureTarget');
    assert.equal(target?.reason, 'BackoffLimitExceeded', 'FailureTarget reason');
    assert.equal(target?.message, 'Job has reached the specified backoff limit', 'FailureTarget message');
    assert.equal(cond(job, 'Failed')?.reason, 'BackoffLimitExceeded', 'Failed reason');
    assert.equal(job.status?.completionTime, undefined, 'no completionTime on failure');
    await eventually(async () => {
      const reasons = (await jobEvents(cp, ns, 'flaky')).map((e) => `${e.type} ${e.reason}: ${e.message}`);
      assert.ok(
        reasons.includes('Warning BackoffLimitExceeded: Job has reached the specified backoff limit'),
        `events: ${reasons.join(' | ')}`,
      );
    });
  });

  it('counts container restarts against backoffLimit under restartPolicy OnFailure', async () => {
    const ns = await namespace();
    await cp.client.jobs(ns).create(newJob('restarts', { backoffLimit: 2 }, 'OnFailure'));
    const [pod] = await waitForActive(ns, 1);
    const current = await cp.client.pods(ns).get(pod?.metadata.name ?? '');
    current.status = {
      ...current.status,
      phase: 'Running',
      containerStatuses: [
        { name: 'main', image: 'busybox', imageID: '', ready: false, restartCount: 2, state: { running: {} } },
      ],
    };
    await cp.client.pods(ns).updateStatus(current);
    const job = await waitForCondition(ns, 'restarts', 'Failed');
    assert.equal(cond(job, 'Failed')?.reason, 'BackoffLimitExceeded', 'reason');
    assert.equal(job.status?.failed, 1, 'the running pod, deleted, counts as failed');
  });

  it('fails the Job at once on a FailJob rule of podFailurePolicy', async () => {
    const ns = await namespace();
    await cp.client.jobs(ns).create(
      newJob('policy', {
        backoffLimit: 6,
        podFailurePolicy: {
          rules: [{ action: 'FailJob', onExitCodes: { containerName: 'main', operator: 'In', values: [42] } }],
        },
      }),
    );
    const [pod] = await waitForActive(ns, 1);
    await finishPod(cp, ns, pod as KubeObject, { phase: 'Failed', exitCode: 42 });
    const job = await waitForCondition(ns, 'policy', 'Failed');
    const target = cond(job, 'FailureTarget');
    assert.equal(target?.reason, 'PodFailurePolicy', 'reason');
    assert.equal(
      target?.message,
      `Container main for pod ${ns}/${pod?.metadata.name} failed with exit code 42 matching FailJob rule at index 0`,
      'message',
    );
  });

  it('does not count failures matched by an Ignore rule (DisruptionTarget) and replaces the pod', async () => {
    const ns = await namespace();
    await cp.client.jobs(ns).create(
      newJob('disrupted', {
        backoffLimit: 0,
        podFailurePolicy: { rules: [{ action: 'Ignore', onPodConditions: [{ type: 'DisruptionTarget' }] }] },
      }),
    );
    const [pod] = await waitForActive(ns, 1);
    await finishPod(cp, ns, pod as KubeObject, { phase: 'Failed', exitCode: 137, disruption: true });
    const [replacement] = await waitForActive(ns, 1);
    assert.notEqual(replacement?.metadata.name, pod?.metadata.name, 'a new pod');
    const job = await getJob(ns, 'disrupted');
    assert.equal(job.status?.failed, undefined, 'the ignored failure is not counted');
    assert.equal(cond(job, 'FailureTarget'), undefined, 'not failed');
  });

  it('runs an Indexed Job: index annotation, label, env and hostname, completedIndexes as intervals', async () => {
    const ns = await namespace();
    await cp.client.jobs(ns).create(newJob('idx', { completions: 4, parallelism: 4, completionMode: 'Indexed' }));
    const pods = await waitForActive(ns, 4);
    const byIndex = new Map<string, KubeObject>();
    for (const pod of pods) {
      const ix = pod.metadata.annotations?.['batch.kubernetes.io/job-completion-index'] ?? '';
      byIndex.set(ix, pod);
      assert.equal(pod.metadata.labels?.['batch.kubernetes.io/job-completion-index'], ix, 'index label');
      assert.equal(pod.spec?.hostname, `idx-${ix}`, 'hostname');
      assert.match(pod.metadata.name ?? '', new RegExp(`^idx-${ix}-[a-z0-9]{5}$`), 'name carries the index');
      const env = pod.spec?.containers?.[0]?.env ?? [];
      assert.deepEqual(
        env.find((e: { name: string }) => e.name === 'JOB_COMPLETION_INDEX')?.valueFrom?.fieldRef?.fieldPath,
        "metadata.labels['batch.kubernetes.io/job-completion-index']",
        'JOB_COMPLETION_INDEX env',
      );
    }
    assert.deepEqual([...byIndex.keys()].sort(), ['0', '1', '2', '3'], 'one pod per index');
    for (const ix of ['0', '2', '3']) await finishPod(cp, ns, byIndex.get(ix) as KubeObject, { phase: 'Succeeded' });
    await eventually(async () => {
      const job = await getJob(ns, 'idx');
      assert.equal(job.status?.completedIndexes, '0,2,3', `completedIndexes: ${JSON.stringify(job.status)}`);
      assert.equal(job.status?.succeeded, 3, 'succeeded');
    });
    await finishPod(cp, ns, byIndex.get('1') as KubeObject, { phase: 'Succeeded' });
    const job = await waitForCondition(ns, 'idx', 'Complete');
    assert.equal(job.status?.completedIndexes, '0-3', 'all indexes');
  });

  it('fails an index after backoffLimitPerIndex and the Job with FailedIndexes', async () => {
    const ns = await namespace();
    await cp.client
      .jobs(ns)
      .create(
        newJob('perindex', { completions: 2, parallelism: 2, completionMode: 'Indexed', backoffLimitPerIndex: 0 }),
      );
    const pods = await waitForActive(ns, 2);
    const ix = (p: KubeObject) => p.metadata.annotations?.['batch.kubernetes.io/job-completion-index'];
    for (const pod of pods) {
      assert.equal(pod.metadata.annotations?.['batch.kubernetes.io/job-index-failure-count'], '0', 'failure count');
      await finishPod(cp, ns, pod, ix(pod) === '0' ? { phase: 'Failed', exitCode: 3 } : { phase: 'Succeeded' });
    }
    const job = await waitForCondition(ns, 'perindex', 'Failed');
    assert.equal(job.status?.failedIndexes, '0', 'failedIndexes');
    assert.equal(job.status?.completedIndexes, '1', 'completedIndexes');
    assert.equal(cond(job, 'FailureTarget')?.reason, 'FailedIndexes', 'reason');
  });

  it('meets a successPolicy with SuccessPolicy and removes the remaining pods', async () => {
    const ns = await namespace();
    await cp.client.jobs(ns).create(
      newJob('leader', {
        completions: 3,
        parallelism: 3,
        completionMode: 'Indexed',
        successPolicy: { rules: [{ succeededIndexes: '0' }] },
      }),
    );
    const pods = await waitForActive(ns, 3);
    const leader = pods.find((p) => p.metadata.annotations?.['batch.kubernetes.io/job-completion-index'] === '0');
    await finishPod(cp, ns, leader as KubeObject, { phase: 'Succeeded' });
    const job = await waitForCondition(ns, 'leader', 'Complete');
    const met = cond(job, 'SuccessCriteriaMet');
    assert.equal(met?.reason, 'SuccessPolicy', 'reason');
    assert.equal(met?.message, 'Matched rules at index 0', 'message');
    await waitForActive(ns, 0);
  });

  it('suspends: no pods and Suspended; resuming sets startTime and creates pods; suspending deletes them', async () => {
    const ns = await namespace();
    await cp.client.jobs(ns).create(newJob('later', { suspend: true, parallelism: 2, completions: 4 }));
    const suspended = await waitForCondition(ns, 'later', 'Suspended');
    assert.equal(cond(suspended, 'Suspended')?.reason, 'JobSuspended', 'reason');
    assert.equal(suspended.status?.startTime, undefined, 'not started');
    assert.equal((await jobPods(cp, ns)).length, 0, 'no pods while suspended');
    await cp.client.jobs(ns).patch('later', 'merge', { spec: { suspend: false } });
    await waitForActive(ns, 2);
    const resumed = await eventually(async () => {
      const job = await getJob(ns, 'later');
      assert.equal(cond(job, 'Suspended')?.status, 'False', 'Suspended False');
      return job;
    });
    assert.equal(cond(resumed, 'Suspended')?.reason, 'JobResumed', 'resumed reason');
    assert.ok(resumed.status?.startTime, 'startTime set on resume');
    await cp.client.jobs(ns).patch('later', 'merge', { spec: { suspend: true } });
    await waitForActive(ns, 0);
    await waitForCondition(ns, 'later', 'Suspended');
    await eventually(async () => {
      const reasons = (await jobEvents(cp, ns, 'later')).map((e) => e.reason);
      for (const r of ['Suspended', 'Resumed', 'SuccessfulDelete']) assert.ok(reasons.includes(r), `event ${r}`);
    });
  });

  it('leaves Jobs managed by another controller alone', async () => {
    const ns = await namespace();
    await cp.client.jobs(ns).create(newJob('external', { managedBy: 'example.com/other' }));
    await cp.client.jobs(ns).create(newJob('ours', {}));
    await waitForActive(ns, 1);
    const pods = await jobPods(cp, ns);
    assert.ok(
      pods.every((p) => p.metadata.labels?.['job-name'] === 'ours'),
      'only the Job we manage has pods',
    );
    const external = await getJob(ns, 'external');
    assert.equal(external.status?.startTime, undefined, 'the external Job has no status from us');
  });

  it('podReplacementPolicy Failed waits for a deleted pod to fail; terminating is counted', async () => {
    const ns = await namespace();
    await cp.client.jobs(ns).create(newJob('careful', { podReplacementPolicy: 'Failed' }));
    const [pod] = await waitForActive(ns, 1);
    const name = pod?.metadata.name ?? '';
    // Bound, so that deletion is graceful and the pod stays terminating.
    await cp.client.pods(ns).createSubresource(name, 'binding', {
      apiVersion: 'v1',
      kind: 'Binding',
      metadata: { name },
      target: { apiVersion: 'v1', kind: 'Node', name: 'node-a' },
    });
    await cp.client.pods(ns).delete(name);
    await eventually(async () => {
      const job = await getJob(ns, 'careful');
      assert.equal(job.status?.terminating, 1, `terminating: ${JSON.stringify(job.status)}`);
      assert.equal(job.status?.active, undefined, 'no active pod');
    });
    assert.equal((await jobPods(cp, ns)).length, 1, 'no replacement while the old pod terminates');
    await finishPod(cp, ns, pod as KubeObject, { phase: 'Failed', exitCode: 137 });
    await waitForActive(ns, 1);
    await eventually(async () => {
      const job = await getJob(ns, 'careful');
      assert.equal(job.status?.failed, 1, 'counted as failed');
    });
  });

  it('TerminatingOrFailed replaces a deleted pod at once and counts it failed', async () => {
    const ns = await namespace();
    await cp.client.jobs(ns).create(newJob('eager', {}));
    const [pod] = await waitForActive(ns, 1);
    await cp.client.pods(ns).delete(pod?.metadata.name ?? '');
    const [replacement] = await waitForActive(ns, 1);
    assert.notEqual(replacement?.metadata.name, pod?.metadata.name, 'replaced');
    await eventually(async () => {
      const job = await getJob(ns, 'eager');
      assert.equal(job.status?.failed, 1, `failed: ${JSON.stringify(job.status)}`);
    });
  });

  it('is deleted by ttl-after-finished once finished with ttlSecondsAfterFinished 0', async () => {
    const ns = await namespace();
    await cp.client.jobs(ns).create(newJob('shortlived', { ttlSecondsAfterFinished: 0 }));
    const [pod] = await waitForActive(ns, 1);
    await finishPod(cp, ns, pod as KubeObject, { phase: 'Succeeded' });
    await eventually(async () => {
      try {
        const job = await getJob(ns, 'shortlived');
        assert.ok(job.metadata.deletionTimestamp, 'being deleted');
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
    });
  });
});
