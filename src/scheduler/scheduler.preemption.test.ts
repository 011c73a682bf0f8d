import { after, before, describe, it } from 'node:test';
import { type ControlPlane, startControlPlane } from '../index.js';
import assert from '../testing/assert.js';
import { eventually } from '../testing/controllers.js';
import { IN_TREE_PLUGINS } from './plugins/registry.js';
import { Scheduler } from './scheduler.js';
import { createNode, podManifest } from './test-fixtures.js';

describe('Scheduler preemption', () => {
  let cp: ControlPlane;
  let scheduler: Scheduler;

  before(async () => {
    cp = await startControlPlane({ storage: 'memory' });
    await createNode(cp, 'node-1', '1');
    for (const [name, value] of [
      ['low', 10],
      ['high', 1000],
    ] as const) {
      await cp.client
        .priorityClasses()
        .create({ apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name }, value });
    }
    scheduler = new Scheduler({ client: cp.client, registry: IN_TREE_PLUGINS, leaderElect: false });
    await scheduler.start();
  });

  after(async () => {
    await scheduler?.stop();
    await cp?.stop();
  });

  it('nominates the node for a high-priority pod, and binds it once the victim is gone', async () => {
    await cp.client.pods('default').create(podManifest('victim', '800m', { priorityClassName: 'low' }));
    await eventually(async () => assert.equal((await cp.client.pods('default').get('victim')).spec.nodeName, 'node-1'));

    await cp.client.pods('default').create(podManifest('preemptor', '800m', { priorityClassName: 'high' }));
    // The victim is deleted gracefully; with no kubelet here, the test finishes the deletion as one would.
    await eventually(async () => {
      const victim = await cp.client.pods('default').get('victim');
      assert.ok(victim.metadata.deletionTimestamp, 'victim being deleted');
    });
    const nominated = await eventually(async () => {
      const p = await cp.client.pods('default').get('preemptor');
      assert.equal(p.status.nominatedNodeName, 'node-1');
      return p;
    });
    assert.equal(nominated.spec.nodeName, undefined);
    const condition = nominated.status.conditions?.find((c: { type: string }) => c.type === 'PodScheduled');
    assert.equal(condition?.reason, 'Unschedulable');
    // Preemption succeeded: PostFilter adds nothing to the message.
    assert.equal(condition?.message, '0/1 nodes are available: 1 Insufficient cpu.');

    await cp.client.pods('default').delete('victim', { gracePeriodSeconds: 0 });
    await eventually(async () => {
      const p = await cp.client.pods('default').get('preemptor');
      assert.equal(p.spec.nodeName, 'node-1');
    });
    assert.equal(scheduler.verdictsFor('default', 'preemptor')?.result, 'Scheduled');
  });
});
