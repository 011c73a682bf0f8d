import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import {
  CoreV1Api,
  KubeConfig,
  makeInformer,
  RbacAuthorizationV1Api,
  type V1ConfigMap,
  Watch,
} from '@kubernetes/client-node';
import { type ControlPlane, startControlPlane } from '../../src/index.js';
import { SqliteStore } from '../../src/storage/sqlite/store.js';
import assert from '../../src/testing/assert.js';
import { freePort } from '../../src/testing/etcd.js';

const until = async (cond: () => boolean, what: string, timeoutMs = 15_000) => {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
};

describe('@kubernetes/client-node against wheelhouse', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'wheelhouse-client-node-'));
  let cp: ControlPlane | undefined;
  after(async () => {
    await cp?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('lists, watches, keeps an informer through restarts and a forced 410, and resumes a watch after a restart', async () => {
    const port = await freePort();
    const start = () => startControlPlane({ storage: 'sqlite', dataDir, securePort: port });
    cp = await start();
    const kc = new KubeConfig();
    kc.loadFromFile(cp.kubeconfig.path);
    const core = kc.makeApiClient(CoreV1Api);
    await core.createNamespacedConfigMap({
      namespace: 'default',
      body: { metadata: { name: 'first' }, data: { a: '1' } },
    });
    const list = await core.listNamespacedConfigMap({ namespace: 'default' });
    assert.deepEqual(
      list.items.map((c) => c.metadata?.name),
      ['first'],
    );

    // A plain watch from the list's resourceVersion sees what comes after it.
    const seen: string[] = [];
    const watch = new Watch(kc);
    const req = await watch.watch(
      '/api/v1/namespaces/default/configmaps',
      { resourceVersion: list.metadata?.resourceVersion },
      (type, obj: V1ConfigMap) => seen.push(`${type} ${obj.metadata?.name}`),
      () => {},
    );
    await core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'second' } } });
    await until(() => seen.includes('ADDED second'), 'the watch to see second');
    req.abort();

    // An informer, restarted on errors as client-node's documentation advises.
    const informer = makeInformer(kc, '/api/v1/namespaces/default/configmaps', () =>
      core.listNamespacedConfigMap({ namespace: 'default' }),
    );
    const names = () =>
      informer
        .list('default')
        .map((c) => c.metadata?.name)
        .sort();
    let stopped = false;
    let restart: NodeJS.Timeout | undefined;
    informer.on('error', () => {
      if (!stopped) restart = setTimeout(() => void informer.start().catch(() => {}), 200);
    });
    await informer.start();
    await until(() => names().join() === 'first,second', 'the informer to sync');

    // Restart with nothing written meanwhile: a watch resumes from a resourceVersion taken before the restart.
    const before = (await core.listNamespacedConfigMap({ namespace: 'default' })).metadata?.resourceVersion;
    await cp.stop();
    cp = await start();
    const resumed: string[] = [];
    const req2 = await new Watch(kc).watch(
      '/api/v1/namespaces/default/configmaps',
      { resourceVersion: before },
      (type, obj: V1ConfigMap) => resumed.push(`${type} ${obj.metadata?.name}`),
      () => {},
    );
    await core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'third' } } });
    await until(() => resumed.includes('ADDED third'), 'the resumed watch to see third');
    assert.deepEqual(resumed, ['ADDED third'], 'no event before the resumed resourceVersion is repeated');
    req2.abort();
    await until(() => names().join() === 'first,second,third', 'the informer to reconnect and see third');

    // Restart with a write made while the server was down: the informer's resourceVersion is then older than the
    // new watch cache's window, it gets 410 Gone, relists, and sees the write.
    await cp.stop();
    const store = new SqliteStore({ path: join(dataDir, 'state.db') });
    const { revision } = await store.create(
      '/registry/configmaps/default/offline',
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: {
          name: 'offline',
          namespace: 'default',
          uid: 'u-offline',
          creationTimestamp: '2026-01-01T00:00:00Z',
        },
      }),
    );
    await store.close();
    cp = await start();
    await until(() => names().includes('offline'), 'the informer to relist after 410 Gone');
    assert.deepEqual(names(), ['first', 'offline', 'second', 'third']);
    assert.equal(informer.get('offline', 'default')?.metadata?.resourceVersion, String(revision));
    stopped = true;
    clearTimeout(restart);
    await informer.stop();
  });

  it('reads objects whose names it percent-escapes (system:basic-user is sent as system%3Abasic-user)', async () => {
    const own = await startControlPlane();
    try {
      const kc = new KubeConfig();
      kc.loadFromFile(own.kubeconfig.path);
      const rbac = kc.makeApiClient(RbacAuthorizationV1Api);
      const role = await rbac.readClusterRole({ name: 'system:basic-user' });
      assert.equal(role.metadata?.name, 'system:basic-user');
      const binding = await rbac.readClusterRoleBinding({ name: 'system:basic-user' });
      assert.equal(binding.roleRef.name, 'system:basic-user');
      await rbac.patchClusterRole({
        name: 'system:basic-user',
        body: [{ op: 'add', path: '/metadata/labels/escaped', value: 'yes' }],
      });
      assert.equal((await rbac.readClusterRole({ name: 'system:basic-user' })).metadata?.labels?.escaped, 'yes');
    } finally {
      await own.stop();
    }
  });
});
