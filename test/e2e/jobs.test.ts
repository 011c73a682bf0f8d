/**
 * The real kubectl against `wheelhouse up --nodes 3`: Jobs run to completion on simulated nodes, whose pods complete
 * or fail as their sim.wheelhouse.dev annotations ask (issue 7's Job acceptance). One cluster serves every test.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import assert from '../../src/testing/assert.js';
import { eventually } from '../../src/testing/controllers.js';
import { nodesReady } from '../../src/testing/kubectl.js';
import { startWheelhouse, type WheelhouseProcess } from '../../src/testing/wheelhouse-process.js';

const run = promisify(execFile);

interface Condition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
}

interface Job {
  status: {
    succeeded?: number;
    failed?: number;
    completedIndexes?: string;
    conditions?: Condition[];
    completionTime?: string;
  };
}

interface Pod {
  metadata: { name: string; annotations?: Record<string, string> };
  status: {
    phase?: string;
    containerStatuses?: { state?: { terminated?: { exitCode: number; reason: string } } }[];
  };
}

/** A Job manifest whose pods behave as the sim annotations say. */
function jobYaml(name: string, spec: string, sim: Record<string, string>): string {
  const annotations = Object.entries(sim)
    .map(([k, v]) => `        sim.wheelhouse.dev/${k}: "${v}"`)
    .join('\n');
  return `apiVersion: batch/v1
kind: Job
metadata:
  name: ${name}
spec:
${spec}
  template:
    metadata:
      annotations:
${annotations}
    spec:
      restartPolicy: Never
      containers:
      - name: main
        image: busybox
`;
}

