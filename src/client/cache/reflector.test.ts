import { afterEach, describe, it } from 'node:test';
import assert from '../../testing/assert.js';
import { eventually, FakeListerWatcher, goneError, settle } from '../../testing/fake-lister-watcher.js';
import { FakeClock } from '../../util/clock.js';
import { ApiError, type KubeObject } from '../types.js';
import { Reflector, type ReflectorOptions, type ReflectorStore } from './reflector.js';
import { metaNamespaceKeyFunc } from './store.js';

const cm = (name: string, data: Record<string, string> = {}): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { namespace: 'default', name },
  data,
});

/** Records what the reflector does to its store. */
class RecordingStore implements ReflectorStore<KubeObject> {
  readonly ops: string[] = [];
  readonly items = new Map<string, KubeObject>();
  resyncs = 0;

  add(obj: KubeObject): void {
    this.ops.push(`add ${metaNamespaceKeyFunc(obj)}`);
    this.items.set(metaNamespaceKeyFunc(obj), obj);
  }
  update(obj: KubeObject): void {
    this.ops.push(`update ${metaNamespaceKeyFunc(obj)}`);
    this.items.set(metaNamespaceKeyFunc(obj), obj);
  }
  delete(obj: KubeObject): void {
    this.ops.push(`delete ${metaNamespaceKeyFunc(obj)}`);
    this.items.delete(metaNamespaceKeyFunc(obj));
  }
  replace(items: KubeObject[], rv: string): void {
    this.ops.push(`replace ${items.length} @${rv}`);
    this.items.clear();
    for (const obj of items) this.items.set(metaNamespaceKeyFunc(obj), obj);
  }
  resync(): void {
    this.resyncs++;
  }
}

const serverError = () => new ApiError({ kind: 'Status', apiVersion: 'v1', code: 500, reason: 'InternalError' });

const running: Reflector[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((r) => r.stop()));
});

function start(lw: FakeListerWatcher, opts: ReflectorOptions = {}) {
  const clock = new FakeClock(1_000_000);
  const store = new RecordingStore();
  const reflector = new Reflector(lw, store, { clock, random: () => 0, ...opts });
  running.push(reflector);
  reflector.run();
  return { clock, store, reflector };
}

