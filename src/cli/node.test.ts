import { after, before, describe, it } from 'node:test';
import { type ControlPlane, startControlPlane } from '../index.js';
import { STOPPED_ANNOTATION } from '../kubelet/sim.js';
import assert from '../testing/assert.js';
import { nodeCommand } from './node.js';
import { UsageError } from './storage-flags.js';

describe('wheelhouse node stop|start', () => {
  let cp: ControlPlane;
  before(async () => {
    cp = await startControlPlane();
    await cp.client.nodes().create({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-2' } });
  });
  after(() => cp.stop());

  it('sets and removes the stopped annotation the simulated kubelets obey', async () => {
    const out: string[] = [];
    assert.equal(await nodeCommand(['stop', 'node-2', '--kubeconfig', cp.kubeconfig.path], (l) => out.push(l)), 0);
    assert.equal((await cp.client.nodes().get('node-2')).metadata.annotations?.[STOPPED_ANNOTATION], 'true');
    assert.equal(await nodeCommand(['start', 'node-2', '--kubeconfig', cp.kubeconfig.path], (l) => out.push(l)), 0);
    assert.equal((await cp.client.nodes().get('node-2')).metadata.annotations?.[STOPPED_ANNOTATION], undefined);
    assert.deepEqual(out, ['node/node-2 stopped', 'node/node-2 started']);
  });

  it('says when the node does not exist or the command is wrong', async () => {
    await assert.rejects(
      nodeCommand(['stop', 'node-9', '--kubeconfig', cp.kubeconfig.path], () => {}),
      /not found/,
    );
    await assert.rejects(
      nodeCommand(['pause', 'node-2'], () => {}),
      UsageError,
    );
  });
});
