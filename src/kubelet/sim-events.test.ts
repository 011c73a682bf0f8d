/**
 * The simulated kubelets' events go through a client of each node's own with upstream's event limit
 * (--event-qps / --event-burst): a burst of pods on one node has its events written at that rate, none lost, and
 * one node at its limit holds back no other.
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
    kubelets = new SimKubelets({ client: cp.client, nodes: 2, eventQps: 2, eventBurst: 2 });
    await kubelets.start();
    // The nodes' own start-up events go out first, at the same limit.
    await new Promise((r) => setTimeout(r, 4000));
  });
  after(async () => {
    await kubelets?.stop();
    await cp?.stop();
  });

  /** How many events the kubelets wrote about the named pods. */
  const podEvents = async (names: string[]) =>
    (await cp.client.events('default').list()).items.filter((e) => {
      const ev = e as { source?: { component?: string }; involvedObject?: { kind?: string; name?: string } };
      return (
        ev.source?.component === 'kubelet' &&
        ev.involvedObject?.kind === 'Pod' &&
        names.includes(ev.involvedObject.name ?? '')
      );
    }).length;

  const pod = (name: string, node: string) => ({
    metadata: { name, annotations: { 'sim.wheelhouse.dev/start-seconds': '0' } },
    spec: { nodeName: node, containers: [{ name: 'c', image: 'nginx:1.27' }] },
  });

  it('are written at the node event rate, every one of them', async () => {
    const names = ['e1', 'e2', 'e3'];
    const started = Date.now();
    for (const name of names) await cp.client.pods('default').create(pod(name, 'node-1'));
    // Each pod's start gives Pulled, Created and Started: nine events, of which the burst (2) goes out at once and
    // the rest at 2 a second.
    await eventually(async () => assert.equal(await podEvents(names), 9), { timeoutMs: 20_000 });
    const tookMs = Date.now() - started;
    assert.ok(tookMs >= 3000, `nine events at 2/s after a burst of 2 take at least 3.5 s, took ${tookMs} ms`);
  });

  it('of one node are not held back by another node at its limit', async () => {
    const busy = ['busy1', 'busy2', 'busy3', 'busy4'];
    for (const name of busy) await cp.client.pods('default').create(pod(name, 'node-1'));
    const started = Date.now();
    await cp.client.pods('default').create(pod('quiet', 'node-2'));
    // node-2's three events need only its own burst and a second; node-1's twelve take five seconds.
    await eventually(async () => assert.equal(await podEvents(['quiet']), 3), { timeoutMs: 20_000 });
    const quietMs = Date.now() - started;
    assert.ok(quietMs < 3500, `node-2's events arrived after ${quietMs} ms`);
    assert.ok((await podEvents(busy)) < 12, 'node-1 was still behind');
    await eventually(async () => assert.equal(await podEvents(busy), 12), { timeoutMs: 20_000 });
  });
});
