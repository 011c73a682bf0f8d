import { after, before, describe, it } from 'node:test';
import { type ControlPlane, startControlPlane } from '../index.js';
import assert from '../testing/assert.js';
import { eventually } from '../testing/controllers.js';
import { defaultConfiguration } from './config/defaults.js';
import { IN_TREE_PLUGINS } from './plugins/registry.js';
import { Scheduler } from './scheduler.js';
import { createNode, podManifest } from './test-fixtures.js';

describe('two schedulers with leader election', () => {
  let cp: ControlPlane;
  const schedulers: Scheduler[] = [];

  before(async () => {
    cp = await startControlPlane({ storage: 'memory' });
    for (const name of ['node-1', 'node-2', 'node-3']) await createNode(cp, name);
  });

  after(async () => {
    await Promise.all(schedulers.map((s) => s.stop()));
    await cp?.stop();
  });

  function newScheduler(identity: string, releaseLeaseOnStop: boolean): Scheduler {
    const config = defaultConfiguration();
    config.leaderElection = {
      ...config.leaderElection,
      leaseDurationMs: 1500,
      renewDeadlineMs: 1000,
      retryPeriodMs: 200,
    };
    const s = new Scheduler({ client: cp.client, registry: IN_TREE_PLUGINS, config, identity, releaseLeaseOnStop });
    schedulers.push(s);
    return s;
  }

  async function bound(name: string): Promise<string> {
    return eventually(async () => {
      const pod = await cp.client.pods('default').get(name);
      assert.ok(pod.spec.nodeName, `${name} bound`);
      return pod.spec.nodeName as string;
    });
  }

  it('one schedules; when it dies the other takes the lease over and schedules the pending pods', async () => {
    // The first leader dies without giving the Lease up (as a killed process would).
    const a = newScheduler('host-a_1', false);
    const b = newScheduler('host-b_2', false);
    await Promise.all([a.start(), b.start()]);
    const leader = await eventually(() => {
      const leaders = [a, b].filter((s) => s.isLeader());
      assert.equal(leaders.length, 1);
      return leaders[0] as Scheduler;
    });
    const follower = leader === a ? b : a;
    const lease = await cp.client.leases('kube-system').get('kube-scheduler');
    assert.equal(lease.spec.holderIdentity, leader.identity);

    await cp.client.pods('default').create(podManifest('first', '100m'));
    await bound('first');
    assert.equal(leader.verdictsFor('default', 'first')?.result, 'Scheduled');
    assert.equal(follower.verdictsFor('default', 'first'), undefined, 'the follower does not schedule');

    await leader.stop();
    await cp.client.pods('default').create(podManifest('second', '100m'));
    await eventually(() => assert.ok(follower.isLeader()), { timeoutMs: 10_000 });
    await bound('second');
    assert.equal(follower.verdictsFor('default', 'second')?.result, 'Scheduled');
    const after = await cp.client.leases('kube-system').get('kube-scheduler');
    assert.equal(after.spec.holderIdentity, follower.identity);
  });
});
