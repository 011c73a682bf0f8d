import { afterEach, describe, it } from 'node:test';
import assert from '../../testing/assert.js';
import { eventually, FakeListerWatcher, settle } from '../../testing/fake-lister-watcher.js';
import { FakeClock } from '../../util/clock.js';
import { createLogger } from '../../util/logger.js';
import type { KubeObject } from '../types.js';
import type { ResourceEventHandler } from './processor.js';
import { SharedIndexInformer, type SharedIndexInformerOptions } from './shared-informer.js';
import { DeletedFinalStateUnknown, metaNamespaceKeyFunc, NAMESPACE_INDEX } from './store.js';
import { waitForCacheSync } from './wait-for-cache-sync.js';

const cm = (namespace: string, name: string, data: Record<string, string> = {}): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { namespace, name, labels: { app: name.split('-')[0] ?? '' } },
  data,
});

const describeObj = (obj: KubeObject | DeletedFinalStateUnknown<KubeObject>) =>
  obj instanceof DeletedFinalStateUnknown
    ? `tombstone ${obj.key} (${obj.obj.metadata.resourceVersion})`
    : `${metaNamespaceKeyFunc(obj)}@${obj.metadata.resourceVersion}`;

/** A handler that writes down every call. */
function recorder(): ResourceEventHandler & { calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    onAdd: (obj, initial) => calls.push(`add ${describeObj(obj)}${initial ? ' initial' : ''}`),
    onUpdate: (oldObj, newObj) => calls.push(`update ${describeObj(oldObj)} -> ${describeObj(newObj)}`),
    onDelete: (obj) => calls.push(`delete ${describeObj(obj)}`),
  };
}

const informers: SharedIndexInformer[] = [];
afterEach(async () => {
  await Promise.all(informers.splice(0).map((i) => i.stop()));
});

function makeInformer(lw: FakeListerWatcher, opts: SharedIndexInformerOptions<KubeObject> = {}) {
  const clock = new FakeClock(1_000_000);
  const informer = new SharedIndexInformer(lw, { clock, reflector: { random: () => 0 }, ...opts });
  informers.push(informer);
  return { clock, informer };
}

