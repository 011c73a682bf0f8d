import { after, before, describe, it } from 'node:test';
import assert from '../../testing/assert.js';
import { EtcdCluster, etcdSkip } from '../../testing/etcd.js';
import { WatchRecorder } from '../../testing/storage-conformance.js';
import { isStorageError } from '../types.js';
import { EtcdStore } from './store.js';

const skip = etcdSkip();

describe('etcd backend: losing the leader of a 3-member cluster', { skip }, () => {
  let cluster: EtcdCluster;
  before(async () => {
    cluster = await EtcdCluster.start(3);
  });
  after(async () => {
    await cluster?.stop();
  });

  it('keeps writing after the leader is killed, and loses no acknowledged write or watch event', async () => {
    const store = new EtcdStore({ servers: cluster.clientUrls, requestTimeoutMs: 3_000 });
    const start = await store.currentRevision();
    const rec = new WatchRecorder();
    const watch = store.watch('/registry/failover/', start, rec.listener);

    const acked = new Map<string, number>();
    let killedAt = 0;
    let ackedAfterKill = 0;
    let stop = false;
    let n = 0;
    const writer = async () => {
      while (!stop) {
        const key = `/registry/failover/k${n++}`;
        try {
          const { revision } = await store.create(key, `v-${key}`);
          acked.set(key, revision);
          if (killedAt) ackedAfterKill++;
        } catch (err) {
          // While a new leader is elected a write may fail or time out; its outcome is unknown, so it is not counted.
          if (!isStorageError(err)) throw err;
          await new Promise((r) => setTimeout(r, 20));
        }
      }
    };
    const writers = Array.from({ length: 4 }, writer);
    while (acked.size < 100) await new Promise((r) => setTimeout(r, 10));
    const leader = await cluster.leader();
    await cluster.kill(leader);
    killedAt = Date.now();
    const deadline = Date.now() + 20_000;
    while (ackedAfterKill < 200 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    stop = true;
    await Promise.all(writers);
    assert.ok(ackedAfterKill >= 200, `writes continue after the leader died (${ackedAfterKill} acknowledged)`);

    const newLeader = await cluster.leader();
    assert.notEqual(newLeader.name, leader.name);
    for (const [key, revision] of acked) {
      const kv = await store.get(key);
      assert.ok(kv, `acknowledged ${key} is missing`);
      assert.equal(kv.modRevision, revision);
    }
    // The watch reconnected as needed and saw each acknowledged create exactly once, in order.
    await rec.waitForEvents(acked.size, 20_000);
    const seen = new Map<string, number>();
    for (const e of rec.events) {
      assert.ok(!seen.has(e.key), `${e.key} delivered twice`);
      seen.set(e.key, e.revision);
    }
    for (let i = 1; i < rec.events.length; i++) {
      assert.ok((rec.events[i]?.revision ?? 0) > (rec.events[i - 1]?.revision ?? 0), 'events in revision order');
    }
    for (const [key, revision] of acked) assert.equal(seen.get(key), revision, `watch saw ${key}`);
    watch.close();
    await store.close();
  });
});