describe('Reflector', () => {
  it('lists from "0" in pages of 500, fills the store, then watches from the list resourceVersion', async () => {
    const lw = new FakeListerWatcher([cm('a'), cm('b')]);
    const { store, reflector } = start(lw, { random: () => 0.5 });
    const w = await lw.watchNumber(1);
    assert.deepEqual(lw.listCalls, [{ resourceVersion: '0', limit: 500 }]);
    assert.deepEqual(store.ops, ['replace 2 @102']);
    assert.equal(reflector.lastSyncResourceVersion(), '102');
    assert.deepEqual(w.opts, { resourceVersion: '102', timeoutSeconds: 450, allowWatchBookmarks: true });
  });

  it('picks watch timeouts between 5 and 10 minutes', async () => {
    for (const [random, expected] of [
      [0, 300],
      [0.999, 599],
    ] as const) {
      const lw = new FakeListerWatcher();
      start(lw, { random: () => random });
      assert.equal((await lw.watchNumber(1)).opts.timeoutSeconds, expected);
    }
  });

  it('follows continue tokens, without a resourceVersion after the first page', async () => {
    const lw = new FakeListerWatcher([cm('a'), cm('b'), cm('c')]);
    const { store } = start(lw, { pageSize: 2 });
    await lw.watchNumber(1);
    assert.deepEqual(lw.listCalls, [
      { resourceVersion: '0', limit: 2 },
      { limit: 2, continue: '103:2' },
    ]);
    assert.deepEqual([...store.items.keys()], ['default/a', 'default/b', 'default/c']);
  });

  it('applies watch events and tracks their resourceVersion', async () => {
    const lw = new FakeListerWatcher([cm('a')]);
    const { store, reflector } = start(lw);
    await lw.watchNumber(1);
    lw.create(cm('b'));
    lw.modify(cm('a', { k: 'v' }));
    lw.remove(cm('b'));
    await eventually(() => store.ops.length === 4);
    assert.deepEqual(store.ops, ['replace 1 @101', 'add default/b', 'update default/a', 'delete default/b']);
    assert.deepEqual(store.items.get('default/a')?.data, { k: 'v' });
    assert.equal(reflector.lastSyncResourceVersion(), '104');
  });

  it('re-watches from the last resourceVersion seen when the server ends the watch', async () => {
    const lw = new FakeListerWatcher([cm('a')]);
    const { store } = start(lw);
    const first = await lw.watchNumber(1);
    const next = lw.nextWatch();
    lw.modify(cm('a', { n: '1' }));
    await eventually(() => store.ops.length === 2);
    first.end();
    const second = await next;
    assert.equal(second.opts.resourceVersion, '102');
    assert.equal(lw.listCalls.length, 1, 'no relist');
  });

  it('moves its resourceVersion on bookmarks', async () => {
    const lw = new FakeListerWatcher([cm('a')]);
    const { reflector, store } = start(lw);
    const first = await lw.watchNumber(1);
    const rv = lw.bookmark();
    await eventually(() => reflector.lastSyncResourceVersion() === rv);
    const next = lw.nextWatch();
    first.end();
    assert.equal((await next).opts.resourceVersion, rv);
    assert.deepEqual(store.ops, ['replace 1 @101'], 'bookmarks do not touch the store');
  });

  it('relists after a 410 ERROR event, from the last resourceVersion, after a backoff', async () => {
    const lw = new FakeListerWatcher([cm('a'), cm('b')]);
    const { clock, store } = start(lw);
    const w = await lw.watchNumber(1);
    lw.modify(cm('a', { n: '1' }));
    await eventually(() => store.ops.length === 2);
    lw.remove(cm('b'), { notify: false });
    lw.create(cm('c'), { notify: false });
    w.pushError({ code: 410, reason: 'Expired', message: 'too old resource version: 103 (105)' });
    await settle();
    assert.equal(lw.listCalls.length, 1, 'waits for the backoff first');
    const relisted = lw.nextWatch();
    clock.step(800);
    const second = await relisted;
    assert.deepEqual(lw.listCalls[1], { resourceVersion: '103' }, 'unpaged, at least as new as what we saw');
    assert.deepEqual(store.ops.at(-1), 'replace 2 @105');
    assert.deepEqual([...store.items.keys()].sort(), ['default/a', 'default/c']);
    assert.equal(second.opts.resourceVersion, '105');
  });

  it('relists when the watch request itself is rejected with 410', async () => {
    const lw = new FakeListerWatcher([cm('a')]);
    const { clock, store } = start(lw);
    const first = await lw.watchNumber(1);
    lw.watchErrors.push(goneError());
    const failed = lw.nextWatchCall();
    clock.step(1000);
    first.end();
    await failed;
    await settle();
    assert.equal(lw.listCalls.length, 1);
    clock.step(800);
    await eventually(() => lw.listCalls.length === 2);
    await lw.watchNumber(2);
    assert.deepEqual(store.ops, ['replace 1 @101', 'replace 1 @101']);
  });

  it('retries a list that is gone at once from "" (the newest version)', async () => {
    const lw = new FakeListerWatcher([cm('a')]);
    const { clock } = start(lw);
    const w = await lw.watchNumber(1);
    w.pushError({ code: 410, reason: 'Expired' });
    lw.listErrors.push(goneError());
    await settle();
    const next = lw.nextWatch();
    clock.step(800);
    await next;
    assert.deepEqual(lw.listCalls.slice(1), [{ resourceVersion: '101' }, {}]);
  });

  it('backs off on list errors: 800 ms doubling, capped at 30 s', async () => {
    const lw = new FakeListerWatcher([cm('a')]);
    for (let i = 0; i < 10; i++) lw.listErrors.push(serverError());
    const { clock } = start(lw);
    await eventually(() => lw.listCalls.length === 1);
    const delays = [800, 1600, 3200, 6400, 12_800, 25_600, 30_000, 30_000];
    for (const delay of delays) {
      await settle();
      const calls = lw.listCalls.length;
      clock.step(delay - 1);
      await settle();
      assert.equal(lw.listCalls.length, calls, `still waiting before ${delay} ms`);
      clock.step(1);
      await eventually(() => lw.listCalls.length === calls + 1);
    }
  });

  it('starts over from 800 ms once no backoff was needed for two minutes', async () => {
    const lw = new FakeListerWatcher([cm('a')]);
    lw.listErrors.push(serverError(), serverError());
    const { clock } = start(lw);
    await eventually(() => lw.listCalls.length === 1);
    await settle();
    clock.step(800);
    await eventually(() => lw.listCalls.length === 2);
    await settle();
    clock.step(1600);
    const w = await lw.watchNumber(1);
    clock.step(121_000);
    lw.listErrors.push(serverError());
    w.pushError({ code: 500, reason: 'InternalError', message: 'boom' });
    await settle();
    clock.step(799);
    await settle();
    assert.equal(lw.listCalls.length, 3, 'relist waits 800 ms (the backoff was reset), not 3200');
    clock.step(1);
    await eventually(() => lw.listCalls.length === 4);
  });

  it('on 429 or connection refused when opening a watch, backs off and re-watches without listing', async () => {
    const lw = new FakeListerWatcher([cm('a')]);
    const { clock } = start(lw);
    const first = await lw.watchNumber(1);
    lw.watchErrors.push(
      new ApiError({ kind: 'Status', apiVersion: 'v1', code: 429, reason: 'TooManyRequests' }),
      Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }),
    );
    clock.step(1000);
    first.end();
    await eventually(() => lw.watchCalls.length === 2);
    clock.step(800);
    await eventually(() => lw.watchCalls.length === 3);
    const next = lw.nextWatch();
    clock.step(1600);
    const w = await next;
    assert.equal(w.opts.resourceVersion, '101');
    assert.equal(lw.listCalls.length, 1);
  });

  it('treats a watch that ends at once without events as an error and relists after a backoff', async () => {
    const lw = new FakeListerWatcher([cm('a')]);
    const { clock } = start(lw);
    const w = await lw.watchNumber(1);
    w.end();
    await settle();
    assert.equal(lw.watchCalls.length, 1);
    clock.step(800);
    await lw.watchNumber(2);
    assert.equal(lw.listCalls.length, 2);
  });

  it('resyncs the store every resyncPeriod while watching, when shouldResync agrees', async () => {
    const lw = new FakeListerWatcher([cm('a')]);
    let allow = true;
    const { clock, store } = start(lw, { resyncPeriod: 1000, shouldResync: () => allow });
    await lw.watchNumber(1);
    clock.step(1000);
    clock.step(1000);
    assert.equal(store.resyncs, 2);
    allow = false;
    clock.step(1000);
    assert.equal(store.resyncs, 2);
  });

  it('stop() closes the watch and ends the loop', async () => {
    const lw = new FakeListerWatcher([cm('a')]);
    const { clock, reflector } = start(lw);
    const w = await lw.watchNumber(1);
    await reflector.stop();
    assert.equal(w.closed, true);
    clock.step(60_000);
    await settle();
    assert.equal(lw.listCalls.length, 1);
    assert.equal(lw.watchCalls.length, 1);
  });

  it('stop() ends a list that never answers', async () => {
    const lw = new FakeListerWatcher();
    lw.list = () => new Promise(() => {});
    const { reflector } = start(lw);
    await settle();
    await reflector.stop();
  });
});
