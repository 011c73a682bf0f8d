import { describe, it } from 'node:test';
import { MemoryStore } from '../../storage/memory.js';
import { handOver, StorageError, type WatchListener } from '../../storage/types.js';
import assert from '../../testing/assert.js';
import { eventually } from '../../testing/controllers.js';
import { FakeClock } from '../../util/clock.js';
import { silentLogger } from '../../util/logger.js';
import { decodeFromStorage, rememberWritten } from '../registry/codec.js';
import type { KubeObject } from '../registry/object.js';
import { Cacher, cacheTypeDescription, TooOldError, type WatchEventType } from './cacher.js';
import { CacheFollower } from './follower.js';

const obj = (name: string, labels: Record<string, string> = {}) => JSON.stringify({ metadata: { name, labels } });

/** A cache indexed by the `node` label of the objects, over a fresh store, counting the decodes it makes. */
async function countingNodeIndexedCacher() {
  const store = new MemoryStore();
  const node = (o: KubeObject) => String((o.metadata.labels as Record<string, string> | undefined)?.node ?? '');
  let count = 0;
  const decode = (value: Buffer, revision: number) => {
    count++;
    return decodeFromStorage(value, revision);
  };
  const cacher = new Cacher(store, '/registry/things/', decode, silentLogger, { index: node });
  await cacher.start();
  return { store, cacher, decodes: () => count };
}

