import { after, before, describe, it } from 'node:test';
import type { Taint } from '../../api/taints.js';
import { formatMicroTime, formatTime } from '../../client/events/event.js';
import { isNotFound, type KubeObject } from '../../client/types.js';
import { type ControlPlane, startControlPlane } from '../../index.js';
import assert from '../../testing/assert.js';
import { eventually, runControllers } from '../../testing/controllers.js';
import { FakeClock } from '../../util/clock.js';
import type { ControllerManager } from '../manager.js';
import { taintEvictionController } from '../tainteviction/index.js';
import { nodeLifecycleController } from './index.js';

const CONDITION_TYPES = ['MemoryPressure', 'DiskPressure', 'PIDPressure', 'Ready'];

/** What a simulated kubelet does: heartbeats in the node's status and its Lease, on the test's clock. */
class FakeKubelets {
  readonly alive = new Set<string>();

  constructor(
    private readonly cp: ControlPlane,
    private readonly clock: FakeClock,
  ) {}

  async register(name: string, ready: 'True' | 'False'): Promise<void> {
    await this.cp.client.nodes().create({ apiVersion: 'v1', kind: 'Node', metadata: { name } });
    await this.postStatus(name, { Ready: ready });
    this.alive.add(name);
    await this.renewLease(name);
  }

  /** Posts the node's conditions (all False but those given) with a new heartbeat. */
  async postStatus(name: string, statuses: Record<string, string>): Promise<void> {
    const node = await this.cp.client.nodes().get(name);
    const now = formatTime(this.clock.now());
    const previous: { type: string; status: string; lastTransitionTime?: string }[] = node.status?.conditions ?? [];
    const conditions = CONDITION_TYPES.map((type) => {
      const status = statuses[type] ?? (type === 'Ready' ? 'True' : 'False');
      const old = previous.find((c) => c.type === type);
      return {
        type,
        status,
        reason: type === 'Ready' ? (status === 'True' ? 'KubeletReady' : 'KubeletNotReady') : `KubeletHas${type}`,
        message: type === 'Ready' ? 'kubelet is posting ready status' : 'ok',
        lastHeartbeatTime: now,
        lastTransitionTime: old && old.status === status ? old.lastTransitionTime : now,
      };
    });
    await this.cp.client.nodes().updateStatus({ ...node, status: { ...node.status, conditions } });
  }

