import { after, before, describe, it } from 'node:test';
import { formatTime } from '../../client/events/event.js';
import type { KubeObject } from '../../client/types.js';
import { type ControlPlane, startControlPlane } from '../../index.js';
import assert from '../../testing/assert.js';
import { eventually, runControllers } from '../../testing/controllers.js';
import { FakeClock } from '../../util/clock.js';
import type { ControllerManager } from '../manager.js';
import { disruptionController } from './index.js';

const NS = 'default';

async function setReady(cp: ControlPlane, name: string, ready: boolean): Promise<void> {
  const pod = await cp.client.pods(NS).get(name);
  const status = ready ? 'True' : 'False';
  await cp.client.pods(NS).updateStatus({
    ...pod,
    status: {
      ...pod.status,
      phase: 'Running',
      conditions: [
        { type: 'Ready', status, lastTransitionTime: formatTime(Date.now()) },
        { type: 'ContainersReady', status, lastTransitionTime: formatTime(Date.now()) },
      ],
    },
  });
}

async function createPod(cp: ControlPlane, name: string, labels: Record<string, string>, owner?: KubeObject) {
  return cp.client.pods(NS).create({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      labels,
      ...(owner
        ? {
            ownerReferences: [
              {
                apiVersion: owner.apiVersion ?? '',
                kind: owner.kind ?? '',
                name: owner.metadata.name ?? '',
                uid: owner.metadata.uid ?? '',
                controller: true,
              },
            ],
          }
        : {}),
    },
    spec: { containers: [{ name: 'c', image: 'nginx:1.27' }] },
  });
}

function replicaSet(name: string, replicas: number, labels: Record<string, string>, owner?: KubeObject): KubeObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: {
      name,
      ...(owner
        ? {
            ownerReferences: [
              {
                apiVersion: 'apps/v1',
                kind: 'Deployment',
                name: owner.metadata.name ?? '',
                uid: owner.metadata.uid ?? '',
                controller: true,
              },
            ],
          }
        : {}),
    },
    spec: {
      replicas,
      selector: { matchLabels: labels },
      template: { metadata: { labels }, spec: { containers: [{ name: 'c', image: 'nginx:1.27' }] } },
    },
  };
}

async function createPdb(cp: ControlPlane, name: string, spec: Record<string, unknown>) {
  return cp.client.podDisruptionBudgets(NS).create({
    apiVersion: 'policy/v1',
    kind: 'PodDisruptionBudget',
    metadata: { name },
    spec,
  });
}

async function pdbStatus(cp: ControlPlane, name: string) {
  return (await cp.client.podDisruptionBudgets(NS).get(name)).status ?? {};
}

const counts = (s: Record<string, unknown>) => ({
  expectedPods: s.expectedPods,
  desiredHealthy: s.desiredHealthy,
  currentHealthy: s.currentHealthy,
  disruptionsAllowed: s.disruptionsAllowed,
});