describe('Cacher', () => {
  it('shares one frozen decoded object per state with getShared, and a new one once the object changes', async () => {
    const { store, cacher, decodes } = await countingNodeIndexedCacher();
    await store.create('/registry/things/a', obj('a', { v: '1' }));
    await new Promise((r) => setImmediate(r));
    const before = decodes();
    const first = await cacher.getShared('/registry/things/a');
    assert.equal(await cacher.getShared('/registry/things/a'), first, 'the same object for the second reader');
    assert.equal(decodes() - before, 1, 'decoded once for both');
    assert.ok(Object.isFrozen(first) && Object.isFrozen(first?.metadata.labels));
    assert.throws(() => {
      (first?.metadata.labels as Record<string, string>).v = '2';
    }, TypeError);
    const fresh = await cacher.get('/registry/things/a');
    assert.notEqual(fresh, first, 'get still decodes a copy of its own');
    assert.ok(!Object.isFrozen(fresh));
    const current = await store.get('/registry/things/a');
    await store.update('/registry/things/a', obj('a', { v: '3' }), current?.modRevision ?? 0);
    await new Promise((r) => setImmediate(r));
    const after = await cacher.getShared('/registry/things/a');
    assert.notEqual(after, first);
    assert.equal(after?.metadata.labels?.v, '3');
    assert.equal(await cacher.getShared('/registry/things/missing'), undefined);
    cacher.stop();
  });

  it('lists the shared objects under a prefix in key order, decoding only what changed since the last list', async () => {
    const { store, cacher, decodes } = await countingNodeIndexedCacher();
    for (const name of ['b', 'a', 'c']) await store.create(`/registry/things/${name}`, obj(name, { v: '1' }));
    await new Promise((r) => setImmediate(r));
    const before = decodes();
    const first = await cacher.listShared('/registry/things/');
    assert.deepEqual(
      first.map((o) => o.metadata.name),
      ['a', 'b', 'c'],
    );
    assert.ok(first.every((o) => Object.isFrozen(o)));
    assert.equal(decodes() - before, 3);
    const again = await cacher.listShared('/registry/things/');
    assert.ok(
      again.every((o, i) => o === first[i]),
      'the same objects for the next reader',
    );
    assert.equal(decodes() - before, 3, 'nothing decoded again');
    assert.equal(again, first, 'the same list, kept until the cache changes');
    assert.ok(Object.isFrozen(again), 'which no reader can change');
    const current = await store.get('/registry/things/b');
    await store.update('/registry/things/b', obj('b', { v: '2' }), current?.modRevision ?? 0);
    await store.delete('/registry/things/c', (await store.get('/registry/things/c'))?.modRevision ?? 0);
    await new Promise((r) => setImmediate(r));
    const after = await cacher.listShared('/registry/things/');
    assert.deepEqual(
      after.map((o) => `${o.metadata.name}=${o.metadata.labels?.v}`),
      ['a=1', 'b=2'],
    );
    assert.equal(after[0], first[0], 'an unchanged object is the same one');
    assert.equal(decodes() - before, 4, 'only the changed object decoded again');
    // A new object is seen by the next list, as is one added to a prefix that was empty when last asked.
    assert.deepEqual(await cacher.listShared('/registry/none/'), []);
    assert.deepEqual(await cacher.listShared('/registry/things/z'), []);
    await store.create('/registry/things/zed', obj('zed', { v: '1' }));
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(
      (await cacher.listShared('/registry/things/')).map((o) => o.metadata.name),
      ['a', 'b', 'zed'],
    );
    assert.deepEqual(
      (await cacher.listShared('/registry/things/z')).map((o) => o.metadata.name),
      ['zed'],
    );
    cacher.stop();
  });

  it('serves the current state, and refuses watches older than its window', async () => {
    const store = new MemoryStore();
    await store.create('/registry/things/a', obj('a'));
    const cacher = new Cacher(store, '/registry/things/', decodeFromStorage, silentLogger, 3);
    await cacher.start();
    const first = (await cacher.list('/registry/things/', () => true)).revision;
    let rev = 0;
    for (let i = 0; i < 5; i++) rev = (await store.create(`/registry/things/n${i}`, obj(`n${i}`))).revision;
    await new Promise((r) => setImmediate(r));
    assert.equal(cacher.revision, rev);
    const { items } = await cacher.list('/registry/things/', () => true);
    assert.equal(items.length, 6);
    await assert.rejects(
      cacher.watch({
        fromRevision: first,
        prefix: '/registry/things/',
        matches: () => true,
        onEvent: () => {},
        onEnd: () => {},
      }),
      (e: unknown) => e instanceof TooOldError && /^too old resource version: \d+ \(\d+\)$/.test(e.message),
    );
    const seen: string[] = [];
    const w = await cacher.watch({
      fromRevision: rev - 2,
      prefix: '/registry/things/',
      matches: () => true,
      onEvent: (type: WatchEventType, o: KubeObject) => seen.push(`${type} ${o.metadata.name}`),
      onEnd: () => {},
    });
    assert.deepEqual(seen, ['ADDED n3', 'ADDED n4'], 'the window replays what it still holds');
    w.stop();
    cacher.stop();
  });

  it('grows its window while its events are fresh and shrinks it once they are stale', async () => {
    const store = new MemoryStore();
    const clock = new FakeClock(1_000_000);
    const cacher = new Cacher(store, '/registry/things/', decodeFromStorage, silentLogger, {
      capacity: 4,
      maxCapacity: 16,
      freshMs: 1000,
      clock,
    });
    await cacher.start();
    const watchable = (fromRevision: number) =>
      cacher
        .watch({ fromRevision, prefix: '/registry/things/', matches: () => true, onEvent: () => {}, onEnd: () => {} })
        .then((w) => {
          w.stop();
          return true;
        })
        .catch((e: unknown) => {
          if (e instanceof TooOldError) return false;
          throw e;
        });
    const revs: number[] = [];
    const put = async (n: number) => {
      for (let i = 0; i < n; i++)
        revs.push((await store.create(`/registry/things/x${revs.length}`, obj('x'))).revision);
      await new Promise((r) => setImmediate(r));
    };
    // 12 events within the fresh time: a fixed window of 4 would have lost the first 8.
    await put(12);
    assert.equal(await watchable(revs[0] as number), true, 'a fresh window doubled rather than dropping events');
    // Past the upper bound it drops the oldest, however fresh.
    await put(8);
    assert.equal(await watchable(revs[2] as number), false);
    assert.equal(await watchable(revs[3] as number), true, 'the window holds the newest 16 events');
    // Once the newest quarter is stale, an insert into the full window halves it, down to the lower bound.
    const last = (back: number) => revs[revs.length - back] as number;
    clock.step(5000);
    await put(1);
    assert.equal(await watchable(last(9)), true);
    assert.equal(await watchable(last(10)), false, 'the window halved to 8');
    clock.step(5000);
    await put(1);
    assert.equal(await watchable(last(5)), true);
    assert.equal(await watchable(last(6)), false, 'and then to 4');
    clock.step(5000);
    await put(1);
    assert.equal(await watchable(last(5)), true);
    assert.equal(await watchable(last(6)), false, 'and no lower');
    // A burst fills it with fresh events again, and it grows again.
    await put(5);
    assert.equal(await watchable(last(6)), true, 'it doubled to 8 for the fifth fresh event');
    cacher.stop();
  });

  it('ends its watchers when its storage closes', async () => {
    const store = new MemoryStore();
    const cacher = new Cacher(store, '/registry/things/', decodeFromStorage, silentLogger);
    await cacher.start();
    const ends: string[] = [];
    await cacher.watch({
      fromRevision: undefined,
      prefix: '/registry/things/',
      matches: () => true,
      onEvent: () => {},
      onEnd: (r) => ends.push(r),
    });
    await store.close();
    await new Promise((r) => setTimeout(r, 10));
    assert.deepEqual(ends, ['closed']);
    cacher.stop();
  });
  it('gives encoded watchers the stored JSON with its resourceVersion, with selector transitions as before', async () => {
    const store = new MemoryStore();
    const cacher = new Cacher(store, '/registry/things/', decodeFromStorage, silentLogger);
    await cacher.start();
    const selected: string[] = [];
    const all: string[] = [];
    let asked = 0;
    const watches = [
      await cacher.watch({
        fromRevision: cacher.revision,
        prefix: '/registry/things/',
        matches: (o) => o.metadata.labels?.color === 'blue',
        onEvent: () => assert.fail('onEvent is not used when onEncodedEvent is given'),
        onEncodedEvent: (type, json, revision) => {
          const o = JSON.parse(json.toString()) as KubeObject;
          assert.equal(o.metadata.resourceVersion, String(revision), 'the JSON carries the revision');
          selected.push(`${type} ${o.metadata.name} ${o.metadata.labels?.color}`);
        },
        onEnd: () => {},
      }),
      await cacher.watch({
        fromRevision: cacher.revision,
        prefix: '/registry/things/',
        everything: true,
        matches: () => {
          asked++;
          return true;
        },
        onEvent: () => {},
        onEncodedEvent: (type, json) =>
          all.push(`${type} ${(JSON.parse(json.toString()) as KubeObject).metadata.name}`),
        onEnd: () => {},
      }),
    ];
    const a = await store.create('/registry/things/a', obj('a', { color: 'blue' }));
    const b = await store.update('/registry/things/a', obj('a', { color: 'red' }), a.revision);
    const c = await store.update('/registry/things/a', obj('a', { color: 'blue' }), b.revision);
    await store.create('/registry/things/b', obj('b', { color: 'red' }));
    await store.delete('/registry/things/a', c.revision);
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(
      selected,
      ['ADDED a blue', 'DELETED a blue', 'ADDED a blue', 'DELETED a blue'],
      'a selector watcher sees objects enter and leave its selection, leaving as they were before the change',
    );
    assert.deepEqual(
      all,
      ['ADDED a', 'MODIFIED a', 'MODIFIED a', 'ADDED b', 'DELETED a'],
      'an everything watcher sees each change',
    );
    assert.equal(asked, 0, 'an everything watcher is never asked to match');
    for (const w of watches) w.stop();
    cacher.stop();
  });

  it('decodes nothing for a watcher whose stored-bytes test fails, and treats such values as not matching', async () => {
    const store = new MemoryStore();
    const decoded: string[] = [];
    const decode = (value: Buffer, revision: number) => {
      const o = decodeFromStorage(value, revision);
      decoded.push(o.metadata.name ?? '');
      return o;
    };
    await store.create('/registry/things/old-plain', obj('old-plain'));
    await store.create('/registry/things/old-marked', obj('old-marked', { mark: 'yes' }));
    const cacher = new Cacher(store, '/registry/things/', decode, silentLogger);
    await cacher.start();
    const seen: string[] = [];
    await cacher.watch({
      fromRevision: undefined,
      prefix: '/registry/things/',
      matches: () => true,
      matchesStored: (value) => value.includes('"mark"'),
      onEvent: (type: WatchEventType, o: KubeObject) => seen.push(`${type} ${o.metadata.name}`),
      onEnd: () => {},
    });
    const plain = await store.create('/registry/things/plain', obj('plain'));
    await store.update('/registry/things/plain', obj('plain', { mark: 'yes' }), plain.revision);
    const marked = await store.create('/registry/things/marked', obj('marked', { mark: 'yes' }));
    await store.update('/registry/things/marked', obj('marked'), marked.revision);
    const gone = await store.create('/registry/things/gone', obj('gone'));
    await store.delete('/registry/things/gone', gone.revision);
    await new Promise((r) => setTimeout(r, 10));
    assert.deepEqual(seen, ['ADDED old-marked', 'ADDED plain', 'ADDED marked', 'DELETED marked']);
    assert.ok(!decoded.includes('old-plain') && !decoded.includes('gone'), `decoded: ${decoded.join(',')}`);
    cacher.stop();
  });

  it('decodes only the new state for a watcher whose stored-bytes test alone decides', async () => {
    const store = new MemoryStore();
    const decoded: string[] = [];
    const decode = (value: Buffer, revision: number) => {
      const o = decodeFromStorage(value, revision);
      decoded.push(`${o.metadata.name}@${o.metadata.labels?.v ?? ''}`);
      return o;
    };
    // Objects stored before the watch: the matching one is sent, decoded, as the watch's first event.
    await store.create('/registry/things/before', obj('before', { mark: 'yes', v: '0' }));
    await store.create('/registry/things/other', obj('other', { v: '0' }));
    const cacher = new Cacher(store, '/registry/things/', decode, silentLogger);
    await cacher.start();
    const seen: string[] = [];
    await cacher.watch({
      fromRevision: undefined,
      prefix: '/registry/things/',
      matches: () => {
        throw new Error('matches is not asked');
      },
      matchesStored: (value) => value.includes('"mark"'),
      storedTestDecides: true,
      onEvent: (type: WatchEventType, o: KubeObject) => seen.push(`${type} ${o.metadata.labels?.v}`),
      onEnd: () => {},
    });
    const a = await store.create('/registry/things/a', obj('a', { mark: 'yes', v: '1' }));
    const b = await store.update('/registry/things/a', obj('a', { mark: 'yes', v: '2' }), a.revision);
    const c = await store.update('/registry/things/a', obj('a', { v: '3' }), b.revision);
    await store.update('/registry/things/a', obj('a', { mark: 'yes', v: '4' }), c.revision);
    await new Promise((r) => setTimeout(r, 10));
    assert.deepEqual(
      seen,
      ['ADDED 0', 'ADDED 1', 'MODIFIED 2', 'DELETED 2', 'ADDED 4'],
      'a state that stops matching leaves as before',
    );
    // Each event decodes what it sends, once; never a state before a change to learn whether it matched.
    assert.deepEqual(decoded, ['before@0', 'a@1', 'a@2', 'a@2', 'a@4']);
    cacher.stop();
  });

  it('offers a change only to the indexed watchers filed under the value the object has or had', async () => {
    const store = new MemoryStore();
    const node = (o: KubeObject) => String((o.metadata.labels as Record<string, string> | undefined)?.node ?? '');
    const cacher = new Cacher(store, '/registry/things/', decodeFromStorage, silentLogger, { index: node });
    await cacher.start();
    const seen: string[] = [];
    const asked: string[] = [];
    const watch = (who: string, indexValue?: string) =>
      cacher.watch({
        fromRevision: cacher.revision,
        prefix: '/registry/things/',
        matches: (o) => {
          asked.push(who);
          return indexValue === undefined || node(o) === indexValue;
        },
        ...(indexValue === undefined ? {} : { indexValue }),
        onEvent: (type: WatchEventType, o: KubeObject) => seen.push(`${who}: ${type} ${o.metadata.name}`),
        onEnd: () => {},
      });
    const watches = [await watch('n1', 'n1'), await watch('n2', 'n2'), await watch('any')];
    for (let i = 3; i <= 50; i++) watches.push(await watch(`n${i}`, `n${i}`));
    const a = await store.create('/registry/things/a', obj('a'));
    const a1 = await store.update('/registry/things/a', obj('a', { node: 'n1' }), a.revision);
    const a2 = await store.update('/registry/things/a', obj('a', { node: 'n2' }), a1.revision);
    await store.delete('/registry/things/a', a2.revision);
    await new Promise((r) => setTimeout(r, 10));
    assert.deepEqual(seen, [
      'any: ADDED a',
      'any: MODIFIED a',
      'n1: ADDED a',
      'any: MODIFIED a',
      'n1: DELETED a',
      'n2: ADDED a',
      'any: DELETED a',
      'n2: DELETED a',
    ]);
    assert.ok(
      asked.every((who) => ['n1', 'n2', 'any'].includes(who)),
      `asked: ${[...new Set(asked)].join(',')}`,
    );
    // A stopped indexed watcher is offered nothing more.
    watches[0]?.stop();
    await store.create('/registry/things/b', obj('b', { node: 'n1' }));
    await new Promise((r) => setTimeout(r, 10));
    assert.deepEqual(seen.slice(8), ['any: ADDED b']);
    cacher.stop();
  });

  it('decides from the index values alone for a watcher whose selector is only the indexed field', async () => {
    const { store, cacher, decodes } = await countingNodeIndexedCacher();
    const seen: string[] = [];
    for (const who of ['n1', 'n2']) {
      await cacher.watch({
        fromRevision: cacher.revision,
        prefix: '/registry/things/',
        matches: () => {
          throw new Error(`${who} was asked`);
        },
        indexValue: who,
        indexTest: (v: string) => v === who,
        onEvent: (type: WatchEventType, o: KubeObject) => seen.push(`${who}: ${type} ${o.metadata.name}`),
        onEnd: () => {},
      });
    }
    const a = await store.create('/registry/things/a', obj('a', { node: 'n1' }));
    const a1 = await store.update('/registry/things/a', obj('a', { node: 'n1', x: 'y' }), a.revision);
    const a2 = await store.update('/registry/things/a', obj('a', { node: 'n2' }), a1.revision);
    await store.delete('/registry/things/a', a2.revision);
    await new Promise((r) => setTimeout(r, 10));
    assert.deepEqual(seen, ['n1: ADDED a', 'n1: MODIFIED a', 'n1: DELETED a', 'n2: ADDED a', 'n2: DELETED a']);
    // One decode per event (its index value, and the object sent), and the state before the move, which n1's
    // watcher is sent as its DELETED (as upstream's cache watcher sends the object that stopped matching).
    assert.equal(decodes(), 5);
    cacher.stop();
  });

  it('decides from the index values for an unindexed watcher whose selector is a test of the indexed field', async () => {
    const { store, cacher, decodes } = await countingNodeIndexedCacher();
    const seen: string[] = [];
    const w = await cacher.watch({
      fromRevision: cacher.revision,
      prefix: '/registry/things/',
      matches: () => {
        throw new Error('matches was asked');
      },
      indexTest: (v: string) => v !== '',
      onEvent: (type: WatchEventType, o: KubeObject) => seen.push(`${type} ${o.metadata.name}`),
      onEnd: () => {},
    });
    const a = await store.create('/registry/things/a', obj('a'));
    const a1 = await store.update('/registry/things/a', obj('a', { node: 'n1' }), a.revision);
    const a2 = await store.update('/registry/things/a', obj('a', { node: 'n2' }), a1.revision);
    const a3 = await store.update('/registry/things/a', obj('a'), a2.revision);
    const a4 = await store.update('/registry/things/a', obj('a', { node: 'n1' }), a3.revision);
    await store.delete('/registry/things/a', a4.revision);
    const b = await store.create('/registry/things/b', obj('b'));
    await store.delete('/registry/things/b', b.revision);
    await new Promise((r) => setTimeout(r, 10));
    assert.deepEqual(seen, ['ADDED a', 'MODIFIED a', 'DELETED a', 'ADDED a', 'DELETED a']);
    // One decode per stored state, for its index value (6), one of the state a left the selection from (sent as
    // its DELETED), and one of a's last state to send its deletion; b's deletion, not sent, needs none: its index
    // value was remembered.
    assert.equal(decodes(), 8);
    w.stop();
    cacher.stop();
  });
});

