/**
 * The real kubectl against `wheelhouse up --nodes 3`: a DaemonSet as a user sees it (issue 7's DaemonSet
 * acceptance). A pod on each node; a node joined later (a second `wheelhouse kubelet --sim` process) gets one; a node
 * tainted NoExecute loses its pod; `kubectl rollout status|history|undo ds/x` follow an image change.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import assert from '../../src/testing/assert.js';
import { eventually } from '../../src/testing/controllers.js';
import { startWheelhouse, WHEELHOUSE_BIN, type WheelhouseProcess } from '../../src/testing/wheelhouse-process.js';

const run = promisify(execFile);

/** A loopback port free right now. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

interface Pod {
  metadata: { name: string; deletionTimestamp?: string };
  spec: { nodeName?: string; containers: { image: string }[] };
  status: { phase?: string };
}

describe('kubectl against wheelhouse up --nodes 3: DaemonSets', () => {
  const root = mkdtempSync(join(tmpdir(), 'wheelhouse-ds-e2e-'));
  const dataDir = join(root, 'data');
  const kubeconfig = join(dataDir, 'kubeconfig');
  let up: WheelhouseProcess;
  let extra: ChildProcess | undefined;
  const kubectl = async (...args: string[]) =>
    (
      await run('kubectl', ['--kubeconfig', kubeconfig, '--cache-dir', join(root, 'kcache'), ...args], {
        timeout: 90_000,
      })
    ).stdout;
  const slow = { timeoutMs: 60_000, intervalMs: 250 };
  const livePods = async (): Promise<Pod[]> =>
    (JSON.parse(await kubectl('get', 'pods', '-l', 'app=agent', '-o', 'json')).items as Pod[]).filter(
      (p) => !p.metadata.deletionTimestamp,
    );
  const runningOn = async () =>
    (await livePods())
      .filter((p) => p.status.phase === 'Running')
      .map((p) => p.spec.nodeName ?? '')
      .sort();

  before(async () => {
    up = await startWheelhouse('up', ['--storage', 'memory', '--data-dir', dataDir, '--nodes', '3']);
    // Ready and untainted: a node registers with node.kubernetes.io/not-ready:NoSchedule, which no daemon pod
    // tolerates, and node-lifecycle lifts it a moment after Ready. A DaemonSet made before then wants 0 pods, and
    // kubectl rollout status would call that rolled out (as against upstream).
    await eventually(async () => {
      const nodes = JSON.parse(await kubectl('get', 'nodes', '-o', 'json')).items as {
        metadata: { name: string };
        spec: { taints?: unknown[] };
        status: { conditions?: { type: string; status: string }[] };
      }[];
      const settled = nodes
        .filter((n) => n.status.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'))
        .filter((n) => !n.spec.taints?.length)
        .map((n) => n.metadata.name)
        .sort();
      assert.deepEqual(settled, ['node-1', 'node-2', 'node-3']);
    }, slow);
  });
  after(async () => {
    if (extra && extra.exitCode === null) {
      const exited = new Promise((r) => extra?.once('exit', r));
      extra.kill('SIGINT');
      await exited;
    }
    if (up) assert.equal(await up.stop(), 0, up.out());
    rmSync(root, { recursive: true, force: true });
  });

  it('runs a pod on each node and kubectl rollout status reports the rollout done', async () => {
    const file = join(root, 'ds.yaml');
    writeFileSync(
      file,
      `apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: agent
spec:
  selector:
    matchLabels: {app: agent}
  template:
    metadata:
      labels: {app: agent}
      annotations: {sim.wheelhouse.dev/stop-seconds: "0"}
    spec:
      containers:
      - name: agent
        image: agent:1
`,
    );
    assert.match(await kubectl('apply', '-f', file), /daemonset.apps\/agent created/);
    const status = await kubectl('rollout', 'status', 'ds/agent', '--timeout=60s');
    assert.match(status, /daemon set "agent" successfully rolled out/);
    assert.deepEqual(await runningOn(), ['node-1', 'node-2', 'node-3']);
    const table = await kubectl('get', 'ds', 'agent');
    assert.match(table, /^agent\s+3\s+3\s+3\s+3\s+3\s+<none>\s+/m, table);
  });

  it('gives a node that joins later its pod', async () => {
    extra = spawn(
      process.execPath,
      [
        WHEELHOUSE_BIN,
        'kubelet',
        '--sim',
        '--kubeconfig',
        kubeconfig,
        '--nodes',
        '1',
        '--node-name-prefix',
        'extra-',
        '--kubelet-port',
        String(await freePort()),
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    extra.stdout?.on('data', (d) => {
      out += d;
    });
    extra.stderr?.on('data', (d) => {
      out += d;
    });
    await eventually(() => assert.match(out, /Press Ctrl-C/, `the extra kubelet started: ${out}`), slow);
    await eventually(
      async () => assert.deepEqual(await runningOn(), ['extra-1', 'node-1', 'node-2', 'node-3'], 'a pod on extra-1'),
      slow,
    );
    await kubectl('rollout', 'status', 'ds/agent', '--timeout=60s');
  });

  it('loses the pod of a node tainted NoExecute and does not put it back', async () => {
    await kubectl('taint', 'nodes', 'node-3', 'maint=now:NoExecute');
    await eventually(
      async () => assert.ok(!(await livePods()).some((p) => p.spec.nodeName === 'node-3'), 'no pod on node-3'),
      slow,
    );
    await new Promise((r) => setTimeout(r, 2000));
    assert.ok(!(await livePods()).some((p) => p.spec.nodeName === 'node-3'), 'still none on node-3');
    const ds = JSON.parse(await kubectl('get', 'ds', 'agent', '-o', 'json'));
    assert.equal(ds.status.desiredNumberScheduled, 3, 'node-3 is no longer desired');
    await kubectl('taint', 'nodes', 'node-3', 'maint=now:NoExecute-');
    await eventually(async () => assert.ok((await runningOn()).includes('node-3'), 'back on node-3'), slow);
  });

  it('rolls an image change out; rollout history and undo work', async () => {
    await kubectl('set', 'image', 'ds/agent', 'agent=agent:2');
    await kubectl('annotate', 'ds/agent', 'kubernetes.io/change-cause=agent 2', '--overwrite');
    const status = await kubectl('rollout', 'status', 'ds/agent', '--timeout=90s');
    assert.match(status, /daemon set "agent" successfully rolled out/);
    assert.ok(
      (await livePods()).every((p) => p.spec.containers[0]?.image === 'agent:2'),
      'every pod updated',
    );

    const history = await kubectl('rollout', 'history', 'ds/agent');
    assert.match(history, /REVISION\s+CHANGE-CAUSE/);
    assert.match(history, /^1\s+<none>/m, history);
    assert.match(history, /^2\s+/m, history);
    const rev1 = await kubectl('rollout', 'history', 'ds/agent', '--revision=1');
    assert.match(rev1, /Image:\s+agent:1/, rev1);

    assert.match(await kubectl('rollout', 'undo', 'ds/agent'), /daemonset.apps\/agent rolled back/);
    await kubectl('rollout', 'status', 'ds/agent', '--timeout=90s');
    assert.ok(
      (await livePods()).every((p) => p.spec.containers[0]?.image === 'agent:1'),
      'back on agent:1',
    );
    const after = await kubectl('rollout', 'history', 'ds/agent');
    assert.match(after, /^2\s+/m, after);
    assert.match(after, /^3\s+/m, 'the undone revision is renumbered 3');
    assert.doesNotMatch(after, /^1\s+/m, 'revision 1 became 3');
    // kubectl compares the revision's bytes with the patch it builds from the live object: they are equal, so
    // undoing to the current revision changes nothing.
    const generation = JSON.parse(await kubectl('get', 'ds/agent', '-o', 'json')).metadata.generation;
    assert.match(
      await kubectl('rollout', 'undo', 'ds/agent', '--to-revision=3'),
      /daemonset.apps\/agent skipped rollback \(current template already matches revision 3\)/,
    );
    assert.equal(JSON.parse(await kubectl('get', 'ds/agent', '-o', 'json')).metadata.generation, generation);
  });
});
