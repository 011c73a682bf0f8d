import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { eventually } from '../../src/testing/controllers.js';
import { startWheelhouse, type WheelhouseProcess } from '../../src/testing/wheelhouse-process.js';

const run = promisify(execFile);

describe('wheelhouse up runs kube-controller-manager: the real kubectl sees the controllers work', () => {
  const root = mkdtempSync(join(tmpdir(), 'wheelhouse-kcm-e2e-'));
  const dataDir = join(root, 'data');
  let up: WheelhouseProcess;
  const kubectl = async (...args: string[]) =>
    (await run('kubectl', ['--kubeconfig', join(dataDir, 'kubeconfig'), '--cache-dir', join(root, 'kcache'), ...args]))
      .stdout;

  before(async () => {
    up = await startWheelhouse('up', ['--data-dir', dataDir]);
  });
  after(async () => {
    if (up) assert.equal(await up.stop(), 0);
    rmSync(root, { recursive: true, force: true });
  });

  it('says which controllers run, holds the lease, and fills a new namespace', async () => {
    assert.match(
      up.out(),
      /kube-controller-manager: \d+ controllers \(.*deployment-controller.*garbage-collector-controller/,
    );
    const lease = JSON.parse(
      await kubectl('get', 'lease', 'kube-controller-manager', '-n', 'kube-system', '-o', 'json'),
    );
    assert.match(lease.spec.holderIdentity, /_[0-9a-f-]{36}$/);
    await kubectl('create', 'namespace', 'team');
    await eventually(async () => {
      assert.match(
        await kubectl('get', 'serviceaccount', 'default', '-n', 'team', '-o', 'name'),
        /serviceaccount\/default/,
      );
      const ca = JSON.parse(await kubectl('get', 'configmap', 'kube-root-ca.crt', '-n', 'team', '-o', 'json'));
      assert.match(ca.data['ca.crt'], /BEGIN CERTIFICATE/);
    });
  });

  it('a Deployment gets a ReplicaSet and pods; a Service gets an EndpointSlice that follows a ready pod', async () => {
    await kubectl('create', 'deployment', 'web', '--image', 'nginx', '--replicas', '2', '--port', '80', '-n', 'team');
    const pods = await eventually(async () => {
      const list = JSON.parse(await kubectl('get', 'pods', '-n', 'team', '-l', 'app=web', '-o', 'json'));
      assert.equal(list.items.length, 2);
      return list.items as { metadata: { name: string; ownerReferences: { kind: string }[] } }[];
    });
    assert.equal(pods[0]?.metadata.ownerReferences[0]?.kind, 'ReplicaSet');
    assert.match(await kubectl('get', 'replicasets', '-n', 'team'), /^web-[a-z0-9]+\s+2\s+2\s+0\s+/m);

    await kubectl('expose', 'deployment', 'web', '--port', '80', '-n', 'team');
    const first = pods[0]?.metadata.name as string;
    // No scheduler or kubelet yet: the test registers a node, binds the pod to it and reports the pod running and
    // ready, as they would.
    const files = mkdtempSync(join(root, 'objects-'));
    writeFileSync(
      join(files, 'node.json'),
      JSON.stringify({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-1' } }),
    );
    await kubectl('create', '-f', join(files, 'node.json'));
    writeFileSync(
      join(files, 'binding.json'),
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Binding',
        metadata: { name: first },
        target: { kind: 'Node', name: 'node-1' },
      }),
    );
    await kubectl(
      'create',
      '--raw',
      `/api/v1/namespaces/team/pods/${first}/binding`,
      '-f',
      join(files, 'binding.json'),
    );
    await kubectl(
      'patch',
      'pod',
      first,
      '-n',
      'team',
      '--subresource=status',
      '--type=merge',
      '-p',
      JSON.stringify({
        status: {
          phase: 'Running',
          podIP: '10.244.0.7',
          podIPs: [{ ip: '10.244.0.7' }],
          conditions: [{ type: 'Ready', status: 'True' }],
        },
      }),
    );
    await eventually(async () => {
      const slices = await kubectl('get', 'endpointslices', '-n', 'team', '-l', 'kubernetes.io/service-name=web');
      assert.match(slices, /^NAME\s+ADDRESSTYPE\s+PORTS\s+ENDPOINTS\s+AGE$/m);
      assert.match(slices, /^web-[a-z0-9]+\s+IPv4\s+80\s+10\.244\.0\.7\s+/m);
    });
    await eventually(async () => {
      assert.match(await kubectl('get', 'endpoints', 'web', '-n', 'team'), /^web\s+10\.244\.0\.7:80\s+/m);
    });
    await eventually(async () => {
      assert.match(await kubectl('get', 'deployment', 'web', '-n', 'team'), /^web\s+1\/2\s+2\s+1\s+/m);
    });
  });

  it('deleting a pod gets it replaced; delete namespace completes with everything in it gone', async () => {
    type Pod = { metadata: { name: string }; spec: { nodeName?: string } };
    const before: Pod[] = JSON.parse(await kubectl('get', 'pods', '-n', 'team', '-o', 'json')).items;
    // The bound pod has no kubelet to finish its graceful deletion, so it is removed at once, as a user would.
    const bound = before.find((p) => p.spec.nodeName) as Pod;
    await kubectl('delete', 'pod', bound.metadata.name, '-n', 'team', '--grace-period=0', '--force');
    await eventually(async () => {
      const now: Pod[] = JSON.parse(await kubectl('get', 'pods', '-n', 'team', '-o', 'json')).items;
      assert.equal(now.length, 2, 'replaced');
      assert.ok(!now.some((p) => p.metadata.name === bound.metadata.name), 'the deleted pod is gone');
    });
    assert.match(await kubectl('delete', 'namespace', 'team', '--timeout=60s'), /namespace "team" deleted/);
    await assert.rejects(kubectl('get', 'namespace', 'team'), /namespaces "team" not found/);
    const leftovers = JSON.parse(
      await kubectl('get', 'pods,replicasets,endpointslices', '-A', '-o', 'json'),
    ).items.filter((o: { metadata: { namespace: string } }) => o.metadata.namespace === 'team');
    assert.deepEqual(leftovers, []);
  });

  it('kubectl delete --cascade=orphan leaves the ReplicaSet; background deletion removes it', async () => {
    await kubectl('create', 'deployment', 'keep', '--image', 'nginx', '-n', 'default');
    await eventually(async () =>
      assert.match(await kubectl('get', 'rs', '-n', 'default', '-l', 'app=keep', '-o', 'name'), /replicaset/),
    );
    await kubectl('delete', 'deployment', 'keep', '-n', 'default', '--cascade=orphan');
    await eventually(async () => {
      const rs = JSON.parse(await kubectl('get', 'rs', '-n', 'default', '-l', 'app=keep', '-o', 'json')).items;
      assert.equal(rs.length, 1);
      assert.equal(rs[0].metadata.ownerReferences, undefined);
    });
    await kubectl('create', 'deployment', 'gone', '--image', 'nginx', '-n', 'default');
    await eventually(async () =>
      assert.match(await kubectl('get', 'pods', '-n', 'default', '-l', 'app=gone', '-o', 'name'), /pod/),
    );
    await kubectl('delete', 'deployment', 'gone', '-n', 'default');
    await eventually(async () => {
      assert.equal((await kubectl('get', 'rs,pods', '-n', 'default', '-l', 'app=gone', '-o', 'name')).trim(), '');
    });
  });
});