describe('Cacher recent decoded states', () => {
  /** A watcher of prefix from now on that looks at every object it is sent. */
  const watchFrom = (cacher: Cacher, prefix: string) =>
    cacher.watch({
      fromRevision: undefined,
      prefix,
      matches: () => true,
      onEvent: (_type: WatchEventType, o: KubeObject) => void o.metadata.name,
      onEnd: () => {},
    });

  it('keeps the states its watchers decoded for the next update, but not large ones', async () => {
    const store = new MemoryStore();
    const cacher = new Cacher(store, '/registry/things/', decodeFromStorage, silentLogger);
    await watchFrom(cacher, '/registry/things/');
    const small = await store.create('/registry/things/small', obj('small'));
    const big = JSON.stringify({ metadata: { name: 'big', annotations: { pad: 'x'.repeat(70 * 1024) } } });
    await store.create('/registry/things/big', big);
    await new Promise((r) => setImmediate(r));
    const kept = cacher.takeRecent('/registry/things/small');
    assert.equal(kept?.metadata.resourceVersion, String(small.revision));
    assert.equal(cacher.takeRecent('/registry/things/small'), undefined, 'handed out once');
    assert.equal(cacher.takeRecent('/registry/things/big'), undefined, 'a state over 64 KiB of JSON is not kept');
    cacher.stop();
  });

  it('does not keep a state no watcher looked at', async () => {
    const store = new MemoryStore();
    const cacher = new Cacher(store, '/registry/things/', decodeFromStorage, silentLogger);
    await watchFrom(cacher, '/registry/other/');
    // Written as the registry writes, handing the object over with its bytes: still not kept, as no watcher of
    // these keys asked for it.
    const written = (name: string) => {
      const o: KubeObject = { metadata: { name } };
      const bytes = handOver(Buffer.from(JSON.stringify(o)));
      rememberWritten(bytes, o);
      return bytes;
    };
    await store.create('/registry/things/unwatched', written('unwatched'));
    await new Promise((r) => setImmediate(r));
    assert.equal(cacher.takeRecent('/registry/things/unwatched'), undefined);
    cacher.stop();
    const alone = new Cacher(store, '/registry/things/', decodeFromStorage, silentLogger);
    await alone.start();
    await store.create('/registry/things/alone', written('alone'));
    await new Promise((r) => setImmediate(r));
    assert.equal(alone.takeRecent('/registry/things/alone'), undefined, 'nor with no watchers at all');
    alone.stop();
  });
});

