import { after, before, describe, it } from 'node:test';
import { isNotFound, type KubeObject } from '../../client/types.js';
import { type ControlPlane, startControlPlane } from '../../index.js';
import assert from '../../testing/assert.js';
import { eventually, runControllers } from '../../testing/controllers.js';
import { FakeClock } from '../../util/clock.js';
import type { ControllerManager } from '../manager.js';
import { podGcController } from './index.js';
import { compareForCollection, GC_CHECK_PERIOD_MS } from './podgc-controller.js';

const NS = 'default';

async function createPod(cp: ControlPlane, name: string, opts: { nodeName?: string; finalizers?: string[] } = {}) {
  return cp.client.pods(NS).create({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, ...(opts.finalizers ? { finalizers: opts.finalizers } : {}) },
    spec: { ...(opts.nodeName ? { nodeName: opts.nodeName } : {}), containers: [{ name: 'c', image: 'nginx:1.27' }] },
  });
}

async function setPhase(cp: ControlPlane, name: string, phase: string, reason?: string): Promise<void> {
  const pod = await cp.client.pods(NS).get(name);
  await cp.client.pods(NS).updateStatus({ ...pod, status: { ...pod.status, phase, ...(reason ? { reason } : {}) } });
}

async function podNames(cp: ControlPlane): Promise<string[]> {
  const list = await cp.client.pods(NS).list();
  return list.items.map((p) => p.metadata.name ?? '').sort();
}

async function tryGet(cp: ControlPlane, name: string): Promise<KubeObject | undefined> {
  try {
    return await cp.client.pods(NS).get(name);
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}

describe('pod-garbage-collector-controller: terminated pods', () => {
  let cp: ControlPlane;
  let manager: ControllerManager;

  before(async () => {
    cp = await startControlPlane({ storage: 'memory' });
    await createPod(cp, 'running');
    await setPhase(cp, 'running', 'Running');
    for (const name of ['done-1', 'done-2', 'done-3', 'done-4']) await createPod(cp, name);
    await setPhase(cp, 'done-1', 'Succeeded');
    await setPhase(cp, 'done-2', 'Failed');
    await setPhase(cp, 'done-3', 'Succeeded');
    await setPhase(cp, 'done-4', 'Failed', 'Evicted');
    manager = await runControllers(cp, [podGcController], {
      clock: new FakeClock(Date.now()),
      options: { terminatedPodGcThreshold: 2 },
    });
  });
  after(async () => {
    await manager?.stop();
    await cp?.stop();
  });

  it('deletes terminated pods over the threshold, evicted ones first, then the oldest', async () => {
    await eventually(async () => assert.deepEqual(await podNames(cp), ['done-2', 'done-3', 'running']));
  });
});

describe('pod-garbage-collector-controller: orphaned and unscheduled terminating pods', () => {
  let cp: ControlPlane;
  let manager: ControllerManager;
  const clock = new FakeClock(Date.now());

  before(async () => {
    cp = await startControlPlane({ storage: 'memory' });
    await cp.client.nodes().create({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-a' } });
    await createPod(cp, 'on-node-a', { nodeName: 'node-a' });
    await setPhase(cp, 'on-node-a', 'Running');
    await createPod(cp, 'on-gone-node', { nodeName: 'node-gone', finalizers: ['example.com/keep'] });
    await setPhase(cp, 'on-gone-node', 'Running');
    await createPod(cp, 'unscheduled', { finalizers: ['example.com/keep'] });
    await cp.client.pods(NS).delete('unscheduled');
    manager = await runControllers(cp, [podGcController], { clock });
  });
  after(async () => {
    for (const name of ['on-gone-node', 'unscheduled']) {
      await cp?.client
        .pods(NS)
        .patch(name, 'merge', { metadata: { finalizers: null } })
        .catch(() => {});
    }
    await manager?.stop();
    await cp?.stop();
  });

  it('fails and force deletes an unscheduled terminating pod', async () => {
    await eventually(async () => {
      const pod = await tryGet(cp, 'unscheduled');
      assert.equal(pod?.status?.phase, 'Failed');
    });
  });

  it('deletes pods of a node that does not exist only after the quarantine, and keeps pods of existing nodes', async () => {
    // The first pass (the one that failed the unscheduled pod) put node-gone in quarantine.
    assert.equal((await tryGet(cp, 'on-gone-node'))?.metadata.deletionTimestamp, undefined);
    clock.step(GC_CHECK_PERIOD_MS);
    await new Promise((r) => setTimeout(r, 200));
    assert.equal((await tryGet(cp, 'on-gone-node'))?.metadata.deletionTimestamp, undefined);
    clock.step(GC_CHECK_PERIOD_MS);
    await eventually(async () => {
      const pod = await tryGet(cp, 'on-gone-node');
      assert.ok(pod?.metadata.deletionTimestamp, 'the orphan is being deleted');
      assert.equal(pod.metadata.deletionGracePeriodSeconds, 0);
      assert.equal(pod.status?.phase, 'Failed');
      const condition = (pod.status?.conditions ?? []).find((c: { type: string }) => c.type === 'DisruptionTarget');
      assert.equal(condition?.status, 'True');
      assert.equal(condition?.reason, 'DeletionByPodGC');
      assert.equal(condition?.message, 'PodGC: node no longer exists');
    });
    const kept = await tryGet(cp, 'on-node-a');
    assert.equal(kept?.metadata.deletionTimestamp, undefined);
    assert.equal(kept?.status?.phase, 'Running');
  });
});

describe('pod-garbage-collector-controller ordering', () => {
  it('orders evicted pods first, then by creation time and name', () => {
    const pod = (name: string, created: string, evicted = false): KubeObject => ({
      metadata: { name, creationTimestamp: created },
      status: evicted ? { phase: 'Failed', reason: 'Evicted' } : { phase: 'Succeeded' },
    });
    const pods = [
      pod('c', '2025-01-01T00:00:02Z'),
      pod('b', '2025-01-01T00:00:01Z'),
      pod('a', '2025-01-01T00:00:02Z'),
      pod('z', '2025-01-01T00:00:09Z', true),
    ];
    assert.deepEqual(
      pods.sort(compareForCollection).map((p) => p.metadata.name),
      ['z', 'b', 'a', 'c'],
    );
  });
});
