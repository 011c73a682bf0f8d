import { after, before, describe, it } from 'node:test';
import { type ControlPlane, startControlPlane } from '../../../index.js';
import assert from '../../../testing/assert.js';
import { Code, CycleState, type Pod } from '../../framework/types.js';
import { DefaultBinder } from './index.js';

describe('DefaultBinder', () => {
  let cp: ControlPlane;
  before(async () => {
    cp = await startControlPlane({ storage: 'memory' });
  });
  after(async () => {
    await cp.stop();
  });

  it('binds through pods/binding', async () => {
    await cp.client.nodes().create({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-1' } });
    const pod = (await cp.client.pods('default').create({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'web' },
      spec: { containers: [{ name: 'c', image: 'nginx' }] },
    })) as Pod;
    const binder = new DefaultBinder({ client: cp.client });
    const status = await binder.bind(new CycleState(), pod, 'node-1');
    assert.equal(status.code, Code.Success, status.message());
    const bound = await cp.client.pods('default').get('web');
    assert.equal(bound.spec.nodeName, 'node-1');
  });

  it('reports the apiserver error (already bound, missing pod)', async () => {
    const binder = new DefaultBinder({ client: cp.client });
    const bound = (await cp.client.pods('default').get('web')) as Pod;
    const again = await binder.bind(new CycleState(), bound, 'node-1');
    assert.equal(again.code, Code.Error);
    const ghost = { metadata: { name: 'ghost', namespace: 'default', uid: 'x' }, spec: {} } as Pod;
    assert.equal((await binder.bind(new CycleState(), ghost, 'node-1')).code, Code.Error);
  });
});