describe('Cacher reload', () => {
  it('gives a watcher that watches again at once, after the storage watch was lost, the reloaded state', async () => {
    const listeners: WatchListener[] = [];
    const store = new (class extends MemoryStore {
      override watch(prefix: string, afterRevision: number, listener: WatchListener) {
        listeners.push(listener);
        return super.watch(prefix, afterRevision, listener);
      }
    })();
    for (const name of ['a', 'b', 'c']) await store.create(`/registry/things/${name}`, obj(name));
    const cacher = new Cacher(store, '/registry/things/', decodeFromStorage, silentLogger);
    const known = new Set<string>();
    const follower = new CacheFollower();
    await follower.follow(
      { cacher, prefix: '/registry/things/' },
      (type, o) => (type === 'DELETED' ? known.delete(o.metadata.name ?? '') : known.add(o.metadata.name ?? '')),
      () => known.clear(),
    );
    assert.deepEqual([...known].sort(), ['a', 'b', 'c']);
    // The storage watch ends as a compaction ends it: the follower drops what it had and follows again.
    listeners[0]?.onError(new StorageError('Compacted', 'required revision has been compacted'));
    await eventually(() => assert.deepEqual([...known].sort(), ['a', 'b', 'c']));
    await store.create('/registry/things/d', obj('d'));
    await eventually(() => assert.ok(known.has('d'), 'changes after the reload arrive too'));
    follower.stop();
    cacher.stop();
  });
});