describe('SharedIndexInformer', () => {
  it('tells each handler of adds, updates and deletes, in order, after the cache has them', async () => {
    const lw = new FakeListerWatcher([cm('ns', 'a'), cm('ns', 'b')]);
    const { informer } = makeInformer(lw);
    const h = recorder();
    const seenInCache: boolean[] = [];
    informer.addEventHandler(h);
    informer.addEventHandler({ onAdd: (obj) => seenInCache.push(informer.getStore().get(obj) !== undefined) });
    assert.equal(informer.hasSynced(), false);
    informer.run();
    assert.equal(await informer.whenSynced(), true);
    await lw.watchNumber(1);
    lw.create(cm('ns', 'c'));
    lw.modify(cm('ns', 'a', { k: 'v' }));
    lw.remove(cm('ns', 'b'));
    await eventually(() => h.calls.length === 5);
    assert.deepEqual(h.calls, [
      'add ns/a@101 initial',
      'add ns/b@102 initial',
      'add ns/c@103',
      'update ns/a@101 -> ns/a@104',
      'delete ns/b@105',
    ]);
    assert.deepEqual(seenInCache, [true, true, true]);
    assert.deepEqual(informer.getStore().listKeys().sort(), ['ns/a', 'ns/c']);
    assert.equal(informer.lastSyncResourceVersion(), '105');
  });

  it('gives a handler added after the start an add for every cached object', async () => {
    const lw = new FakeListerWatcher([cm('ns', 'a'), cm('ns', 'b')]);
    const { informer } = makeInformer(lw);
    informer.run();
    await informer.whenSynced();
    const h = recorder();
    const registration = informer.addEventHandler(h);
    assert.equal(registration.hasSynced(), false, 'not before it has been given the existing objects');
    assert.equal(await registration.whenSynced(), true);
    assert.deepEqual(h.calls.sort(), ['add ns/a@101 initial', 'add ns/b@102 initial']);
    lw.create(cm('ns', 'c'));
    await eventually(() => h.calls.length === 3);
    assert.equal(h.calls[2], 'add ns/c@103');
  });

  it('a registration made before the start syncs once its initial adds are handled', async () => {
    const lw = new FakeListerWatcher([cm('ns', 'a')]);
    const { informer } = makeInformer(lw);
    const h = recorder();
    const registration = informer.addEventHandler(h);
    informer.run();
    assert.equal(await waitForCacheSync(undefined, informer, registration), true);
    assert.deepEqual(h.calls, ['add ns/a@101 initial']);
  });

  it('turns objects a relist no longer returns into tombstone deletes, and sends only real changes', async () => {
    const lw = new FakeListerWatcher([cm('ns', 'stays'), cm('ns', 'changes'), cm('ns', 'goes')]);
    const { clock, informer } = makeInformer(lw);
    const h = recorder();
    informer.addEventHandler(h);
    informer.run();
    const w = await lw.watchNumber(1);
    await eventually(() => h.calls.length === 3);
    lw.remove(cm('ns', 'goes'), { notify: false });
    lw.modify(cm('ns', 'changes', { x: '1' }), { notify: false });
    lw.create(cm('ns', 'new'), { notify: false });
    w.pushError({ code: 410, reason: 'Expired', message: 'too old resource version' });
    await settle();
    clock.step(800);
    await eventually(() => h.calls.length === 6);
    assert.deepEqual(h.calls.slice(3), [
      'update ns/changes@102 -> ns/changes@105',
      'add ns/new@106',
      'delete tombstone ns/goes (103)',
    ]);
    assert.deepEqual(informer.getStore().listKeys().sort(), ['ns/changes', 'ns/new', 'ns/stays']);
  });

  it('resyncs each handler at its own period, with onUpdate(obj, obj) for every object', async () => {
    const lw = new FakeListerWatcher([cm('ns', 'a'), cm('ns', 'b')]);
    const { clock, informer } = makeInformer(lw, { resyncPeriod: 0 });
    const fast = recorder();
    const slow = recorder();
    const never = recorder();
    // The informer's own default is 0 (no resync): a handler cannot ask for one...
    informer.addEventHandler(never, { resyncPeriod: 1000 });
    const { informer: resyncing, clock: clock2 } = makeInformer(lw, { resyncPeriod: 10_000 });
    // ...but with a default period, handlers may ask for shorter ones before the start.
    resyncing.addEventHandler(fast, { resyncPeriod: 1000 });
    resyncing.addEventHandler(slow, { resyncPeriod: 3000 });
    informer.run();
    resyncing.run();
    await informer.whenSynced();
    await resyncing.whenSynced();
    await eventually(() => fast.calls.length === 2 && slow.calls.length === 2 && never.calls.length === 2);
    for (let i = 0; i < 3; i++) {
      clock.step(1000);
      clock2.step(1000);
    }
    await settle();
    const updates = (h: { calls: string[] }) => h.calls.filter((c) => c.startsWith('update'));
    assert.deepEqual(updates(fast), [
      'update ns/a@101 -> ns/a@101',
      'update ns/b@102 -> ns/b@102',
      'update ns/a@101 -> ns/a@101',
      'update ns/b@102 -> ns/b@102',
      'update ns/a@101 -> ns/a@101',
      'update ns/b@102 -> ns/b@102',
    ]);
    assert.deepEqual(updates(slow), ['update ns/a@101 -> ns/a@101', 'update ns/b@102 -> ns/b@102']);
    assert.deepEqual(updates(never), []);
  });

  it('keeps going when a handler throws', async () => {
    const lines: string[] = [];
    const lw = new FakeListerWatcher([cm('ns', 'a')]);
    const { informer } = makeInformer(lw, {
      logger: createLogger({ component: 'test', write: (line) => lines.push(line) }),
    });
    const good = recorder();
    let thrown = 0;
    informer.addEventHandler({
      onAdd: () => {
        thrown++;
        throw new Error('handler bug');
      },
      onUpdate: async () => {
        thrown++;
        throw new Error('async handler bug');
      },
    });
    informer.addEventHandler(good);
    informer.run();
    await lw.watchNumber(1);
    lw.create(cm('ns', 'b'));
    lw.modify(cm('ns', 'b', { k: 'v' }));
    await eventually(() => good.calls.length === 3);
    await settle();
    assert.equal(thrown, 3);
    assert.equal(lines.filter((l) => l.includes('Event handler failed')).length, 3);
    assert.equal(informer.getStore().listKeys().length, 2);
  });

  it('indexes by namespace and by added indices, also those added after the sync', async () => {
    const lw = new FakeListerWatcher([cm('a', 'web-1'), cm('a', 'db-1'), cm('b', 'web-2')]);
    const { informer } = makeInformer(lw, {
      indexers: { byApp: (obj) => [obj.metadata.labels?.app ?? ''] },
    });
    informer.run();
    await informer.whenSynced();
    const indexer = informer.getIndexer();
    const keys = (objs: KubeObject[]) => objs.map((o) => metaNamespaceKeyFunc(o)).sort();
    assert.deepEqual(keys(indexer.byIndex(NAMESPACE_INDEX, 'a')), ['a/db-1', 'a/web-1']);
    assert.deepEqual(keys(indexer.byIndex('byApp', 'web')), ['a/web-1', 'b/web-2']);
    informer.addIndexers({ byName: (obj) => [obj.metadata.name ?? ''] });
    assert.deepEqual(keys(indexer.byIndex('byName', 'db-1')), ['a/db-1']);
    await lw.watchNumber(1);
    lw.create(cm('b', 'web-3'));
    await eventually(() => indexer.byIndex('byApp', 'web').length === 3);
  });

  it('applies the transform before caching', async () => {
    const lw = new FakeListerWatcher([cm('ns', 'a', { big: 'x'.repeat(100) })]);
    const { informer } = makeInformer(lw, { transform: (obj) => ({ ...obj, data: {} }) });
    informer.run();
    await informer.whenSynced();
    assert.deepEqual(informer.getStore().getByKey('ns/a')?.data, {});
  });

  it('stops: no more notifications, no new handlers, waiters told it did not sync', async () => {
    const lw = new FakeListerWatcher([cm('ns', 'a')]);
    lw.list = () => new Promise(() => {});
    const { informer } = makeInformer(lw);
    const h = recorder();
    informer.addEventHandler(h);
    const controller = new AbortController();
    informer.run(controller.signal);
    assert.equal(informer.hasStarted(), true);
    const waiting = informer.whenSynced();
    controller.abort();
    assert.equal(await waiting, false);
    await informer.stop();
    assert.equal(informer.isStopped(), true);
    assert.throws(() => informer.addEventHandler(recorder()), /stopped already/);
    assert.deepEqual(h.calls, []);
  });

  it('waitForCacheSync answers false when its signal aborts first', async () => {
    const lw = new FakeListerWatcher();
    lw.list = () => new Promise(() => {});
    const { informer } = makeInformer(lw);
    informer.run();
    const controller = new AbortController();
    const result = waitForCacheSync(controller.signal, informer);
    controller.abort();
    assert.equal(await result, false);
  });

  it('removeEventHandler stops notifying that handler', async () => {
    const lw = new FakeListerWatcher([cm('ns', 'a')]);
    const { informer } = makeInformer(lw);
    const h = recorder();
    const registration = informer.addEventHandler(h);
    informer.run();
    await lw.watchNumber(1);
    await eventually(() => h.calls.length === 1);
    informer.removeEventHandler(registration);
    lw.create(cm('ns', 'b'));
    await eventually(() => informer.getStore().listKeys().length === 2);
    await settle();
    assert.equal(h.calls.length, 1);
  });
});
