import { after, before, describe, it } from 'node:test';
import type { Toleration } from '../../api/taints.js';
import { isNotFound, type KubeObject } from '../../client/types.js';
import { type ControlPlane, startControlPlane } from '../../index.js';
import assert from '../../testing/assert.js';
import { eventually, runControllers } from '../../testing/controllers.js';
import { FakeClock } from '../../util/clock.js';
import { updatePodCondition } from '../common/pod-conditions.js';
import type { ControllerManager } from '../manager.js';
import { taintEvictionController } from './index.js';

const NS = 'default';
const BROKEN = { key: 'example.com/broken', effect: 'NoExecute' };

async function createPod(cp: ControlPlane, name: string, nodeName: string, tolerations: Toleration[] = []) {
  return cp.client.pods(NS).create({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name },
    spec: { nodeName, tolerations, containers: [{ name: 'c', image: 'nginx:1.27' }] },
  });
}

async function tryGet(cp: ControlPlane, name: string): Promise<KubeObject | undefined> {
  try {
    return await cp.client.pods(NS).get(name);
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}

/** Being deleted (no kubelet finishes graceful deletions here) or gone. */
async function isDeleted(cp: ControlPlane, name: string): Promise<boolean> {
  const pod = await tryGet(cp, name);
  return !pod || !!pod.metadata.deletionTimestamp;
}

async function setTaints(cp: ControlPlane, node: string, taints: unknown[]): Promise<void> {
  await cp.client.nodes().patch(node, 'merge', { spec: { taints } });
}

async function eventMessages(cp: ControlPlane, pod: string): Promise<string[]> {
  const events = await cp.client.events(NS).list();
  return events.items
    .filter((e) => e.involvedObject?.name === pod && e.reason === 'TaintManagerEviction')
    .map((e) => e.message);
}

/** Gives the controller a moment to act on what it saw (to show that it did not). */
const settle = () => new Promise((r) => setTimeout(r, 200));

const tolerate = (seconds?: number): Toleration[] => [
  {
    key: BROKEN.key,
    operator: 'Exists',
    effect: 'NoExecute',
    ...(seconds === undefined ? {} : { tolerationSeconds: seconds }),
  },
];

describe('taint-eviction-controller', () => {
  let cp: ControlPlane;
  let manager: ControllerManager;
  const clock = new FakeClock(Date.now());

  before(async () => {
    cp = await startControlPlane({ storage: 'memory' });
    for (const name of ['node-a', 'node-b', 'node-c']) {
      await cp.client.nodes().create({ apiVersion: 'v1', kind: 'Node', metadata: { name } });
    }
    manager = await runControllers(cp, [taintEvictionController], { clock });
  });
  after(async () => {
    await manager?.stop();
    await cp?.stop();
  });

  it('deletes a pod that does not tolerate a NoExecute taint at once, with DisruptionTarget and an event', async () => {
    await createPod(cp, 'plain', 'node-a');
    await createPod(cp, 'tolerant', 'node-a', tolerate());
    await setTaints(cp, 'node-a', [BROKEN]);
    await eventually(async () => {
      const pod = await tryGet(cp, 'plain');
      assert.ok(pod?.metadata.deletionTimestamp, 'the pod is being deleted');
      const cond = (pod.status?.conditions ?? []).find((c: { type: string }) => c.type === 'DisruptionTarget');
      assert.equal(cond?.status, 'True');
      assert.equal(cond?.reason, 'DeletionByTaintManager');
      assert.equal(cond?.message, 'Taint manager: deleting due to NoExecute taint');
      assert.deepEqual(await eventMessages(cp, 'plain'), ['Marking for deletion Pod default/plain']);
    });
    // A toleration without tolerationSeconds tolerates forever.
    clock.step(60_000);
    await settle();
    assert.equal(await isDeleted(cp, 'tolerant'), false);
  });

  it('deletes a pod tolerating for 300 s only once 300 s have passed', async () => {
    await createPod(cp, 'five-minutes', 'node-b', tolerate(300));
    await createPod(cp, 'witness-b', 'node-b');
    await setTaints(cp, 'node-b', [BROKEN]);
    // The witness's deletion shows the controller has seen the taint (and scheduled the other deletion).
    await eventually(async () => assert.ok(await isDeleted(cp, 'witness-b'), 'witness-b deleted'));
    clock.step(299_000);
    await settle();
    assert.equal(await isDeleted(cp, 'five-minutes'), false);
    clock.step(1_000);
    await eventually(async () => assert.ok(await isDeleted(cp, 'five-minutes'), 'five-minutes deleted'));
    assert.deepEqual(await eventMessages(cp, 'five-minutes'), ['Marking for deletion Pod default/five-minutes']);
  });

  it('does not delete the pod when the taint goes before its tolerationSeconds', async () => {
    await createPod(cp, 'survivor', 'node-c', tolerate(300));
    await createPod(cp, 'witness-c', 'node-c');
    await setTaints(cp, 'node-c', [BROKEN]);
    await eventually(async () => assert.ok(await isDeleted(cp, 'witness-c'), 'witness-c deleted'));
    clock.step(100_000);
    await setTaints(cp, 'node-c', []);
    await eventually(async () =>
      assert.deepEqual(await eventMessages(cp, 'survivor'), ['Cancelling deletion of Pod default/survivor']),
    );
    clock.step(400_000);
    await settle();
    assert.equal(await isDeleted(cp, 'survivor'), false);
  });
});

describe('updatePodCondition', () => {
  it('adds a condition, keeps the transition time when the status stays, and says whether anything changed', () => {
    const conditions = [{ type: 'Ready', status: 'True', lastTransitionTime: '2025-01-01T00:00:00Z' }];
    const t = Date.parse('2025-06-01T00:00:00Z');
    assert.equal(updatePodCondition(conditions, { type: 'Ready', status: 'True' }, t), false);
    assert.equal(conditions[0]?.lastTransitionTime, '2025-01-01T00:00:00Z');
    assert.equal(updatePodCondition(conditions, { type: 'Ready', status: 'False' }, t), true);
    assert.equal(conditions[0]?.lastTransitionTime, '2025-06-01T00:00:00Z');
    assert.equal(updatePodCondition(conditions, { type: 'DisruptionTarget', status: 'True', reason: 'X' }, t), true);
    assert.equal(conditions.length, 2);
  });
});
