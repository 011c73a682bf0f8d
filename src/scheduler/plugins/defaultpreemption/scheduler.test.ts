/**
 * Preemption end to end: the real scheduler (all in-tree plugins) against an in-process control plane. A node
 * holds a low-priority pod; a high-priority pod that needs its room preempts it. There is no kubelet: the test
 * finishes the victim's graceful deletion itself, as a kubelet would.
 */
import { after, before, describe, it } from 'node:test';
import type { KubeClient } from '../../../client/rest.js';
import type { KubeObject } from '../../../client/types.js';
import { startControlPlane } from '../../../index.js';
import assert from '../../../testing/assert.js';
import { eventually } from '../../../testing/controllers.js';
import { Scheduler } from '../../scheduler.js';
import { IN_TREE_PLUGINS } from '../registry.js';

type ControlPlane = Awaited<ReturnType<typeof startControlPlane>>;

const PRIORITY_CLASSES = { group: 'scheduling.k8s.io', version: 'v1', resource: 'priorityclasses' };

function pod(name: string, priorityClassName: string, priority: number): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'default' },
    spec: {
      priorityClassName,
      priority,
      containers: [{ name: 'app', image: 'registry.k8s.io/pause:3.10', resources: { requests: { cpu: '1' } } }],
    },
  };
}

describe('DefaultPreemption with the real scheduler', () => {
  let cp: ControlPlane;
  let client: KubeClient;
  let scheduler: Scheduler;

  before(async () => {
    cp = await startControlPlane({ storage: 'memory' });
    client = cp.client;
    const pcs = client.resource(PRIORITY_CLASSES);
    for (const [name, value] of [
      ['low', 1],
      ['high', 1000],
    ] as const) {
      await pcs.create({ apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name }, value });
    }
    const created = await client.nodes().create({
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name: 'node-1', labels: { 'kubernetes.io/hostname': 'node-1' } },
      spec: {},
    });
    // Ready, with room for one 1-cpu pod, and none of the taints a new node may get.
    await client.nodes().updateStatus({
      ...created,
      status: {
        allocatable: { cpu: '1', memory: '4Gi', pods: '110' },
        capacity: { cpu: '1', memory: '4Gi', pods: '110' },
        conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'ready' }],
      },
    });
    const current = await client.nodes().get('node-1');
    if ((current.spec?.taints ?? []).length > 0)
      await client.nodes().update({ ...current, spec: { ...current.spec, taints: [] } });
    scheduler = new Scheduler({ client, registry: IN_TREE_PLUGINS, leaderElect: false });
    await scheduler.start();
  });

  after(async () => {
    await scheduler?.stop();
    await cp?.stop();
  });

  it('a high-priority pod preempts a low-priority one on a full node', async () => {
    const pods = client.pods('default');
    await pods.create(pod('low', 'low', 1));
    await eventually(async () => assert.equal((await pods.get('low')).spec.nodeName, 'node-1'), { timeoutMs: 10_000 });

    const high = await pods.create(pod('high', 'high', 1000));
    // The victim is marked and deleted gracefully; finish the deletion as its kubelet would.
    const victim = await eventually(
      async () => {
        const v = await pods.get('low');
        assert.ok(v.metadata.deletionTimestamp, 'the victim is being deleted');
        return v;
      },
      { timeoutMs: 10_000 },
    );
    const condition = (victim.status?.conditions ?? []).find((c: { type: string }) => c.type === 'DisruptionTarget');
    assert.deepEqual(
      { status: condition?.status, reason: condition?.reason, message: condition?.message },
      {
        status: 'True',
        reason: 'PreemptionByScheduler',
        message: 'default-scheduler: preempting to accommodate a higher priority pod',
      },
    );
    assert.equal((await pods.get('high')).status?.nominatedNodeName, 'node-1');
    await pods.delete('low', { gracePeriodSeconds: 0 });

    await eventually(async () => assert.equal((await pods.get('high')).spec.nodeName, 'node-1'), { timeoutMs: 15_000 });
    await eventually(
      async () => {
        const events = (await client.events('default').list()).items;
        const preempted = events.find((e) => e.reason === 'Preempted' && e.involvedObject?.name === 'low');
        assert.equal(preempted?.message, `Preempted by pod ${high.metadata.uid} on node node-1`);
        // The attempt that preempted reports the Filter verdicts only (PostFilter succeeded).
        const failed = events.filter((e) => e.reason === 'FailedScheduling' && e.involvedObject?.name === 'high');
        assert.ok(failed.some((e) => e.message === '0/1 nodes are available: 1 Insufficient cpu.'));
      },
      { timeoutMs: 10_000 },
    );
  });
});
