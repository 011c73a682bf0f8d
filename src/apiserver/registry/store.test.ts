import { describe, it } from 'node:test';
import { StatusError } from '../../api/status-error.js';
import { MemoryStore } from '../../storage/memory.js';
import { StorageError, type WatchListener } from '../../storage/types.js';
import assert from '../../testing/assert.js';
import { silentLogger } from '../../util/logger.js';
import { AdmissionChain } from '../admission/chain.js';
import type { AdmissionAttributes, AdmissionPlugin } from '../admission/types.js';
import { Cacher } from '../cacher/cacher.js';
import { decodeFromStorage } from './codec.js';
import { pods } from './resources/core-pods.js';
import { storageclasses } from './resources/storage-storageclasses.js';
import { GenericStore } from './store.js';

/** A store of pods whose admission chain records what it sees and labels what it admits. */
function podStore(log: string[]) {
  const seen: AdmissionAttributes[] = [];
  const recorder: AdmissionPlugin = {
    name: 'Recorder',
    admit(attrs) {
      seen.push(structuredClone(attrs));
      log.push(`admit ${attrs.operation}${attrs.subresource ? `/${attrs.subresource}` : ''}`);
      if (attrs.object && attrs.subresource === '') {
        attrs.object.metadata.labels = { ...attrs.object.metadata.labels, admitted: 'yes' };
      }
    },
    validate(attrs) {
      log.push(`validate ${attrs.operation}${attrs.subresource ? `/${attrs.subresource}` : ''}`);
    },
  };
  const storage = new MemoryStore();
  const { def } = pods();
  const cacher = new Cacher(storage, `${def.storagePrefix}/`, decodeFromStorage, silentLogger);
  const store = new GenericStore(def, storage, cacher, { admission: new AdmissionChain([recorder]) });
  return { store, seen };
}

const user = { name: 'alice', groups: ['system:authenticated'] };
const pod = { metadata: { generateName: 'web-' }, spec: { containers: [{ name: 'c', image: 'nginx' }] } };

describe('GenericStore admission', () => {
  it('runs mutating admission after defaulting and before the name is generated, validating before storage', async () => {
    const log: string[] = [];
    const { store, seen } = podStore(log);
    const created = await store.create('default', pod, { user });
    assert.deepEqual(log, ['admit CREATE', 'validate CREATE']);
    assert.equal(created.metadata.labels?.admitted, 'yes');
    assert.match(created.metadata.name ?? '', /^web-[a-z0-9]{5}$/);
    const attrs = seen[0] as AdmissionAttributes;
    assert.equal(attrs.name, '');
    assert.equal(attrs.namespace, 'default');
    assert.deepEqual(attrs.userInfo, user);
    assert.deepEqual(attrs.kind, { group: '', version: 'v1', kind: 'Pod' });
    assert.deepEqual(attrs.resource, { group: '', version: 'v1', resource: 'pods' });
    assert.equal(attrs.object?.metadata.uid, undefined, 'system fields come after mutating admission');
    assert.equal((attrs.object!.spec as { restartPolicy?: string }).restartPolicy, 'Always', 'defaulted');
  });

  it('runs for updates of the resource and of its status, for deletes, and for dry runs', async () => {
    const log: string[] = [];
    const { store, seen } = podStore(log);
    const created = await store.create('default', { ...pod, metadata: { name: 'web' } }, { dryRun: true });
    assert.equal(created.metadata.resourceVersion, undefined);
    await store.create('default', { ...pod, metadata: { name: 'web' } });
    const current = await store.get('default', 'web');
    await store.update('default', 'web', { ...current, metadata: { ...current.metadata, labels: {} } }, { user });
    await store.update('default', 'web', { ...current, status: { phase: 'Running' } }, { subresource: 'status' });
    await store.delete('default', 'web', { user });
    assert.deepEqual(log, [
      'admit CREATE',
      'validate CREATE',
      'admit CREATE',
      'validate CREATE',
      'admit UPDATE',
      'validate UPDATE',
      'admit UPDATE/status',
      'validate UPDATE/status',
      'admit DELETE',
      'validate DELETE',
    ]);
    assert.equal(seen[0]?.dryRun, true);
    const update = seen[2] as AdmissionAttributes;
    assert.equal(update.oldObject?.metadata.name, 'web');
    assert.equal(update.name, 'web');
    const deletion = seen[4] as AdmissionAttributes;
    assert.equal(deletion.object, undefined);
    assert.equal(deletion.oldObject?.metadata.name, 'web');
  });

  it('is skipped for the apiserver own writes and for writes a subresource admitted already', async () => {
    const log: string[] = [];
    const { store } = podStore(log);
    await store.create('default', { ...pod, metadata: { name: 'a' } }, { skipAdmission: true });
    await store.guaranteedUpdate('default', 'a', (p) => p, { internal: true });
    await store.delete('default', 'a', { skipAdmission: true });
    assert.deepEqual(log, []);
  });
});

