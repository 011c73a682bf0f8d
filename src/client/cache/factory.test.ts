import { describe, it } from 'node:test';
import assert from '../../testing/assert.js';
import { FakeListerWatcher } from '../../testing/fake-lister-watcher.js';
import { FakeClock } from '../../util/clock.js';
import type { GroupVersionResource, KubeObject, ListerWatcher } from '../types.js';
import { dropManagedFields, gvrKey, SharedInformerFactory } from './factory.js';
import { Lister } from './listers.js';

const cm = (namespace: string, name: string): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { namespace, name },
});

describe('SharedInformerFactory', () => {
  it('hands out one informer per resource, so there is one watch per resource', async () => {
    const factory = new SharedInformerFactory({ clock: new FakeClock() });
    const lw = new FakeListerWatcher([cm('ns', 'a')]);
    const first = factory.forResource('configmaps.v1', lw);
    const second = factory.forResource('configmaps.v1', new FakeListerWatcher(), {
      indexers: { byName: (o) => [o.metadata.name ?? ''] },
    });
    assert.equal(first, second);
    assert.deepEqual(Object.keys(first.getIndexer().getIndexers()).sort(), ['byName', 'namespace']);
    assert.equal(factory.get('configmaps.v1'), first);
    factory.start();
    factory.start();
    const synced = await factory.waitForCacheSync();
    assert.deepEqual([...synced], [['configmaps.v1', true]]);
    assert.equal(lw.listCalls.length, 1);
    assert.equal(lw.watches.length, 1);
    assert.deepEqual(new Lister(first.getIndexer()).namespaced('ns').list().length, 1);
    await factory.shutdown();
    assert.equal(first.isStopped(), true);
  });

  it("applies the factory's transform to the objects of informers that set none of their own", async () => {
    const factory = new SharedInformerFactory({ clock: new FakeClock(), transform: dropManagedFields });
    const withFields = (name: string): KubeObject => ({
      ...cm('ns', name),
      metadata: { namespace: 'ns', name, managedFields: [{ manager: 'kubectl', operation: 'Update' }] },
    });
    const trimmed = factory.forResource('configmaps.v1', new FakeListerWatcher([withFields('a')]));
    const own = factory.forResource('secrets.v1', new FakeListerWatcher([withFields('b')]), {
      transform: (o) => ({ ...o, metadata: { ...o.metadata, labels: { seen: 'yes' } } }),
    });
    factory.start();
    await factory.waitForCacheSync();
    const [a] = trimmed.getIndexer().list();
    assert.equal(a?.metadata.name, 'a');
    assert.equal(a?.metadata.managedFields, undefined, 'managedFields dropped');
    const [b] = own.getIndexer().list();
    assert.deepEqual(b?.metadata.labels, { seen: 'yes' }, "the informer's own transform");
    assert.equal(b?.metadata.managedFields?.length, 1, "the factory's transform is not applied on top");
    await factory.shutdown();
  });

  it('starts informers asked for after a start on the next start, and none after shutdown', async () => {
    const factory = new SharedInformerFactory({ clock: new FakeClock() });
    const a = factory.forResource('a', new FakeListerWatcher());
    factory.start();
    const b = factory.forResource('b', new FakeListerWatcher());
    assert.equal(b.hasStarted(), false);
    factory.start();
    assert.equal(b.hasStarted(), true);
    await factory.shutdown();
    const c = factory.forResource('c', new FakeListerWatcher());
    factory.start();
    assert.equal(c.hasStarted(), false);
    assert.equal(a.isStopped(), true);
  });

  it('makes informers from a client by GroupVersionResource, in its namespace, with tweaked list options', async () => {
    const asked: string[] = [];
    const lw = new FakeListerWatcher([cm('team', 'a')]);
    const client = {
      resource(gvr: GroupVersionResource) {
        asked.push(gvrKey(gvr));
        return {
          list: () => Promise.reject(new Error('should be namespaced')),
          watch: () => Promise.reject(new Error('should be namespaced')),
          namespace(ns: string): ListerWatcher {
            asked.push(`namespace ${ns}`);
            return lw;
          },
        };
      },
    };
    const factory = new SharedInformerFactory({
      client,
      clock: new FakeClock(),
      namespace: 'team',
      defaultResync: 30_000,
      tweakListOptions: (opts) => ({ ...opts, labelSelector: 'app=web' }),
    });
    const gvr = { group: '', version: 'v1', resource: 'configmaps' };
    const informer = factory.forGroupVersionResource(gvr);
    assert.equal(factory.forGroupVersionResource(gvr), informer);
    assert.equal(gvrKey({ group: 'apps', version: 'v1', resource: 'deployments' }), 'deployments.v1.apps');
    factory.start();
    await factory.waitForCacheSync();
    assert.deepEqual(asked, ['configmaps.v1', 'namespace team']);
    assert.equal(lw.listCalls[0]?.labelSelector, 'app=web');
    await lw.watchNumber(1);
    assert.equal(lw.watchCalls[0]?.labelSelector, 'app=web');
    assert.deepEqual(informer.getStore().listKeys(), ['team/a']);
    await factory.shutdown();
  });

  it('waitForCacheSync answers false for informers that did not sync before the signal', async () => {
    const factory = new SharedInformerFactory({ clock: new FakeClock() });
    const lw = new FakeListerWatcher();
    lw.list = () => new Promise(() => {});
    factory.forResource('stuck', lw);
    factory.forResource('fine', new FakeListerWatcher());
    factory.start();
    const controller = new AbortController();
    const pending = factory.waitForCacheSync(controller.signal);
    await factory.get('fine')?.whenSynced();
    controller.abort();
    assert.deepEqual([...(await pending)].sort(), [
      ['fine', true],
      ['stuck', false],
    ]);
    await factory.shutdown();
  });

  it('forGroupVersionResource without a client is an error', () => {
    const factory = new SharedInformerFactory();
    assert.throws(
      () => factory.forGroupVersionResource({ group: '', version: 'v1', resource: 'pods' }),
      /needs a client/,
    );
  });
});
