/**
 * The node failure timeline with the real kubectl against `wheelhouse up --nodes 3`, with shortened grace and
 * toleration flags: a stopped node goes NotReady, gets the unreachable taints, its pods are evicted and run
 * elsewhere; started again, it is Ready and untainted.
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
import { startWheelhouse, WHEELHOUSE_BIN, type WheelhouseProcess } from '../../src/testing/wheelhouse-process.js';

const run = promisify(execFile);

interface Pod {
  metadata: { name: string; deletionTimestamp?: string };
  spec: { nodeName?: string; tolerations?: { key?: string; effect?: string; tolerationSeconds?: number }[] };
  status: { phase?: string };
}

interface Node {
  spec: { taints?: { key: string; effect: string; timeAdded?: string }[] };
  status: { conditions: { type: string; status: string; reason?: string; message?: string }[] };
}

describe('kubectl against wheelhouse up --nodes 3: a node fails, its pods move, it comes back', () => {
  const root = mkdtempSync(join(tmpdir(), 'wheelhouse-node-failure-e2e-'));
  const dataDir = join(root, 'data');
  const kubeconfig = join(dataDir, 'kubeconfig');
  let up: WheelhouseProcess;
  const kubectl = async (...args: string[]) =>
    (await run('kubectl', ['--kubeconfig', kubeconfig, '--cache-dir', join(root, 'kcache'), ...args])).stdout;
  const wheelhouse = async (...args: string[]) => (await run(process.execPath, [WHEELHOUSE_BIN, ...args])).stdout;
  const pods = async (): Promise<Pod[]> =>
    JSON.parse(await kubectl('get', 'pods', '-n', 'default', '-l', 'app=app', '-o', 'json')).items;
  const node = async (name: string): Promise<Node> => JSON.parse(await kubectl('get', 'node', name, '-o', 'json'));
  const slow = { timeoutMs: 60_000, intervalMs: 250 };
  let original: string[] = [];

  before(async () => {
    up = await startWheelhouse('up', [
      '--storage',
      'memory',
      '--data-dir',
      dataDir,
      '--nodes',
      '3',
      // The node lifecycle controller notices a silent node after 4 s (looking every second); the kubelets renew
      // their Leases every second (a quarter of 4 s), well within that grace period.
      '--node-monitor-grace-period=4s',
      '--node-monitor-period=1s',
      '--node-lease-duration-seconds=4',
      // Pods tolerate an unreachable or not-ready node for 2 s instead of 300.
      '--default-not-ready-toleration-seconds=2',
      '--default-unreachable-toleration-seconds=2',
    ]);
    await nodesReady(kubectl, 3, slow);
  });
  after(async () => {
    if (up) assert.equal(await up.stop(), 0, up.out());
    rmSync(root, { recursive: true, force: true });
  });

  it('wheelhouse node stop node-2: NotReady, unreachable taints, its pods evicted and Running elsewhere', async () => {
    // The Deployment's pods all start on node-2: the other nodes are cordoned meanwhile.
    await kubectl('cordon', 'node-1', 'node-3');
    try {
      const file = join(root, 'app.yaml');
      writeFileSync(
        file,
        `apiVersion: apps/v1
kind: Deployment
metadata: {name: app}
spec:
  replicas: 3
  selector: {matchLabels: {app: app}}
  template:
    metadata: {labels: {app: app}}
    spec:
      terminationGracePeriodSeconds: 1
      containers: [{name: c, image: nginx}]
`,
      );
      assert.match(await kubectl('apply', '-f', file), /^deployment\.apps\/app created$/m);
      original = await eventually(async () => {
        const list = await pods();
        assert.equal(list.length, 3);
        assert.ok(list.every((p) => p.status.phase === 'Running' && p.spec.nodeName === 'node-2'));
        return list.map((p) => p.metadata.name);
      }, slow);
    } finally {
      await kubectl('uncordon', 'node-1', 'node-3');
    }
    // DefaultTolerationSeconds gave every pod the shortened tolerations.
    for (const p of await pods()) {
      for (const key of ['node.kubernetes.io/not-ready', 'node.kubernetes.io/unreachable']) {
        const t = p.spec.tolerations?.find((x) => x.key === key);
        assert.deepEqual(
          { effect: t?.effect, tolerationSeconds: t?.tolerationSeconds },
          { effect: 'NoExecute', tolerationSeconds: 2 },
        );
      }
    }

    assert.match(await wheelhouse('node', 'stop', 'node-2', '--kubeconfig', kubeconfig), /^node\/node-2 stopped$/m);
    await eventually(async () => {
      const nodes = await kubectl('get', 'nodes');
      assert.match(nodes, /^node-2\s+NotReady\s+/m);
      assert.match(nodes, /^node-1\s+Ready\s+/m);
      assert.match(nodes, /^node-3\s+Ready\s+/m);
    }, slow);
    const ready = (await node('node-2')).status.conditions.find((c) => c.type === 'Ready');
    assert.deepEqual(
      { status: ready?.status, reason: ready?.reason, message: ready?.message },
      { status: 'Unknown', reason: 'NodeStatusUnknown', message: 'Kubelet stopped posting node status.' },
    );
    await eventually(async () => {
      const taints = ((await node('node-2')).spec.taints ?? []).map((t) => `${t.key}:${t.effect}`).sort();
      assert.deepEqual(taints, [
        'node.kubernetes.io/unreachable:NoExecute',
        'node.kubernetes.io/unreachable:NoSchedule',
      ]);
    }, slow);
    assert.match(
      await kubectl('describe', 'node', 'node-2'),
      /^Taints:\s+node\.kubernetes\.io\/unreachable:NoExecute\n\s+node\.kubernetes\.io\/unreachable:NoSchedule$/m,
    );

    // The taint-eviction controller deletes the pods once their 2 s tolerations run out; the ReplicaSet replaces
    // them and the scheduler puts the replacements on the healthy nodes. The old pods stay Terminating: their
    // kubelet is not there to finish their deletion.
    await eventually(async () => {
      const list = await pods();
      const live = list.filter((p) => !p.metadata.deletionTimestamp);
      assert.equal(live.length, 3);
      for (const p of live) {
        assert.ok(!original.includes(p.metadata.name), `${p.metadata.name} is a replacement`);
        assert.equal(p.status.phase, 'Running');
        assert.notEqual(p.spec.nodeName, 'node-2');
      }
      for (const p of list.filter((x) => original.includes(x.metadata.name))) {
        assert.ok(p.metadata.deletionTimestamp, `${p.metadata.name} is being deleted`);
      }
    }, slow);
    const wide = await kubectl('get', 'pods', '-o', 'wide');
    assert.equal(
      wide.match(/^app-\S+\s+1\/1\s+Running\s+0\s+\S+\s+10\.244\.\d+\.\d+\s+node-[13]\s+/gm)?.length,
      3,
      wide,
    );
    const events = await kubectl('get', 'events');
    for (const name of original) {
      assert.match(
        events,
        new RegExp(
          `^\\S+\\s+Normal\\s+TaintManagerEviction\\s+pod/${name}\\s+Marking for deletion Pod default/${name}$`,
          'm',
        ),
      );
    }
    assert.match(events, /^\S+\s+Normal\s+NodeNotReady\s+node\/node-2\s+Node node-2 status is now: NodeNotReady$/m);
  });

  it('wheelhouse node start node-2: Ready again, untainted, and the evicted pods finish', async () => {
    assert.match(await wheelhouse('node', 'start', 'node-2', '--kubeconfig', kubeconfig), /^node\/node-2 started$/m);
    await eventually(async () => assert.match(await kubectl('get', 'nodes'), /^node-2\s+Ready\s+/m), slow);
    await eventually(async () => assert.deepEqual((await node('node-2')).spec.taints ?? [], []), slow);
    await eventually(async () => {
      const list = await pods();
      assert.equal(list.length, 3);
      assert.ok(list.every((p) => !original.includes(p.metadata.name) && p.spec.nodeName !== 'node-2'));
    }, slow);
  });
});