/** A store of pods whose watch cache has a watcher that takes decoded objects, so that it decodes every change (as for the Node graph). */
async function decodingPodStore() {
  /** Storage whose changes can be held back from the cache (hold() returns the release). */
  let held: Array<() => void> | undefined;
  const storage = new (class extends MemoryStore {
    override watch(prefix: string, afterRevision: number, listener: WatchListener) {
      return super.watch(prefix, afterRevision, {
        onEvent: (e) => (held ? held.push(() => listener.onEvent(e)) : listener.onEvent(e)),
        onError: (err) => listener.onError(err),
      });
    }
  })();
  const hold = () => {
    held = [];
    return () => {
      const queued = held ?? [];
      held = undefined;
      for (const deliver of queued) deliver();
    };
  };
  const { def } = pods();
  let decodes = 0;
  const decode = (value: Buffer, revision: number) => {
    decodes++;
    return decodeFromStorage(value, revision);
  };
  const cacher = new Cacher(storage, `${def.storagePrefix}/`, decode, silentLogger);
  await cacher.watch({
    fromRevision: undefined,
    prefix: '/',
    matches: () => true,
    matchesStored: () => true,
    storedTestDecides: true,
    onEvent: () => {},
    onEnd: () => {},
  });
  const store = new GenericStore(def, storage, cacher);
  const settle = () => new Promise((r) => setImmediate(r));
  return { store, storage, cacher, settle, hold, decodes: () => decodes };
}

