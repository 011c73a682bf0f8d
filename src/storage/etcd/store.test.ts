import { after, before } from 'node:test';
import { EtcdCluster, etcdSkip } from '../../testing/etcd.js';
import { runStorageConformance } from '../../testing/storage-conformance.js';
import { EtcdStore } from './store.js';

const skip = etcdSkip();

for (const size of [1, 3]) {
  let cluster: EtcdCluster | undefined;
  before(async () => {
    if (!skip) cluster = await EtcdCluster.start(size);
  });
  after(async () => {
    await cluster?.stop();
  });
  runStorageConformance({
    name: `etcd (${size === 1 ? 'single member' : `${size}-member cluster`})`,
    skip,
    newStore: async () => ({ store: new EtcdStore({ servers: cluster?.clientUrls ?? [] }) }),
  });
}
