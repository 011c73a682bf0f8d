import { after, before, describe, it } from 'node:test';
import { type ControlPlane, startControlPlane } from '../../src/index.js';
import { apiRequest, kubectl } from '../../src/testing/api-client.js';
import assert from '../../src/testing/assert.js';

const NS = 'shop';

async function post(cp: ControlPlane, path: string, body: unknown) {
  const res = await apiRequest(cp, 'POST', path, { body });
  assert.equal(res.status, 201, res.text);
  return res.body;
}

/** A pod bound to a node through pods/binding (as the scheduler would), reported Running and Ready. */
async function boundPod(
  cp: ControlPlane,
  name: string,
  node: string,
  opts: { owner?: Record<string, unknown>; labels?: Record<string, string>; emptyDir?: boolean } = {},
) {
  const pod = await post(cp, `/api/v1/namespaces/${NS}/pods`, {
    metadata: {
      name,
      labels: opts.labels ?? {},
      ...(opts.owner ? { ownerReferences: [{ ...opts.owner, controller: true, blockOwnerDeletion: true }] } : {}),
    },
    spec: {
      containers: [{ name: 'c', image: 'nginx' }],
      ...(opts.emptyDir ? { volumes: [{ name: 'scratch', emptyDir: {} }] } : {}),
    },
  });
  const bound = await apiRequest(cp, 'POST', `/api/v1/namespaces/${NS}/pods/${name}/binding`, {
    body: { apiVersion: 'v1', kind: 'Binding', metadata: { name }, target: { kind: 'Node', name: node } },
  });
  assert.equal(bound.status, 201, bound.text);
  const current = (await apiRequest(cp, 'GET', `/api/v1/namespaces/${NS}/pods/${name}`)).body;
  const status = await apiRequest(cp, 'PUT', `/api/v1/namespaces/${NS}/pods/${name}/status`, {
    body: {
      ...current,
      status: { ...current.status, phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] },
    },
  });
  assert.equal(status.status, 200, status.text);
  return pod;
}

async function podNames(cp: ControlPlane): Promise<string[]> {
  const list = (await apiRequest(cp, 'GET', `/api/v1/namespaces/${NS}/pods`)).body;
  return list.items.map((p: { metadata: { name: string } }) => p.metadata.name).sort();
}

describe('kubectl drain against wheelhouse (pods/eviction)', () => {
  let cp: ControlPlane;
  before(async () => {
    cp = await startControlPlane();
    await post(cp, '/api/v1/namespaces', { metadata: { name: NS } });
    for (const node of ['node-x', 'node-y']) await post(cp, '/api/v1/nodes', { metadata: { name: node } });
    const rs = {
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      name: 'web-5d8f',
      uid: 'b6a8d0de-0000-4000-8000-000000000001',
    };
    const ds = await post(cp, `/apis/apps/v1/namespaces/${NS}/daemonsets`, {
      metadata: { name: 'agent' },
      spec: {
        selector: { matchLabels: { app: 'agent' } },
        template: { metadata: { labels: { app: 'agent' } }, spec: { containers: [{ name: 'a', image: 'agent' }] } },
      },
    });
    await boundPod(cp, 'web-1', 'node-x', { owner: rs, labels: { app: 'web' } });
    await boundPod(cp, 'web-2', 'node-y', { owner: rs, labels: { app: 'web' } });
    await boundPod(cp, 'cache-1', 'node-x', { owner: rs, emptyDir: true });
    await boundPod(cp, 'agent-x', 'node-x', {
      owner: { apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'agent', uid: ds.metadata.uid },
      labels: { app: 'agent' },
    });
    // The budget lets one web pod go; its status is written here as the disruption controller would.
    const pdb = await post(cp, `/apis/policy/v1/namespaces/${NS}/poddisruptionbudgets`, {
      metadata: { name: 'web' },
      spec: { minAvailable: 1, selector: { matchLabels: { app: 'web' } } },
    });
    const put = await apiRequest(cp, 'PUT', `/apis/policy/v1/namespaces/${NS}/poddisruptionbudgets/web/status`, {
      body: {
        ...pdb,
        status: { observedGeneration: 1, disruptionsAllowed: 1, currentHealthy: 2, desiredHealthy: 1, expectedPods: 2 },
      },
    });
    assert.equal(put.status, 200, put.text);
  });
  after(async () => {
    await cp?.stop();
  });

  it('cordons the node and evicts its pods, leaving DaemonSet pods and other nodes alone', async () => {
    // No kubelet finishes graceful deletions yet: pods bound to a node would keep their deletionTimestamp for
    // their 30 s grace period while drain waits for them to be gone, so drain asks for --grace-period=0.
    const res = await kubectl(cp, [
      'drain',
      'node-x',
      '--ignore-daemonsets',
      '--delete-emptydir-data',
      '--grace-period=0',
      '--timeout=60s',
    ]);
    assert.equal(res.code, 0, `${res.stdout}\n${res.stderr}`);
    assert.match(res.stdout, /^node\/node-x cordoned$/m);
    assert.match(res.stdout, /evicting pod shop\/web-1/);
    assert.match(res.stdout, /^pod\/web-1 evicted$/m);
    assert.match(res.stdout, /^pod\/cache-1 evicted$/m);
    assert.match(res.stdout, /^node\/node-x drained$/m);
    assert.match(res.stderr, /ignoring DaemonSet-managed Pods: shop\/agent-x/);
    const node = (await apiRequest(cp, 'GET', '/api/v1/nodes/node-x')).body;
    assert.equal(node.spec.unschedulable, true);
    assert.deepEqual(await podNames(cp), ['agent-x', 'web-2']);
    const pdb = (await apiRequest(cp, 'GET', `/apis/policy/v1/namespaces/${NS}/poddisruptionbudgets/web`)).body;
    assert.equal(pdb.status.disruptionsAllowed, 0);
    assert.deepEqual(Object.keys(pdb.status.disruptedPods), ['web-1']);
  });

  it('stops at the budget: draining the other node times out while eviction answers 429', async () => {
    const res = await kubectl(cp, ['drain', 'node-y', '--ignore-daemonsets', '--grace-period=0', '--timeout=2s']);
    assert.notEqual(res.code, 0);
    assert.match(
      res.stderr,
      /error when evicting pods\/"web-2" -n "shop" \(will retry after 5s\): Cannot evict pod as it would violate the pod's disruption budget\./,
    );
    assert.deepEqual(await podNames(cp), ['agent-x', 'web-2']);
    const uncordon = await kubectl(cp, ['uncordon', 'node-y']);
    assert.equal(uncordon.code, 0, uncordon.stderr);
    assert.match(uncordon.stdout, /^node\/node-y uncordoned$/m);
  });
});