describe('Cacher that cannot load', () => {
  /** A store whose lists fail while `failing` holds (as a list meeting a value no encryption key reads). */
  function flakyStore() {
    const state = { failing: true, lists: 0, listeners: [] as WatchListener[] };
    const store = new (class extends MemoryStore {
      override async list(prefix: string, opts?: Parameters<MemoryStore['list']>[1]) {
        state.lists++;
        if (state.failing) {
          throw new StorageError('Internal', 'unable to transform key "/registry/things/a": no matching prefix found');
        }
        return super.list(prefix, opts);
      }
      override watch(prefix: string, afterRevision: number, listener: WatchListener) {
        state.listeners.push(listener);
        return super.watch(prefix, afterRevision, listener);
      }
    })();
    return { store, state };
  }
  const refusal = {
    code: 429,
    reason: 'TooManyRequests',
    message:
      'storage is (re)initializing: failed to list *core.Thing: unable to transform key "/registry/things/a": no matching prefix found',
  };

  it('refuses its readers with upstream’s 429 at once, keeps trying, and serves once a load works', async () => {
    const { store, state } = flakyStore();
    await store.create('/registry/things/a', obj('a'));
    const cacher = new Cacher(store, '/registry/things/', decodeFromStorage, silentLogger, {
      typeDescription: '*core.Thing',
    });
    await assert.rejects(cacher.start(), refusal);
    await assert.rejects(
      cacher.list('/registry/things/', () => true),
      refusal,
    );
    await assert.rejects(cacher.getShared('/registry/things/a'), refusal);
    const err = await cacher
      .watch({
        fromRevision: undefined,
        prefix: '/registry/things/',
        matches: () => true,
        onEvent: () => {},
        onEnd: () => {},
      })
      .catch((e) => e);
    assert.equal(err.status.details.retryAfterSeconds, 1);
    assert.equal(cacher.isLoaded, false);
    await eventually(() => assert.ok(state.lists >= 2, 'it tries again on its own'));
    state.failing = false;
    await eventually(async () =>
      assert.deepEqual(
        (await cacher.list('/registry/things/', () => true)).items.map((o) => o.metadata.name),
        ['a'],
      ),
    );
    cacher.stop();
  });

  it('after losing its storage watch, refuses while the reload fails; its followers come back when it works', async () => {
    const { store, state } = flakyStore();
    state.failing = false;
    await store.create('/registry/things/a', obj('a'));
    const cacher = new Cacher(store, '/registry/things/', decodeFromStorage, silentLogger, {
      typeDescription: '*core.Thing',
    });
    const known = new Set<string>();
    const follower = new CacheFollower();
    await follower.follow(
      { cacher, prefix: '/registry/things/' },
      (type, o) => (type === 'DELETED' ? known.delete(o.metadata.name ?? '') : known.add(o.metadata.name ?? '')),
      () => known.clear(),
    );
    assert.deepEqual([...known], ['a']);
    state.failing = true;
    // The storage watch ends as the encrypting store ends it at a value it cannot read.
    state.listeners[0]?.onError(new StorageError('Internal', 'no matching prefix found'));
    await eventually(() => assert.equal(known.size, 0, 'the follower dropped what it had'));
    await assert.rejects(
      cacher.list('/registry/things/', () => true),
      refusal,
    );
    state.failing = false;
    await store.create('/registry/things/b', obj('b'));
    await eventually(() => assert.deepEqual([...known].sort(), ['a', 'b']));
    follower.stop();
    cacher.stop();
  });
});

describe('cacheTypeDescription', () => {
  it('names the internal Go type upstream’s cache lists, or a custom resource’s kind', () => {
    assert.equal(cacheTypeDescription('', 'Secret'), '*core.Secret');
    assert.equal(cacheTypeDescription('apps', 'Deployment'), '*apps.Deployment');
    assert.equal(cacheTypeDescription('rbac.authorization.k8s.io', 'Role'), '*rbac.Role');
    assert.equal(cacheTypeDescription('events.k8s.io', 'Event'), '*core.Event');
    assert.equal(cacheTypeDescription('stable.example.com', 'CronTab', 'v1'), 'stable.example.com/v1, Kind=CronTab');
  });
});