describe('disruption-controller: status of PodDisruptionBudgets', () => {
  let cp: ControlPlane;
  let manager: ControllerManager;
  const clock = new FakeClock(Date.now());
  const web = { app: 'web' };

  before(async () => {
    cp = await startControlPlane({ storage: 'memory' });
    // A Deployment of 4 whose ReplicaSet still says 3: the Deployment's scale counts.
    const deployment = await cp.client.deployments(NS).create({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web' },
      spec: {
        replicas: 4,
        selector: { matchLabels: web },
        template: { metadata: { labels: web }, spec: { containers: [{ name: 'c', image: 'nginx:1.27' }] } },
      },
    });
    const rs = await cp.client.replicaSets(NS).create(replicaSet('web-abc', 3, web, deployment));
    for (const name of ['web-1', 'web-2', 'web-3', 'web-4']) {
      await createPod(cp, name, web, rs);
      await setReady(cp, name, true);
    }
    await createPdb(cp, 'min-two', { minAvailable: 2, selector: { matchLabels: web } });
    await createPdb(cp, 'max-one', { maxUnavailable: 1, selector: { matchLabels: web } });
    await createPdb(cp, 'half', { minAvailable: '50%', selector: { matchLabels: web } });
    manager = await runControllers(cp, [disruptionController], { clock });
  });
  after(async () => {
    await manager?.stop();
    await cp?.stop();
  });

  it('computes expected, desired and current healthy pods and the allowed disruptions', async () => {
    await eventually(async () => {
      assert.deepEqual(counts(await pdbStatus(cp, 'min-two')), {
        expectedPods: 4,
        desiredHealthy: 2,
        currentHealthy: 4,
        disruptionsAllowed: 2,
      });
      assert.deepEqual(counts(await pdbStatus(cp, 'max-one')), {
        expectedPods: 4,
        desiredHealthy: 3,
        currentHealthy: 4,
        disruptionsAllowed: 1,
      });
      assert.deepEqual(counts(await pdbStatus(cp, 'half')), {
        expectedPods: 4,
        desiredHealthy: 2,
        currentHealthy: 4,
        disruptionsAllowed: 2,
      });
    });
    const status = await pdbStatus(cp, 'max-one');
    assert.equal(status.observedGeneration, 1);
    const cond = status.conditions.find((c: { type: string }) => c.type === 'DisruptionAllowed');
    assert.equal(cond.status, 'True');
    assert.equal(cond.reason, 'SufficientPods');
    assert.equal(cond.observedGeneration, 1);
  });

  it('lowers disruptionsAllowed when a pod is not ready, and sets InsufficientPods at zero', async () => {
    await setReady(cp, 'web-2', false);
    await eventually(async () => {
      assert.deepEqual(counts(await pdbStatus(cp, 'min-two')), {
        expectedPods: 4,
        desiredHealthy: 2,
        currentHealthy: 3,
        disruptionsAllowed: 1,
      });
      assert.deepEqual(counts(await pdbStatus(cp, 'max-one')), {
        expectedPods: 4,
        desiredHealthy: 3,
        currentHealthy: 3,
        disruptionsAllowed: 0,
      });
    });
    const cond = (await pdbStatus(cp, 'max-one')).conditions.find(
      (c: { type: string }) => c.type === 'DisruptionAllowed',
    );
    assert.equal(cond.status, 'False');
    assert.equal(cond.reason, 'InsufficientPods');
    await setReady(cp, 'web-2', true);
    await eventually(async () => assert.equal((await pdbStatus(cp, 'max-one')).disruptionsAllowed, 1));
  });

  it('keeps a fresh disruptedPods entry (that pod is not counted) and drops it after 2 minutes', async () => {
    const pdb = await cp.client.podDisruptionBudgets(NS).get('min-two');
    await cp.client.podDisruptionBudgets(NS).updateStatus({
      ...pdb,
      status: {
        ...pdb.status,
        disruptedPods: { 'web-1': formatTime(clock.now()), 'web-3': formatTime(clock.now() - 3 * 60_000) },
      },
    });
    await eventually(async () => {
      const status = await pdbStatus(cp, 'min-two');
      assert.deepEqual(Object.keys(status.disruptedPods ?? {}), ['web-1']);
      assert.equal(status.currentHealthy, 3);
      assert.equal(status.disruptionsAllowed, 1);
    });
    const events = await cp.client.events(NS).list();
    assert.ok(
      events.items.some(
        (e) =>
          e.reason === 'NotDeleted' &&
          e.involvedObject.name === 'web-3' &&
          e.message === "Pod was expected by PDB default/default to be deleted but it wasn't",
      ),
      'NotDeleted event',
    );
    // Two minutes on, the recheck drops the entry; the clock moves in steps so the queues' timers all run.
    await eventually(async () => {
      clock.step(5_000);
      const status = await pdbStatus(cp, 'min-two');
      assert.equal(status.disruptedPods, undefined);
      assert.equal(status.currentHealthy, 4);
    });
  });

  it('fails safe with SyncFailed when a pod has a controller it cannot find', async () => {
    const owner = { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w', uid: 'u-1' } };
    await createPod(cp, 'odd-1', { app: 'odd' }, owner);
    await setReady(cp, 'odd-1', true);
    await createPdb(cp, 'odd', { maxUnavailable: '10%', selector: { matchLabels: { app: 'odd' } } });
    await eventually(async () => {
      const status = await pdbStatus(cp, 'odd');
      const cond = (status.conditions ?? []).find((c: { type: string }) => c.type === 'DisruptionAllowed');
      assert.equal(cond?.status, 'False');
      assert.equal(cond?.reason, 'SyncFailed');
      assert.equal(cond?.message, 'no matches for kind "Widget" in version "example.com/v1"');
      assert.equal(status.disruptionsAllowed, 0);
    });
  });

  it('counts pods without a controller only with an integer minAvailable', async () => {
    await createPod(cp, 'solo-1', { app: 'solo' });
    await createPod(cp, 'solo-2', { app: 'solo' });
    await setReady(cp, 'solo-1', true);
    await setReady(cp, 'solo-2', true);
    await createPdb(cp, 'solo-min', { minAvailable: 1, selector: { matchLabels: { app: 'solo' } } });
    await createPdb(cp, 'solo-max', { maxUnavailable: 1, selector: { matchLabels: { app: 'solo' } } });
    await eventually(async () => {
      assert.deepEqual(counts(await pdbStatus(cp, 'solo-min')), {
        expectedPods: 2,
        desiredHealthy: 1,
        currentHealthy: 2,
        disruptionsAllowed: 1,
      });
      assert.deepEqual(counts(await pdbStatus(cp, 'solo-max')), {
        expectedPods: 0,
        desiredHealthy: 0,
        currentHealthy: 2,
        disruptionsAllowed: 0,
      });
      const events = await cp.client.events(NS).list();
      assert.ok(
        events.items.some((e) => e.reason === 'UnmanagedPods' && e.involvedObject.name === 'solo-max'),
        'UnmanagedPods event',
      );
    });
  });

  it('sets a DisruptionTarget condition back to False when the pod was not deleted within 2 minutes', async () => {
    await createPod(cp, 'spared', { app: 'spared' });
    const pod = await cp.client.pods(NS).get('spared');
    await cp.client.pods(NS).updateStatus({
      ...pod,
      status: {
        ...pod.status,
        phase: 'Running',
        conditions: [
          {
            type: 'DisruptionTarget',
            status: 'True',
            reason: 'EvictionByEvictionAPI',
            message: 'Eviction API: evicting',
            lastTransitionTime: formatTime(clock.now()),
          },
        ],
      },
    });
    const disruptionTarget = async () =>
      ((await cp.client.pods(NS).get('spared')).status?.conditions ?? []).find(
        (c: { type: string }) => c.type === 'DisruptionTarget',
      );
    await new Promise((r) => setTimeout(r, 100));
    assert.equal((await disruptionTarget())?.status, 'True');
    await eventually(async () => {
      clock.step(5_000);
      const cond = await disruptionTarget();
      assert.equal(cond?.status, 'False');
      assert.equal(cond?.reason, undefined);
    });
  });

  it('reports a PDB that selects nothing', async () => {
    await createPdb(cp, 'empty', { minAvailable: 1, selector: { matchLabels: { app: 'none' } } });
    await eventually(async () => {
      assert.deepEqual(counts(await pdbStatus(cp, 'empty')), {
        expectedPods: 0,
        desiredHealthy: 1,
        currentHealthy: 0,
        disruptionsAllowed: 0,
      });
      const events = await cp.client.events(NS).list();
      const ev = events.items.find((e) => e.reason === 'NoPods' && e.involvedObject.name === 'empty');
      assert.equal(ev?.message, 'No matching pods found');
      assert.equal(ev?.source?.component, 'controllermanager');
    });
  });
});
