import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import assert from '../../src/testing/assert.js';
import { EtcdCluster, etcdSkip } from '../../src/testing/etcd.js';
import { startWheelhouse, type WheelhouseProcess } from '../../src/testing/wheelhouse-process.js';

const run = promisify(execFile);
const skip = etcdSkip();

describe('kube-apiserver on a real etcd cluster', { skip }, () => {
  const root = mkdtempSync(join(tmpdir(), 'wheelhouse-etcd-e2e-'));
  const dataDir = join(root, 'data');
  let etcd: EtcdCluster;
  const servers: WheelhouseProcess[] = [];

  const apiserver = async () => {
    const certs = etcd.certs;
    assert.ok(certs);
    const server = await startWheelhouse('apiserver', [
      '--bind-address',
      '127.0.0.1',
      '--data-dir',
      dataDir,
      `--etcd-servers=${etcd.clientUrls.join(',')}`,
      `--etcd-cafile=${certs.caFile}`,
      `--etcd-certfile=${certs.clientCertFile}`,
      `--etcd-keyfile=${certs.clientKeyFile}`,
    ]);
    servers.push(server);
    return server;
  };

  /** kubectl against one apiserver: the shared admin credentials, that server's URL, its own cache dir. */
  const kubectl = async (server: WheelhouseProcess, ...args: string[]) => {
    const port = new URL(server.url()).port;
    const { stdout } = await run('kubectl', [
      '--kubeconfig',
      join(dataDir, 'kubeconfig'),
      '--server',
      server.url(),
      '--cache-dir',
      join(root, `kcache-${port}`),
      ...args,
    ]);
    return stdout;
  };

  before(async () => {
    etcd = await EtcdCluster.start(3, { tls: true });
  });
  after(async () => {
    for (const s of servers) if (s.child.exitCode === null) await s.stop();
    await etcd?.stop();
    rmSync(root, { recursive: true, force: true });
  });

  it('two apiservers over one 3-member etcd serve the same objects, and a restart keeps them', async () => {
    const a = await apiserver();
    const b = await apiserver();
    assert.match(a.out(), /storage: etcd/);
    const manifest = join(root, 'app.yaml');
    writeFileSync(
      manifest,
      [
        'apiVersion: v1',
        'kind: ConfigMap',
        'metadata: {name: settings, namespace: default}',
        'data: {mode: fast}',
        '---',
        'apiVersion: apps/v1',
        'kind: Deployment',
        'metadata: {name: web, namespace: default}',
        'spec:',
        '  replicas: 2',
        '  selector: {matchLabels: {app: web}}',
        '  template:',
        '    metadata: {labels: {app: web}}',
        '    spec: {containers: [{name: web, image: nginx}]}',
        '',
      ].join('\n'),
    );
    assert.match(
      await kubectl(a, 'apply', '-f', manifest),
      /configmap\/settings created\ndeployment.apps\/web created/,
    );
    // The other apiserver sees the same objects at the same resourceVersions.
    const viaA = JSON.parse(await kubectl(a, 'get', 'configmap', 'settings', '-o', 'json'));
    const viaB = JSON.parse(await kubectl(b, 'get', 'configmap', 'settings', '-o', 'json'));
    assert.equal(viaB.metadata.resourceVersion, viaA.metadata.resourceVersion);
    assert.equal(viaB.metadata.uid, viaA.metadata.uid);
    assert.match(
      await kubectl(b, 'apply', '-f', manifest),
      /configmap\/settings unchanged\ndeployment.apps\/web unchanged/,
    );

    // A change written through one apiserver reaches a watch served by the other's watch cache.
    await kubectl(a, 'patch', 'configmap', 'settings', '--type', 'merge', '-p', '{"data":{"mode":"slow"}}');
    const events = await kubectl(
      b,
      'get',
      '--raw',
      `/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=${viaA.metadata.resourceVersion}&timeoutSeconds=2`,
    );
    const modified = events
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line))
      .find((e) => e.type === 'MODIFIED' && e.object.metadata.name === 'settings');
    assert.equal(modified?.object.data.mode, 'slow');

    // A write through B with A's stale resourceVersion is refused as upstream refuses it.
    const stale = { ...viaA, data: { mode: 'stale' } };
    const stalePath = join(root, 'stale.json');
    writeFileSync(stalePath, JSON.stringify(stale));
    await assert.rejects(kubectl(b, 'replace', '-f', stalePath), (err: { stderr: string }) => {
      assert.match(
        err.stderr,
        /Operation cannot be fulfilled on configmaps "settings": the object has been modified; please apply your changes to the latest version and try again/,
      );
      return true;
    });

    // Both stop; a new apiserver over the same etcd finds everything as it was.
    const current = JSON.parse(await kubectl(b, 'get', 'deployment', 'web', '-o', 'json'));
    assert.equal(await a.stop(), 0);
    assert.equal(await b.stop(), 0);
    const c = await apiserver();
    const again = JSON.parse(await kubectl(c, 'get', 'deployment', 'web', '-o', 'json'));
    assert.equal(again.metadata.resourceVersion, current.metadata.resourceVersion);
    assert.equal(again.spec.replicas, 2);
    assert.equal(JSON.parse(await kubectl(c, 'get', 'configmap', 'settings', '-o', 'json')).data.mode, 'slow');
  });
});
