import { after, before, describe, it } from 'node:test';
import type { KubeObject, ResourceClient } from '../../client/types.js';
import { type ControlPlane, startControlPlane } from '../../index.js';
import assert from '../../testing/assert.js';
import { eventually, runControllers } from '../../testing/controllers.js';
import type { ControllerManager } from '../manager.js';
import { replicaSetController, replicationControllerController } from './index.js';
import { countPods } from './status.js';

let cp: ControlPlane;
let manager: ControllerManager;

const podSpec = { containers: [{ name: 'web', image: 'nginx:1.27' }] };
const nowTime = () => new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');

async function namespace(name: string): Promise<string> {
  await cp.client.namespaces().create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  return name;
}

function replicaSet(name: string, replicas: number, labels: Record<string, string>, extra: object = {}): KubeObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: { name },
    spec: {
      replicas,
      selector: { matchLabels: labels },
      template: { metadata: { labels: { ...labels, tier: 'front' }, annotations: { note: 'x' } }, spec: podSpec },
      ...extra,
    },
  };
}

/** The active (not terminating) pods of the namespace. */
async function activePods(ns: string): Promise<KubeObject[]> {
  const list = await cp.client.pods(ns).list();
  return list.items.filter((p) => !p.metadata.deletionTimestamp);
}

async function waitForPods(ns: string, count: number): Promise<KubeObject[]> {
  return eventually(async () => {
    const pods = await activePods(ns);
    assert.equal(pods.length, count, `pods: ${pods.map((p) => p.metadata.name).join(', ')}`);
    return pods;
  });
}

async function scale(client: ResourceClient, name: string, replicas: number): Promise<void> {
  await client.patch(name, 'merge', { spec: { replicas } });
}

async function bind(ns: string, pod: KubeObject, node: string): Promise<void> {
  const name = pod.metadata.name ?? '';
  await cp.client.pods(ns).createSubresource(name, 'binding', {
    apiVersion: 'v1',
    kind: 'Binding',
    metadata: { name },
    target: { apiVersion: 'v1', kind: 'Node', name: node },
  });
}

async function markReady(ns: string, pod: KubeObject, readySince = nowTime()): Promise<void> {
  const current = await cp.client.pods(ns).get(pod.metadata.name ?? '');
  current.status = {
    ...current.status,
    phase: 'Running',
    conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: readySince }],
  };
  await cp.client.pods(ns).updateStatus(current);
}

async function events(ns: string, reason: string): Promise<KubeObject[]> {
  return (await cp.client.events(ns).list()).items.filter((e) => e.reason === reason);
}

