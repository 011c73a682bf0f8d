import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import assert from '../../src/testing/assert.js';
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
    // HPAs synced every 2s rather than 15s, to keep the autoscaler's test short.
    up = await startWheelhouse('up', ['--data-dir', dataDir, '--horizontal-pod-autoscaler-sync-period=2s']);
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

  it('a Deployment gets a ReplicaSet and pods that run on the nodes; its Service gets an EndpointSlice of their IPs', async () => {
    const manifest = join(root, 'web.yaml');
    writeFileSync(
      manifest,
      [
        'apiVersion: apps/v1',
        'kind: Deployment',
        'metadata: {name: web, namespace: team}',
        'spec:',
        '  replicas: 2',
        '  selector: {matchLabels: {app: web}}',
        '  template:',
        '    metadata: {labels: {app: web}}',
        '    spec:',
        '      terminationGracePeriodSeconds: 1',
        '      containers: [{name: web, image: nginx, ports: [{containerPort: 80}]}]',
        '',
      ].join('\n'),
    );
    await kubectl('apply', '-f', manifest);
    const pods = await eventually(
      async () => {
        const list = JSON.parse(await kubectl('get', 'pods', '-n', 'team', '-l', 'app=web', '-o', 'json'));
        const running = list.items.filter((p: { status: { phase: string } }) => p.status.phase === 'Running');
        assert.equal(running.length, 2, 'two pods Running');
        return running as { metadata: { ownerReferences: { kind: string }[] }; status: { podIP: string } }[];
      },
      { timeoutMs: 30_000 },
    );
    assert.equal(pods[0]?.metadata.ownerReferences[0]?.kind, 'ReplicaSet');
    // Each component's writes are recorded under its upstream program name (its User-Agent's first part).
    const shown = JSON.parse(
      await kubectl('get', 'pods', '-n', 'team', '-l', 'app=web', '-o', 'json', '--show-managed-fields'),
    );
    const managers = (shown.items[0].metadata.managedFields as { manager: string; subresource?: string }[]).map(
      (e) => `${e.manager}${e.subresource ? `/${e.subresource}` : ''}`,
    );
    assert.deepEqual(managers.sort(), ['kube-controller-manager', 'kubelet/status']);
    await eventually(async () => {
      assert.match(await kubectl('get', 'replicasets', '-n', 'team'), /^web-[a-z0-9]+\s+2\s+2\s+2\s+/m);
      assert.match(await kubectl('get', 'deployment', 'web', '-n', 'team'), /^web\s+2\/2\s+2\s+2\s+/m);
    });

    await kubectl('expose', 'deployment', 'web', '--port', '80', '-n', 'team');
    const ips = pods.map((p) => p.status.podIP).sort();
    assert.ok(
      ips.every((ip) => /^10\.244\.\d+\.\d+$/.test(ip)),
      `pod IPs from the nodes' pod CIDRs: ${ips}`,
    );
    // The printed address lists are compared as sets: their order follows the controllers' own order.
    const cells = (line: string | undefined, column: number) => (line ?? '').trim().split(/\s+/)[column] ?? '';
    await eventually(async () => {
      const slices = (await kubectl('get', 'endpointslices', '-n', 'team', '-l', 'kubernetes.io/service-name=web'))
        .trim()
        .split('\n');
      assert.match(slices[0] ?? '', /^NAME\s+ADDRESSTYPE\s+PORTS\s+ENDPOINTS\s+AGE$/);
      assert.match(slices[1] ?? '', /^web-[a-z0-9]+\s+IPv4\s+80\s+/);
      assert.deepEqual(cells(slices[1], 3).split(',').sort(), ips);
    });
    await eventually(async () => {
      const endpoints = (await kubectl('get', 'endpoints', 'web', '-n', 'team')).trim().split('\n');
      assert.deepEqual(cells(endpoints[1], 1).split(',').sort(), ips.map((ip) => `${ip}:80`).sort());
    });
  });

  it('deleting a pod gets it replaced; delete namespace completes with everything in it gone', async () => {
    type Pod = { metadata: { name: string; deletionTimestamp?: string } };
    const before: Pod[] = JSON.parse(await kubectl('get', 'pods', '-n', 'team', '-o', 'json')).items;
    const victim = before[0] as Pod;
    await kubectl('delete', 'pod', victim.metadata.name, '-n', 'team');
    await eventually(async () => {
      const now: Pod[] = JSON.parse(await kubectl('get', 'pods', '-n', 'team', '-o', 'json')).items;
      assert.ok(!now.some((p) => p.metadata.name === victim.metadata.name), 'the deleted pod is gone');
      assert.equal(now.filter((p) => !p.metadata.deletionTimestamp).length, 2, 'replaced');
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
    // The garbage collector, then the pod's graceful termination on its node: slower on a loaded machine.
    await eventually(
      async () => {
        assert.equal((await kubectl('get', 'rs,pods', '-n', 'default', '-l', 'app=gone', '-o', 'name')).trim(), '');
      },
      { timeoutMs: 60_000 },
    );
  });

  it('images that cannot be pulled: ErrImagePull then ImagePullBackOff, and InvalidImageName, as kubectl shows them', async () => {
    await kubectl('run', 'nopull', '--image=nginx:doesnotexist', '--annotations=sim.wheelhouse.dev/image-pull=fail');
    // kubectl run checks the name itself; a manifest reaches the node with it.
    const manifest = join(root, 'badname.yaml');
    writeFileSync(
      manifest,
      'apiVersion: v1\nkind: Pod\nmetadata: {name: badname}\nspec: {containers: [{name: badname, image: NGINX}]}\n',
    );
    await kubectl('apply', '-f', manifest);
    await eventually(async () => {
      const rows = await kubectl('get', 'pods', 'nopull', 'badname', '--no-headers');
      assert.match(rows, /^nopull\s+0\/1\s+ImagePullBackOff\s+0\s/m);
      assert.match(rows, /^badname\s+0\/1\s+InvalidImageName\s+0\s/m);
    });
    const described = await kubectl('describe', 'pod', 'nopull');
    assert.match(described, /State:\s+Waiting\n\s+Reason:\s+ImagePullBackOff/);
    assert.match(described, /Normal\s+Pulling\s+\S+\s+kubelet\s+Pulling image "nginx:doesnotexist"/);
    assert.match(
      described,
      /Warning\s+Failed\s+\S+\s+kubelet\s+Failed to pull image "nginx:doesnotexist": rpc error: code = NotFound desc = failed to pull and unpack image "docker\.io\/library\/nginx:doesnotexist"/,
    );
    assert.match(described, /Warning\s+Failed\s+\S+\s+kubelet\s+Error: ErrImagePull/);
    assert.match(described, /Normal\s+BackOff\s+\S+\s+kubelet\s+Back-off pulling image "nginx:doesnotexist"/);
    await assert.rejects(
      kubectl('logs', 'nopull'),
      /container "nopull" in pod "nopull" is waiting to start: trying and failing to pull image/,
    );
    const badname = JSON.parse(await kubectl('get', 'pod', 'badname', '-o', 'json'));
    assert.equal(
      badname.status.containerStatuses[0].state.waiting.message,
      'Failed to apply default image tag "NGINX": couldn\'t parse image name "NGINX": invalid reference format: repository name (library/NGINX) must be lowercase',
    );
    await kubectl('delete', 'pod', 'nopull', 'badname', '--wait=false');
  });

  it('kubectl autoscale: the HPA scales a Deployment by the CPU its pods use; kubectl top shows it', async () => {
    const manifest = join(root, 'hpa-web.yaml');
    writeFileSync(
      manifest,
      [
        'apiVersion: apps/v1',
        'kind: Deployment',
        'metadata: {name: hpa-web, namespace: default}',
        'spec:',
        '  replicas: 1',
        '  selector: {matchLabels: {app: hpa-web}}',
        '  template:',
        '    metadata:',
        '      labels: {app: hpa-web}',
        '      annotations: {sim.wheelhouse.dev/cpu-usage: 200m, sim.wheelhouse.dev/memory-usage: 20Mi}',
        '    spec:',
        '      containers:',
        '      - {name: web, image: nginx, resources: {requests: {cpu: 100m}}}',
        '',
      ].join('\n'),
    );
    await kubectl('apply', '-f', manifest);
    await kubectl('autoscale', 'deployment', 'hpa-web', '--min=2', '--max=3', '--cpu-percent=50', '-n', 'default');
    // First to its minimum, then (once the pods have been ready for a metrics window) to its maximum on CPU.
    await eventually(
      async () => {
        const described = await kubectl('describe', 'hpa', 'hpa-web', '-n', 'default');
        assert.match(
          described,
          /SuccessfulRescale\s+\S+\s+horizontal-pod-autoscaler\s+New size: 2; reason: Current number of replicas below Spec\.MinReplicas/,
        );
        assert.match(described, /New size: 3; reason: cpu resource utilization \(percentage of request\) above target/);
        assert.match(described, /ScalingLimited\s+True\s+TooManyReplicas/);
        const table = (await kubectl('get', 'hpa', 'hpa-web', '-n', 'default')).trim().split('\n');
        assert.match(table[1] ?? '', /^hpa-web\s+Deployment\/hpa-web\s+cpu: 200%\/50%\s+2\s+3\s+3\s/);
      },
      { timeoutMs: 90_000, intervalMs: 1000 },
    );
    const top = (await kubectl('top', 'pod', '-n', 'default', '-l', 'app=hpa-web', '--no-headers')).trim().split('\n');
    assert.ok(top.length >= 2, top.join('\n'));
    for (const line of top) assert.match(line.trim(), /^hpa-web-\S+\s+200m\s+20Mi$/);
    const nodes = await kubectl('top', 'node', '--no-headers');
    assert.match(nodes, /^node-\d+\s+\d+m\s+\d+%\s+\d+Mi\s+\d+%/m);
    // Whoever may view the namespace may see what its pods use: the metrics reader role aggregates into view.
    await kubectl('create', 'rolebinding', 'top-viewer', '--clusterrole=view', '--user=viewer', '-n', 'default');
    await eventually(async () => {
      const seen = await kubectl('top', 'pod', '-n', 'default', '-l', 'app=hpa-web', '--no-headers', '--as=viewer');
      assert.match(seen.trim(), /^hpa-web-\S+\s+200m\s+20Mi$/m);
    });
    await assert.rejects(
      kubectl('top', 'node', '--as=viewer'),
      /cannot list resource "nodes" in API group "metrics\.k8s\.io" at the cluster scope/,
    );
  });
});