  async renewLease(name: string): Promise<void> {
    const leases = this.cp.client.leases('kube-node-lease');
    const spec = { holderIdentity: name, leaseDurationSeconds: 40, renewTime: formatMicroTime(this.clock.now()) };
    try {
      const lease = await leases.get(name);
      await leases.update({ ...lease, spec: { ...lease.spec, ...spec } });
    } catch (err) {
      if (!isNotFound(err)) throw err;
      await leases.create({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name }, spec });
    }
  }

  /** Renews the leases of the live nodes, moves the clock, and gives the controller a moment. */
  async advance(ms: number): Promise<void> {
    for (const name of this.alive) await this.renewLease(name);
    this.clock.step(ms);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const taintsOf = async (cp: ControlPlane, name: string): Promise<Taint[]> =>
  (await cp.client.nodes().get(name)).spec?.taints ?? [];
const has = (taints: Taint[], key: string, effect: string) => taints.some((t) => t.key === key && t.effect === effect);
const condition = (node: KubeObject, type: string) =>
  (node.status?.conditions ?? []).find((c: { type: string }) => c.type === type);

async function events(cp: ControlPlane, reason: string, name: string) {
  const list = await cp.client.events().list();
  return list.items.filter((e) => e.reason === reason && e.involvedObject?.name === name);
}

describe('node-lifecycle-controller', () => {
  let cp: ControlPlane;
  let manager: ControllerManager;
  const clock = new FakeClock(Date.now());
  let kubelets: FakeKubelets;

  before(async () => {
    cp = await startControlPlane({ storage: 'memory' });
    kubelets = new FakeKubelets(cp, clock);
    await kubelets.register('node-1', 'True');
    await kubelets.register('node-2', 'False');
    await kubelets.register('node-3', 'True');
    const pod = await cp.client.pods('default').create({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'web-1' },
      spec: { nodeName: 'node-1', containers: [{ name: 'c', image: 'nginx:1.27' }] },
    });
    const now = formatTime(clock.now());
    await cp.client.pods('default').updateStatus({
      ...pod,
      status: {
        phase: 'Running',
        conditions: [
          { type: 'Ready', status: 'True', lastTransitionTime: now },
          { type: 'ContainersReady', status: 'True', lastTransitionTime: now },
        ],
      },
    });
    manager = await runControllers(cp, [nodeLifecycleController], { clock });
  });
  after(async () => {
    await manager?.stop();
    await cp?.stop();
  });

  it('registers the nodes it sees', async () => {
    await eventually(async () => {
      for (const name of ['node-1', 'node-2', 'node-3']) {
        const [ev] = await events(cp, 'RegisteredNode', name);
        assert.equal(ev?.message, `Node ${name} event: Registered Node ${name} in Controller`);
        assert.equal(ev?.source?.component, 'node-controller');
        assert.equal(ev?.involvedObject?.kind, 'Node');
      }
    });
  });

  it('taints a node that reports Ready=False with not-ready (NoExecute and NoSchedule)', async () => {
    await eventually(async () => {
      await kubelets.advance(100);
      const taints = await taintsOf(cp, 'node-2');
      assert.ok(has(taints, 'node.kubernetes.io/not-ready', 'NoExecute'), JSON.stringify(taints));
      assert.ok(has(taints, 'node.kubernetes.io/not-ready', 'NoSchedule'), JSON.stringify(taints));
      assert.ok(
        taints.filter((t) => t.effect === 'NoExecute').every((t) => t.timeAdded),
        'NoExecute taints carry timeAdded',
      );
    });
    for (const name of ['node-1', 'node-3']) assert.deepEqual(await taintsOf(cp, name), []);
  });

  it('turns a silent node Unknown after the grace period, marks its pods not ready and taints it unreachable', async () => {
    kubelets.alive.delete('node-1');
    const silentSince = clock.now();
    while (clock.now() < silentSince + 45_000) await kubelets.advance(5_000);
    assert.equal(condition(await cp.client.nodes().get('node-1'), 'Ready')?.status, 'True');

    await eventually(async () => {
      await kubelets.advance(5_000);
      const node = await cp.client.nodes().get('node-1');
      for (const type of CONDITION_TYPES) {
        const c = condition(node, type);
        assert.equal(c?.status, 'Unknown', type);
        assert.equal(c?.reason, 'NodeStatusUnknown');
        assert.equal(c?.message, 'Kubelet stopped posting node status.');
      }
    });
    await eventually(async () => {
      const pod = await cp.client.pods('default').get('web-1');
      assert.equal(condition(pod, 'Ready')?.status, 'False');
      const [podEvent] = await events(cp, 'NodeNotReady', 'web-1');
      assert.equal(podEvent?.type, 'Warning');
      assert.equal(podEvent?.message, 'Node is not ready');
      const [nodeEvent] = await events(cp, 'NodeNotReady', 'node-1');
      assert.equal(nodeEvent?.message, 'Node node-1 status is now: NodeNotReady');
    });
    await eventually(async () => {
      await kubelets.advance(1_000);
      const taints = await taintsOf(cp, 'node-1');
      assert.ok(has(taints, 'node.kubernetes.io/unreachable', 'NoExecute'), JSON.stringify(taints));
      assert.ok(has(taints, 'node.kubernetes.io/unreachable', 'NoSchedule'), JSON.stringify(taints));
      assert.ok(!has(taints, 'node.kubernetes.io/not-ready', 'NoExecute'), JSON.stringify(taints));
    });
  });

  it('removes the taints when the nodes are Ready again', async () => {
    kubelets.alive.add('node-1');
    await kubelets.postStatus('node-1', { Ready: 'True' });
    await kubelets.postStatus('node-2', { Ready: 'True' });
    await eventually(async () => {
      await kubelets.advance(1_000);
      assert.deepEqual(await taintsOf(cp, 'node-1'), []);
      assert.deepEqual(await taintsOf(cp, 'node-2'), []);
    });
  });

  it('keeps the NoSchedule taints of conditions and spec.unschedulable', async () => {
    await kubelets.postStatus('node-3', { Ready: 'True', MemoryPressure: 'True', DiskPressure: 'True' });
    await cp.client.nodes().patch('node-3', 'merge', { spec: { unschedulable: true } });
    await eventually(async () => {
      const taints = await taintsOf(cp, 'node-3');
      assert.deepEqual(taints.map((t) => `${t.key}:${t.effect}`).sort(), [
        'node.kubernetes.io/disk-pressure:NoSchedule',
        'node.kubernetes.io/memory-pressure:NoSchedule',
        'node.kubernetes.io/unschedulable:NoSchedule',
      ]);
    });
    await kubelets.postStatus('node-3', { Ready: 'True' });
    await cp.client.nodes().patch('node-3', 'merge', { spec: { unschedulable: null } });
    await eventually(async () => assert.deepEqual(await taintsOf(cp, 'node-3'), []));
  });

  it('sets the beta os and arch labels from the stable ones', async () => {
    await cp.client.nodes().patch('node-3', 'merge', {
      metadata: { labels: { 'kubernetes.io/os': 'linux', 'kubernetes.io/arch': 'amd64' } },
    });
    await eventually(async () => {
      const labels = (await cp.client.nodes().get('node-3')).metadata.labels ?? {};
      assert.equal(labels['beta.kubernetes.io/os'], 'linux');
      assert.equal(labels['beta.kubernetes.io/arch'], 'amd64');
    });
  });

  it('records the removal of a deleted node', async () => {
    await cp.client.nodes().delete('node-2');
    kubelets.alive.delete('node-2');
    await eventually(async () => {
      await kubelets.advance(5_000);
      const [ev] = await events(cp, 'RemovingNode', 'node-2');
      assert.equal(ev?.message, 'Node node-2 event: Removing Node node-2 from Controller');
    });
  });
});