describe('replicaset controller', () => {
  before(async () => {
    cp = await startControlPlane({ storage: 'memory' });
    manager = await runControllers(cp, [replicaSetController, replicationControllerController]);
  });

  after(async () => {
    await manager?.stop();
    await cp?.stop();
  });

  it('creates pods owned by the ReplicaSet, with events and status', async () => {
    const ns = await namespace('rs-create');
    const rs = await cp.client.replicaSets(ns).create(replicaSet('web', 3, { app: 'web' }));
    const pods = await waitForPods(ns, 3);
    for (const pod of pods) {
      assert.match(pod.metadata.name ?? '', /^web-[a-z0-9]{5}$/);
      assert.deepEqual(pod.metadata.labels, { app: 'web', tier: 'front' });
      assert.deepEqual(pod.metadata.annotations, { note: 'x' });
      assert.deepEqual(pod.metadata.ownerReferences, [
        {
          apiVersion: 'apps/v1',
          kind: 'ReplicaSet',
          name: 'web',
          uid: rs.metadata.uid,
          controller: true,
          blockOwnerDeletion: true,
        },
      ]);
    }
    await eventually(async () => {
      const created = await events(ns, 'SuccessfulCreate');
      const messages = created.map((e) => e.message).sort();
      assert.deepEqual(messages, pods.map((p) => `Created pod: ${p.metadata.name}`).sort());
      for (const e of created) {
        assert.equal(e.type, 'Normal');
        assert.equal(e.source?.component, 'replicaset-controller');
        assert.equal(e.involvedObject?.kind, 'ReplicaSet');
        assert.equal(e.involvedObject?.name, 'web');
      }
    });
    await eventually(async () => {
      const status = (await cp.client.replicaSets(ns).get('web')).status;
      assert.deepEqual(
        { ...status, conditions: undefined },
        // Zero counts other than replicas are left out, as upstream's omitempty fields are.
        { replicas: 3, fullyLabeledReplicas: 3, observedGeneration: 1, conditions: undefined },
      );
    });
  });

  it('scales up and down, deleting unscheduled and not-ready pods first', async () => {
    const ns = await namespace('rs-scale');
    const rsClient = cp.client.replicaSets(ns);
    await rsClient.create(replicaSet('web', 3, { app: 'web' }));
    const firstThree = await waitForPods(ns, 3);
    for (const pod of firstThree) {
      await bind(ns, pod, 'node-1');
      await markReady(ns, pod);
    }
    await scale(rsClient, 'web', 5);
    const five = await waitForPods(ns, 5);
    const keep = new Set(firstThree.map((p) => p.metadata.name));
    const extra = five.filter((p) => !keep.has(p.metadata.name));
    assert.equal(extra.length, 2);
    // One of the new pods is scheduled but not ready, the other neither: both go before the three ready ones.
    await bind(ns, extra[0] as KubeObject, 'node-2');
    await eventually(async () => {
      const rs = await rsClient.get('web');
      assert.equal(rs.status?.replicas, 5);
      assert.equal(rs.status?.readyReplicas, 3);
      assert.equal(rs.status?.observedGeneration, rs.metadata.generation);
    });
    await scale(rsClient, 'web', 3);
    const three = await waitForPods(ns, 3);
    assert.deepEqual(three.map((p) => p.metadata.name).sort(), [...keep].sort());
    await eventually(async () => {
      const deleted = (await events(ns, 'SuccessfulDelete')).map((e) => e.message).sort();
      assert.deepEqual(deleted, extra.map((p) => `Deleted pod: ${p.metadata.name}`).sort());
    });

    // Down to one: a ready pod stays.
    await scale(rsClient, 'web', 1);
    const [last] = await waitForPods(ns, 1);
    assert.ok(keep.has(last?.metadata.name));
    await eventually(async () => {
      const rs = await rsClient.get('web');
      assert.equal(rs.status?.replicas, 1);
      assert.equal(rs.status?.readyReplicas, 1);
      assert.equal(rs.status?.availableReplicas, 1);
    });
  });

  it('replaces a deleted pod', async () => {
    const ns = await namespace('rs-replace');
    await cp.client.replicaSets(ns).create(replicaSet('web', 2, { app: 'web' }));
    const [victim] = await waitForPods(ns, 2);
    await cp.client.pods(ns).delete(victim?.metadata.name ?? '');
    const after = await eventually(async () => {
      const pods = await activePods(ns);
      assert.equal(pods.length, 2);
      assert.ok(!pods.some((p) => p.metadata.name === victim?.metadata.name));
      return pods;
    });
    assert.equal(after.length, 2);
  });

  it('adopts a matching orphan and releases a pod whose labels stop matching', async () => {
    const ns = await namespace('rs-adopt');
    const orphan = await cp.client.pods(ns).create({
      metadata: { name: 'orphan', labels: { app: 'web', tier: 'front' } },
      spec: podSpec,
    });
    const rs = await cp.client.replicaSets(ns).create(replicaSet('web', 2, { app: 'web' }));
    const pods = await waitForPods(ns, 2);
    const adopted = await eventually(async () => {
      const p = await cp.client.pods(ns).get('orphan');
      assert.deepEqual(p.metadata.ownerReferences, [
        {
          apiVersion: 'apps/v1',
          kind: 'ReplicaSet',
          name: 'web',
          uid: rs.metadata.uid,
          controller: true,
          blockOwnerDeletion: true,
        },
      ]);
      return p;
    });
    assert.equal(adopted.metadata.uid, orphan.metadata.uid);
    assert.ok(pods.some((p) => p.metadata.name === 'orphan'));

    // Relabel one of the pods: it is released, and a replacement is made.
    const other = pods.find((p) => p.metadata.name !== 'orphan');
    await cp.client.pods(ns).patch(other?.metadata.name ?? '', 'merge', { metadata: { labels: { app: 'debug' } } });
    await eventually(async () => {
      const released = await cp.client.pods(ns).get(other?.metadata.name ?? '');
      assert.equal(released.metadata.ownerReferences?.length ?? 0, 0);
    });
    await waitForPods(ns, 3);
    await eventually(async () => {
      const status = (await cp.client.replicaSets(ns).get('web')).status;
      assert.equal(status?.replicas, 2);
    });
  });

  it('counts ready and available pods, available only after minReadySeconds', async () => {
    const ns = await namespace('rs-status');
    const rsClient = cp.client.replicaSets(ns);
    await rsClient.create(replicaSet('web', 2, { app: 'web' }, { minReadySeconds: 1 }));
    const pods = await waitForPods(ns, 2);
    for (const pod of pods) await markReady(ns, pod);
    await eventually(async () => {
      const status = (await rsClient.get('web')).status;
      assert.equal(status?.readyReplicas, 2);
    });
    // No further event happens: the controller's own requeue makes them available.
    await eventually(
      async () => {
        const status = (await rsClient.get('web')).status;
        assert.equal(status?.availableReplicas, 2);
      },
      { timeoutMs: 5000 },
    );
    // Template labels the pods lack are not "fully labeled".
    await cp.client.pods(ns).patch(pods[0]?.metadata.name ?? '', 'merge', { metadata: { labels: { tier: null } } });
    await eventually(async () => {
      const status = (await rsClient.get('web')).status;
      assert.equal(status?.replicas, 2);
      assert.equal(status?.fullyLabeledReplicas, 1);
    });
  });

  it('keeps its counts in step with pod changes between syncs, as a full recount gives them', async () => {
    const ns = await namespace('rs-tally');
    const rsClient = cp.client.replicaSets(ns);
    const rs = await rsClient.create(replicaSet('web', 3, { app: 'web' }));
    const pods = await waitForPods(ns, 3);
    const names = pods.map((p) => p.metadata.name ?? '');
    /** The status must match the counts recomputed from the pods as stored now. */
    const settles = (expected: { replicas: number; fullyLabeled: number; ready: number }) =>
      eventually(async () => {
        const current = await rsClient.get('web');
        const owned = (await activePods(ns)).filter(
          (p) => p.metadata.ownerReferences?.[0]?.uid === rs.metadata.uid && p.status?.phase !== 'Failed',
        );
        const counts = countPods(current, owned, Date.now());
        assert.deepEqual(
          {
            replicas: current.status?.replicas,
            fullyLabeled: current.status?.fullyLabeledReplicas ?? 0,
            ready: current.status?.readyReplicas ?? 0,
            available: current.status?.availableReplicas ?? 0,
          },
          { ...expected, available: expected.ready },
        );
        assert.deepEqual(counts, { ...expected, available: expected.ready });
      });
    await settles({ replicas: 3, fullyLabeled: 3, ready: 0 });
    for (const pod of pods) await markReady(ns, pod);
    await settles({ replicas: 3, fullyLabeled: 3, ready: 3 });
    // One pod stops being ready: only its update says so.
    const first = await cp.client.pods(ns).get(names[0] ?? '');
    await cp.client.pods(ns).updateStatus({
      ...first,
      status: { ...first.status, conditions: [{ type: 'Ready', status: 'False', lastTransitionTime: nowTime() }] },
    });
    await settles({ replicas: 3, fullyLabeled: 3, ready: 2 });
    // A pod loses a template label but still matches the selector.
    await cp.client.pods(ns).patch(names[1] ?? '', 'merge', { metadata: { labels: { tier: null } } });
    await settles({ replicas: 3, fullyLabeled: 2, ready: 2 });
    // The template's labels change: every pod is counted again against the new ones.
    await rsClient.patch('web', 'merge', {
      spec: { template: { metadata: { labels: { app: 'web', tier: 'back' } } } },
    });
    await settles({ replicas: 3, fullyLabeled: 0, ready: 2 });
    // A pod fails: it no longer counts, and its replacement does.
    const failing = await cp.client.pods(ns).get(names[2] ?? '');
    await cp.client.pods(ns).updateStatus({ ...failing, status: { ...failing.status, phase: 'Failed' } });
    await settles({ replicas: 3, fullyLabeled: 1, ready: 1 });
  });

  it('runs ReplicationControllers the same way', async () => {
    const ns = await namespace('rc');
    const rcClient = cp.client.replicationControllers(ns);
    const rc = await rcClient.create({
      apiVersion: 'v1',
      kind: 'ReplicationController',
      metadata: { name: 'web' },
      spec: {
        replicas: 3,
        selector: { app: 'web' },
        template: { metadata: { labels: { app: 'web' } }, spec: podSpec },
      },
    });
    const pods = await waitForPods(ns, 3);
    for (const pod of pods) {
      assert.deepEqual(pod.metadata.ownerReferences, [
        {
          apiVersion: 'v1',
          kind: 'ReplicationController',
          name: 'web',
          uid: rc.metadata.uid,
          controller: true,
          blockOwnerDeletion: true,
        },
      ]);
    }
    await markReady(ns, pods[0] as KubeObject);
    await scale(rcClient, 'web', 1);
    const [left] = await waitForPods(ns, 1);
    assert.equal(left?.metadata.name, pods[0]?.metadata.name);
    await eventually(async () => {
      const status = (await rcClient.get('web')).status;
      assert.equal(status?.replicas, 1);
      assert.equal(status?.readyReplicas, 1);
      assert.equal(status?.availableReplicas, 1);
      assert.equal(status?.observedGeneration, 2);
      const created = await events(ns, 'SuccessfulCreate');
      assert.equal(created.length, 3);
      assert.ok(created.every((e) => e.source?.component === 'replication-controller'));
      assert.ok(created.every((e) => e.involvedObject?.kind === 'ReplicationController'));
    });
  });

  it('does not duplicate pods when the controller-manager restarts', async () => {
    const ns = await namespace('rs-restart');
    const rsClient = cp.client.replicaSets(ns);
    await rsClient.create(replicaSet('web', 4, { app: 'web' }));
    const before = await waitForPods(ns, 4);
    await manager.stop();
    manager = await runControllers(cp, [replicaSetController, replicationControllerController]);
    // Changes made while no manager ran are picked up once; nothing else is created.
    await scale(rsClient, 'web', 5);
    const five = await waitForPods(ns, 5);
    const names = new Set(five.map((p) => p.metadata.name));
    for (const p of before) assert.ok(names.has(p.metadata.name));
    await eventually(async () => {
      const rs = await rsClient.get('web');
      assert.equal(rs.status?.replicas, 5);
      assert.equal(rs.status?.observedGeneration, rs.metadata.generation);
    });
    // Another restart with nothing to do makes nothing.
    await manager.stop();
    manager = await runControllers(cp, [replicaSetController, replicationControllerController]);
    await new Promise((r) => setTimeout(r, 300));
    assert.equal((await activePods(ns)).length, 5);
    assert.equal((await events(ns, 'SuccessfulCreate')).length, 5);
  });
});
