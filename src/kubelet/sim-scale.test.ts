/**
 * A thousand simulated kubelets in one process against one apiserver: every node registers and gets its Lease.
 * (No timing is asserted; most of the time goes to the apiserver's writes.)
 */
import { describe, it } from 'node:test';
import { startControlPlane } from '../index.js';
import assert from '../testing/assert.js';
import { eventually } from '../testing/controllers.js';
import { SimKubelets } from './sim.js';

describe('many simulated kubelets', () => {
  it('registers 1000 nodes in one process', async () => {
    const many = await startControlPlane();
    const sims = new SimKubelets({ client: many.client, nodes: 1000, events: false });
    try {
      await sims.start();
      assert.equal(sims.nodeNames().length, 1000);
      const leases = await eventually(
        async () => {
          const list = await many.client.leases('kube-node-lease').list();
          assert.equal(list.items.length, 1000);
          return list;
        },
        { timeoutMs: 60_000, intervalMs: 500 },
      );
      assert.ok(leases.items.every((l) => l.spec.holderIdentity === l.metadata.name));
      const last = await many.client.nodes().get('node-1000');
      assert.equal(last.spec.podCIDR, '10.247.232.0/24');
    } finally {
      await sims.stop();
      await many.stop();
    }
  });
});
