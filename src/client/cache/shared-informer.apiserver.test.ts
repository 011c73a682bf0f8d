import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { type ControlPlane, startControlPlane } from '../../index.js';
import assert from '../../testing/assert.js';
import type { KubeObject } from '../types.js';
import { SharedInformerFactory } from './factory.js';
import { Lister } from './listers.js';
import { DeletedFinalStateUnknown } from './store.js';

let cp: ControlPlane;
before(async () => {
  cp = await startControlPlane({ storage: 'memory' });
});
after(() => cp?.stop());

/** Polls until cond() holds (the server and the watch are real, so this waits on real I/O). */
async function until(cond: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 1000; i++) {
    if (cond()) return;
    await sleep(10);
  }
  assert.fail(`timed out waiting for ${what}`);
}

describe('SharedIndexInformer against a control plane', () => {
  it('sees configmaps created, updated and deleted through the API', async () => {
    const cms = cp.client.configMaps('default');
    await cms.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'before', labels: { app: 'x' } } });

    const factory = new SharedInformerFactory({ client: cp.client });
    const informer = factory.forGroupVersionResource({ group: '', version: 'v1', resource: 'configmaps' });
    const events: string[] = [];
    informer.addEventHandler({
      onAdd: (obj, initial) => events.push(`add ${obj.metadata.name}${initial ? ' initial' : ''}`),
      onUpdate: (oldObj, newObj) =>
        events.push(`update ${newObj.metadata.name} ${oldObj.data?.k ?? '-'} -> ${newObj.data?.k ?? '-'}`),
      onDelete: (obj: KubeObject | DeletedFinalStateUnknown) =>
        events.push(`delete ${obj instanceof DeletedFinalStateUnknown ? obj.key : obj.metadata.name}`),
    });
    factory.start();
    const synced = await factory.waitForCacheSync();
    assert.deepEqual([...synced.values()], [true]);
    await until(() => events.includes('add before initial'), 'the initial list');

    const created = await cms.create({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'live' },
      data: { k: '1' },
    });
    await until(() => events.includes('add live'), 'the add');
    await cms.update({ ...created, data: { k: '2' } });
    await until(() => events.includes('update live 1 -> 2'), 'the update');
    await cms.delete('live');
    await until(() => events.includes('delete live'), 'the delete');

    const lister = new Lister(informer.getIndexer());
    assert.deepEqual(
      lister
        .namespaced('default')
        .list('app=x')
        .map((o) => o.metadata.name),
      ['before'],
    );
    assert.equal(lister.namespaced('default').get('live'), undefined);
    assert.ok(Number(informer.lastSyncResourceVersion()) >= Number(created.metadata.resourceVersion));
    await factory.shutdown();
  });
});
