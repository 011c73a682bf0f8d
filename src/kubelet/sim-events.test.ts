/**
 * The simulated kubelets' events go through a client of each node's own with upstream's event limit
 * (--event-qps / --event-burst): a burst of pods on one node has its events written at that rate, none lost.
 */
import { after, before, describe, it } from 'node:test';
import { type ControlPlane, startControlPlane } from '../index.js';
import assert from '../testing/assert.js';
import { eventually } from '../testing/controllers.js';
import { SimKubelets } from './sim.js';

describe('simulated kubelet events', () => {
  let cp: ControlPlane;
  let kubelets: SimKubelets;
  before(async () => {
    cp = await startControlPlane();
    kubelets = new SimKubelets({ client: cp.client, nodes: 1, eventQps: 2, eventBurst: 2 });
    await kubelets.start();
  });
  after(async () => {
    await kubelets?.stop();
    await cp?.stop();
  });

  it('are written at the node event rate, every one of them', async () => {
    const kubeletEvents = async () =>
      (await cp.client.events('default').list()).items.filter(
        (e) => (e as { source?: { component?: string } }).source?.component === 'kubelet',
      ).length;
    const before = await kubeletEvents();
    const started = Date.now();
    for (const name of ['e1', 'e2', 'e3']) {
      await cp.client.pods('default').create({
        metadata: { name, annotations: { 'sim.wheelhouse.dev/start-seconds': '0' } },
        spec: { nodeName: 'node-1', containers: [{ name: 'c', image: 'nginx:1.27' }] },
      });
    }
    // Each pod's start gives Pulled, Created and Started: nine events, of which the burst (2) goes out at once and
    // the rest at 2 a second.
    await eventually(async () => assert.equal((await kubeletEvents()) - before, 9), { timeoutMs: 20_000 });
    const tookMs = Date.now() - started;
    assert.ok(tookMs >= 3000, `nine events at 2/s after a burst of 2 take at least 3.5 s, took ${tookMs} ms`);
  });
});