describe('GenericStore updates from the watch cache', () => {
  it('starts from the state the cache decoded for the latest change, without reading storage again', async () => {
    const { store, storage, cacher, settle, decodes } = await decodingPodStore();
    await store.create('default', { ...pod, metadata: { name: 'a' } });
    await settle();
    let reads = 0;
    const get = storage.get.bind(storage);
    storage.get = (key, ...rest) => {
      reads++;
      return get(key, ...rest);
    };
    const before = decodes();
    const labelled = await store.guaranteedUpdate('default', 'a', (p) => {
      p.metadata.labels = { step: '1' };
      return p;
    });
    assert.equal(reads, 0, 'storage was not read');
    // The one decode is the cache's, of the update's own change for its watcher; the update itself decoded nothing.
    await settle();
    assert.equal(decodes(), before + 1);
    await settle();
    // The cache's next change is the update's own; the object is handed over once.
    const key = store.key('default', 'a');
    const taken = cacher.takeRecent(key);
    assert.equal(taken?.metadata.labels?.step, '1');
    assert.equal(taken?.metadata.resourceVersion, labelled.metadata.resourceVersion);
    assert.equal(cacher.takeRecent(key), undefined);
  });

  it("starts from the cache's stored bytes when it no longer holds the decoded state, still without reading storage", async () => {
    const { store, storage, cacher, settle } = await decodingPodStore();
    await store.create('default', { ...pod, metadata: { name: 'a' } });
    await settle();
    const key = store.key('default', 'a');
    cacher.takeRecent(key);
    assert.equal(cacher.takeRecent(key), undefined, 'no decoded state left');
    let reads = 0;
    const get = storage.get.bind(storage);
    storage.get = (k, ...rest) => {
      reads++;
      return get(k, ...rest);
    };
    const labelled = await store.guaranteedUpdate('default', 'a', (p) => {
      p.metadata.labels = { step: '2' };
      return p;
    });
    assert.equal(reads, 0, 'storage was not read');
    assert.deepEqual(labelled.metadata.labels, { step: '2' });
    assert.equal((await store.get('default', 'a')).metadata.resourceVersion, labelled.metadata.resourceVersion);
  });

  it('gives the watch cache the object a shared write answered, instead of decoding the stored bytes', async () => {
    const { store, cacher, settle, decodes } = await decodingPodStore();
    const before = decodes();
    const shared = await store.create('default', { ...pod, metadata: { name: 'a' } }, { shareResult: true });
    await settle();
    assert.equal(decodes(), before, 'the change of a shared write is not decoded');
    const key = store.key('default', 'a');
    assert.equal(cacher.takeRecent(key), shared, 'the very object the write answered');
    // A write whose caller may change the object it gets back is decoded as before.
    await store.create('default', { ...pod, metadata: { name: 'b' } });
    await settle();
    assert.equal(decodes(), before + 1);
    const mine = cacher.takeRecent(store.key('default', 'b'));
    assert.equal(mine?.metadata.name, 'b');
    assert.equal(mine?.metadata.resourceVersion, (await store.get('default', 'b')).metadata.resourceVersion);
  });

  it('checks a state that may be stale against storage before a refusal or a no-op stands', async () => {
    const { store, storage, settle, hold } = await decodingPodStore();
    await store.create('default', { ...pod, metadata: { name: 'a' } });
    await settle();
    const key = store.key('default', 'a');
    /** Changes a's labels in storage behind the cache's back: the cache keeps handing out the state before. */
    const behindTheCache = async (labels: Record<string, string>) => {
      const release = hold();
      const kv = await storage.get(key);
      const obj = JSON.parse(String(kv?.value));
      obj.metadata.labels = labels;
      const { revision } = await storage.update(key, JSON.stringify(obj), kv?.modRevision ?? 0);
      return { revision: String(revision), release };
    };
    // A PUT naming the fresh resourceVersion is not refused as a conflict from the stale state.
    const current = await store.get('default', 'a');
    const first = await behindTheCache({ moved: 'on' });
    const { object } = await store.update('default', 'a', {
      ...current,
      metadata: { ...current.metadata, resourceVersion: first.revision, labels: { moved: 'on', put: 'yes' } },
    });
    assert.deepEqual(object.metadata.labels, { moved: 'on', put: 'yes' }, 'applied to the fresh state');
    first.release();
    await settle();
    // A patch computed from the stale state is written to the fresh one.
    const second = await behindTheCache({ moved: 'again' });
    const patched = await store.guaranteedUpdate('default', 'a', (p) => {
      p.metadata.labels = { ...p.metadata.labels, patched: 'yes' };
      return p;
    });
    assert.deepEqual(patched.metadata.labels, { moved: 'again', patched: 'yes' });
    second.release();
    await settle();
    // An update that changes nothing answers the fresh state, not the stale one.
    const third = await behindTheCache({ moved: 'third' });
    const unchanged = await store.guaranteedUpdate('default', 'a', (p) => p);
    assert.equal(unchanged.metadata.resourceVersion, third.revision);
    assert.deepEqual(unchanged.metadata.labels, { moved: 'third' });
    third.release();
    await settle();
    // A dry run answers from storage, never from the cache's state.
    const fourth = await behindTheCache({ moved: 'fourth' });
    const dry = await store.guaranteedUpdate(
      'default',
      'a',
      (p) => {
        p.metadata.labels = { ...p.metadata.labels, dry: 'yes' };
        return p;
      },
      { dryRun: true },
    );
    assert.deepEqual(dry.metadata.labels, { moved: 'fourth', dry: 'yes' });
    fourth.release();
  });

  it('does not try again from storage after a write whose outcome is unknown', async () => {
    const { store, storage, settle } = await decodingPodStore();
    await store.create('default', { ...pod, metadata: { name: 'a' } });
    await settle();
    // The cache hands out a's state; the write then fails as a lost connection would, after reaching storage.
    const update = storage.update.bind(storage);
    storage.update = async (key, value, expected) => {
      await update(key, value, expected);
      throw new StorageError('Unavailable', 'connection lost');
    };
    let tries = 0;
    await assert.rejects(
      store.guaranteedUpdate('default', 'a', (p) => {
        tries++;
        p.metadata.labels = { n: String(tries) };
        return p;
      }),
      (err: unknown) => err instanceof StatusError && err.code === 500,
    );
    assert.equal(tries, 1, 'the update was not applied a second time on top of its own write');
  });
});

describe('GenericStore generation', () => {
  it('keeps the stored generation of a resource that does not track one, whatever the request says', async () => {
    const storage = new MemoryStore();
    const { def } = storageclasses;
    const cacher = new Cacher(storage, `${def.storagePrefix}/`, decodeFromStorage, silentLogger);
    const store = new GenericStore(def, storage, cacher, {});
    const created = await store.create('', { metadata: { name: 'fast', generation: 3 }, provisioner: 'a.io/x' });
    assert.equal(created.metadata.generation, undefined);
    const { object } = await store.update('', 'fast', {
      ...created,
      metadata: { ...created.metadata, generation: 7, labels: { a: 'b' } },
    });
    assert.equal(object.metadata.generation, undefined);
    assert.deepEqual(object.metadata.labels, { a: 'b' });
    cacher.stop();
  });
});
