import { after, before, describe, it } from 'node:test';
import { CONTROLLERS } from '../../src/controllers/registry.js';
import { type ControlPlane, startControlPlane } from '../../src/index.js';
import assert from '../../src/testing/assert.js';
import { eventually, runControllers } from '../../src/testing/controllers.js';
import {
  createNamespace,
  deploymentManifest,
  getDeployment,
  markAllReady,
  podsOf,
  replicaSetsOf,
  rolloutComplete,
} from '../../src/testing/deployment-fixtures.js';

describe('kube-controller-manager restarted mid-rollout', () => {
  let cp: ControlPlane;
  before(async () => {
    cp = await startControlPlane({ storage: 'memory' });
  });
  after(async () => {
    await cp?.stop();
  });

  it('converges on the new template with one ReplicaSet per template and no extra pods', async () => {
    const ns = 'restart';
    const c = cp.client;
    await createNamespace(c, ns);
    const first = await runControllers(cp, CONTROLLERS);
    await c.deployments(ns).create(deploymentManifest('web', { replicas: 6, maxSurge: 2, maxUnavailable: 1 }));
    await eventually(async () => {
      await markAllReady(c, ns, 'web');
      const d = await getDeployment(c, ns, 'web');
      assert.ok(rolloutComplete(d, await podsOf(c, ns, 'web')), 'first rollout complete');
    });
    // A new template; stop the manager as soon as the new ReplicaSet exists, while the rollout is under way.
    await c.deployments(ns).patch('web', 'strategic', {
      spec: { template: { spec: { containers: [{ name: 'app', image: 'nginx:1.27' }] } } },
    });
    await eventually(async () => {
      const d = await getDeployment(c, ns, 'web');
      assert.equal((await replicaSetsOf(c, d)).length, 2, 'new ReplicaSet made');
    });
    await first.stop();

    // The pods the stopped manager made become ready while it is down; then a new manager takes over.
    await markAllReady(c, ns, 'web');
    const second = await runControllers(cp, CONTROLLERS);
    try {
      await eventually(
        async () => {
          await markAllReady(c, ns, 'web');
          const d = await getDeployment(c, ns, 'web');
          const pods = await podsOf(c, ns, 'web');
          assert.ok(rolloutComplete(d, pods), `rollout complete (${pods.length} pods)`);
        },
        { timeoutMs: 30_000 },
      );
      const d = await getDeployment(c, ns, 'web');
      const sets = await replicaSetsOf(c, d);
      assert.equal(sets.length, 2, 'no duplicate ReplicaSet for either template');
      assert.deepEqual(
        sets.map((rs) => rs.spec?.replicas),
        [0, 6],
      );
      const pods = await podsOf(c, ns, 'web');
      assert.equal(pods.length, 6, 'exactly the desired pods');
      assert.ok(
        pods.every((p) => p.spec.containers[0].image === 'nginx:1.27'),
        'every pod runs the new template',
      );
    } finally {
      await second.stop();
    }
  });
});