describe('node-lifecycle-controller: every node unreachable', () => {
  let cp: ControlPlane;
  let manager: ControllerManager;
  const clock = new FakeClock(Date.now());
  let kubelets: FakeKubelets;

  before(async () => {
    cp = await startControlPlane({ storage: 'memory' });
    kubelets = new FakeKubelets(cp, clock);
    await kubelets.register('node-a', 'True');
    await kubelets.register('node-b', 'True');
    manager = await runControllers(cp, [nodeLifecycleController], {
      clock,
      options: { nodeMonitorGracePeriodMs: 20_000 },
    });
  });
  after(async () => {
    await manager?.stop();
    await cp?.stop();
  });

  it('does not taint NoExecute while the whole cluster is disrupted (the control plane is likelier at fault)', async () => {
    await eventually(async () => assert.equal((await events(cp, 'RegisteredNode', 'node-b')).length, 1));
    kubelets.alive.clear();
    await eventually(async () => {
      await kubelets.advance(5_000);
      for (const name of ['node-a', 'node-b']) {
        assert.equal(condition(await cp.client.nodes().get(name), 'Ready')?.status, 'Unknown');
      }
    });
    for (let i = 0; i < 10; i++) await kubelets.advance(5_000);
    for (const name of ['node-a', 'node-b']) {
      const taints = await taintsOf(cp, name);
      assert.ok(!has(taints, 'node.kubernetes.io/unreachable', 'NoExecute'), JSON.stringify(taints));
      assert.ok(has(taints, 'node.kubernetes.io/unreachable', 'NoSchedule'), JSON.stringify(taints));
    }
  });
});

describe('node-lifecycle-controller with taint-eviction-controller: the failure timeline', () => {
  let cp: ControlPlane;
  let manager: ControllerManager;
  const clock = new FakeClock(Date.now());
  let kubelets: FakeKubelets;
  const unreachable = (seconds?: number) => [
    {
      key: 'node.kubernetes.io/unreachable',
      operator: 'Exists',
      effect: 'NoExecute',
      ...(seconds === undefined ? {} : { tolerationSeconds: seconds }),
    },
  ];

  before(async () => {
    cp = await startControlPlane({ storage: 'memory' });
    kubelets = new FakeKubelets(cp, clock);
    for (const name of ['node-x', 'node-y', 'node-z']) await kubelets.register(name, 'True');
    for (const [name, tolerations] of [
      ['short', unreachable(30)],
      ['forever', unreachable()],
    ] as const) {
      await cp.client.pods('default').create({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name },
        spec: { nodeName: 'node-x', tolerations, containers: [{ name: 'c', image: 'nginx:1.27' }] },
      });
    }
    manager = await runControllers(cp, [nodeLifecycleController, taintEvictionController], {
      clock,
      options: { nodeMonitorGracePeriodMs: 20_000 },
    });
  });
  after(async () => {
    await manager?.stop();
    await cp?.stop();
  });

  it('evicts the pods of a node that stopped reporting once their tolerationSeconds have passed', async () => {
    await eventually(async () => assert.equal((await events(cp, 'RegisteredNode', 'node-x')).length, 1));
    kubelets.alive.delete('node-x');
    await eventually(async () => {
      await kubelets.advance(1_000);
      assert.ok(has(await taintsOf(cp, 'node-x'), 'node.kubernetes.io/unreachable', 'NoExecute'), 'tainted');
    });
    const taintedAt = clock.now();
    await eventually(async () => {
      await kubelets.advance(1_000);
      const pod = await cp.client.pods('default').get('short');
      assert.ok(pod.metadata.deletionTimestamp, 'the pod is being deleted');
      assert.equal(condition(pod, 'DisruptionTarget')?.reason, 'DeletionByTaintManager');
    });
    assert.ok(clock.now() >= taintedAt + 29_000, 'not before its tolerationSeconds');
    const forever = await cp.client.pods('default').get('forever');
    assert.equal(forever.metadata.deletionTimestamp, undefined);
  });
});
