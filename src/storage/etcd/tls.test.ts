import { after, before, describe, it } from 'node:test';
import assert from '../../testing/assert.js';
import { EtcdCluster, etcdSkip } from '../../testing/etcd.js';
import { describeEvents, expectStorageError, WatchRecorder } from '../../testing/storage-conformance.js';
import { EtcdStore } from './store.js';

const skip = etcdSkip();

describe('etcd backend over TLS with client certificates (--etcd-cafile, --etcd-certfile, --etcd-keyfile)', {
  skip,
}, () => {
  let cluster: EtcdCluster;
  before(async () => {
    cluster = await EtcdCluster.start(1, { tls: true });
  });
  after(async () => {
    await cluster?.stop();
  });

  it('reads, writes and watches with the client certificate', async () => {
    const certs = cluster.certs!;
    const store = new EtcdStore({
      servers: cluster.clientUrls,
      caFile: certs.caFile,
      certFile: certs.clientCertFile,
      keyFile: certs.clientKeyFile,
    });
    assert.ok(cluster.clientUrls[0]?.startsWith('https://'));
    const start = await store.currentRevision();
    const rec = new WatchRecorder();
    const w = store.watch('/registry/tls/', start, rec.listener);
    const r = await store.create('/registry/tls/a', 'secret');
    assert.equal((await store.get('/registry/tls/a'))?.modRevision, r.revision);
    assert.deepEqual(describeEvents(await rec.waitForEvents(1)), ['create /registry/tls/a=secret']);
    w.close();
    await store.close();
  });

  it('fails with Unavailable, not a crash, without a client certificate', async () => {
    const store = new EtcdStore({
      servers: cluster.clientUrls,
      caFile: cluster.certs!.caFile,
      requestTimeoutMs: 2_000,
    });
    await expectStorageError(store.get('/registry/tls/a'), 'Unavailable');
    await store.close();
  });
});