describe('kubectl against wheelhouse up --nodes 3: Jobs', () => {
  const root = mkdtempSync(join(tmpdir(), 'wheelhouse-jobs-e2e-'));
  const dataDir = join(root, 'data');
  let up: WheelhouseProcess;
  const kubectl = async (...args: string[]) =>
    (
      await run('kubectl', ['--kubeconfig', join(dataDir, 'kubeconfig'), '--cache-dir', join(root, 'kc'), ...args], {
        timeout: 90_000,
      })
    ).stdout;
  let manifests = 0;
  const apply = async (yaml: string) => {
    const file = join(root, `job-${++manifests}.yaml`);
    writeFileSync(file, yaml);
    return kubectl('apply', '-f', file);
  };
  const job = async (name: string): Promise<Job> => JSON.parse(await kubectl('get', 'job', name, '-o', 'json'));
  const podsOf = async (name: string): Promise<Pod[]> =>
    JSON.parse(await kubectl('get', 'pods', '-l', `job-name=${name}`, '-o', 'json')).items;
  const condition = (j: Job, type: string) => j.status.conditions?.find((c) => c.type === type);

  before(async () => {
    up = await startWheelhouse('up', ['--storage', 'memory', '--data-dir', dataDir, '--nodes', '3']);
    await nodesReady(kubectl, 3, { timeoutMs: 30_000, intervalMs: 200 });
    await eventually(async () => assert.match(await kubectl('get', 'serviceaccount', 'default'), /default/, 'sa'), {
      timeoutMs: 30_000,
      intervalMs: 200,
    });
  });

  after(async () => {
    await up?.stop();
    rmSync(root, { recursive: true, force: true });
  });

  it('a Job of 5 completions, 2 at a time, completes and kubectl wait returns', async () => {
    await apply(
      jobYaml('five', '  completions: 5\n  parallelism: 2', {
        lifecycle: 'complete',
        'start-seconds': '0',
        'run-seconds': '1',
      }),
    );
    const out = await kubectl('wait', '--for=condition=complete', 'job/five', '--timeout=60s');
    assert.match(out, /job.batch\/five condition met/);
    const j = await job('five');
    assert.equal(j.status.succeeded, 5, 'five succeeded');
    assert.equal(condition(j, 'SuccessCriteriaMet')?.reason, 'CompletionsReached', 'SuccessCriteriaMet first');
    assert.ok(j.status.completionTime, 'completionTime');
    assert.match(await kubectl('get', 'job', 'five'), /^five\s+Complete\s+5\/5\s+/m);
    const pods = await podsOf('five');
    assert.equal(pods.length, 5, 'five pods');
    for (const p of pods) {
      assert.equal(p.status.phase, 'Succeeded', `${p.metadata.name} succeeded`);
      assert.equal(p.status.containerStatuses?.[0]?.state?.terminated?.exitCode, 0, 'exit code 0');
      assert.equal(p.status.containerStatuses?.[0]?.state?.terminated?.reason, 'Completed', 'Completed');
    }
    const events = await kubectl('get', 'events', '--field-selector', 'involvedObject.name=five');
    assert.match(events, /SuccessfulCreate\s+job\/five\s+Created pod: five-/);
    assert.match(events, /Completed\s+job\/five\s+Job completed/);
  });

  it('a failing Job honours backoffLimit: two failed pods, then BackoffLimitExceeded', async () => {
    await apply(
      jobYaml('flaky', '  backoffLimit: 1', {
        lifecycle: 'fail',
        'exit-code': '3',
        'start-seconds': '0',
        'run-seconds': '0',
      }),
    );
    await kubectl('wait', '--for=condition=failed', 'job/flaky', '--timeout=60s');
    const j = await job('flaky');
    assert.equal(j.status.failed, 2, 'the first pod and its one retry failed');
    assert.equal(condition(j, 'FailureTarget')?.reason, 'BackoffLimitExceeded', 'FailureTarget');
    assert.equal(condition(j, 'Failed')?.message, 'Job has reached the specified backoff limit', 'Failed message');
    const pods = await podsOf('flaky');
    assert.equal(pods.length, 2, 'one retry');
    for (const p of pods) {
      assert.equal(p.status.phase, 'Failed', 'pod Failed');
      assert.equal(p.status.containerStatuses?.[0]?.state?.terminated?.exitCode, 3, 'exit code 3');
    }
  });

  it('a podFailurePolicy FailJob rule on an exit code fails the Job without retries', async () => {
    await apply(
      jobYaml(
        'fatal',
        `  backoffLimit: 6
  podFailurePolicy:
    rules:
    - action: FailJob
      onExitCodes:
        containerName: main
        operator: In
        values: [42]`,
        { lifecycle: 'fail', 'exit-code': '42', 'start-seconds': '0', 'run-seconds': '0' },
      ),
    );
    await kubectl('wait', '--for=condition=failed', 'job/fatal', '--timeout=60s');
    const j = await job('fatal');
    const failed = condition(j, 'Failed');
    assert.equal(failed?.reason, 'PodFailurePolicy', 'reason');
    const [pod] = await podsOf('fatal');
    assert.equal(
      failed?.message,
      `Container main for pod default/${pod?.metadata.name} failed with exit code 42 matching FailJob rule at index 0`,
      'message',
    );
    assert.equal((await podsOf('fatal')).length, 1, 'no retry');
  });

  it('an Indexed Job completes every index and shows its completed indexes', async () => {
    await apply(
      jobYaml('indexed', '  completions: 3\n  parallelism: 3\n  completionMode: Indexed', {
        lifecycle: 'complete',
        'start-seconds': '0',
        'run-seconds': '1',
      }),
    );
    await kubectl('wait', '--for=condition=complete', 'job/indexed', '--timeout=60s');
    assert.equal(await kubectl('get', 'job', 'indexed', '-o', 'jsonpath={.status.completedIndexes}'), '0-2');
    const indexes = (await podsOf('indexed'))
      .map((p) => p.metadata.annotations?.['batch.kubernetes.io/job-completion-index'])
      .sort();
    assert.deepEqual(indexes, ['0', '1', '2'], 'one pod per index');
    assert.match(await kubectl('describe', 'job', 'indexed'), /Completed Indexes:\s+0-2/);
  });
});
