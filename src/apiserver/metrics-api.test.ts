import { after, before, describe, it } from 'node:test';
import { type ControlPlane, startControlPlane } from '../index.js';
import { apiRequest } from '../testing/api-client.js';
import assert from '../testing/assert.js';

const BASE = '/apis/metrics.k8s.io/v1beta1';

describe('the resource metrics API (metrics.k8s.io/v1beta1)', () => {
  let cp: ControlPlane;

  async function pod(name: string, node: string, annotations: Record<string, string>, phase = 'Running') {
    const created = await cp.client.pods('default').create({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name, labels: { app: name.split('-')[0] ?? '' }, annotations },
      spec: {
        nodeName: node,
        containers: [{ name: 'a', image: 'nginx' }],
        // A sidecar (a restartable init container) runs beside it; a plain init container has ended.
        initContainers: [
          { name: 'b', image: 'nginx', restartPolicy: 'Always' },
          { name: 'init', image: 'busybox' },
        ],
      },
    });
    created.status = { phase };
    await cp.client.pods('default').updateStatus(created);
  }

  before(async () => {
    cp = await startControlPlane({ storage: 'memory' });
    for (const [name, ready] of [
      ['n1', 'True'],
      ['n2', 'Unknown'],
    ]) {
      const node = await cp.client
        .nodes()
        .create({ apiVersion: 'v1', kind: 'Node', metadata: { name, labels: { zone: 'a' } } });
      node.status = { conditions: [{ type: 'Ready', status: ready }] };
      await cp.client.nodes().updateStatus(node);
    }
    const usage = { 'sim.wheelhouse.dev/cpu-usage': '250m', 'sim.wheelhouse.dev/memory-usage': '64Mi' };
    await pod('web-1', 'n1', usage);
    await pod('web-2', 'n1', {});
    await pod('db-1', 'n1', usage, 'Pending');
  });
  after(async () => {
    await cp?.stop();
  });

  it('lists running pods with each container (sidecars too) using the pod’s declared usage', async () => {
    const res = await apiRequest(cp, 'GET', `${BASE}/namespaces/default/pods?labelSelector=app%3Dweb`);
    assert.equal(res.status, 200);
    assert.equal(res.body.kind, 'PodMetricsList');
    assert.deepEqual(
      res.body.items.map((m: { metadata: { name: string }; window: string; containers: unknown[] }) => [
        m.metadata.name,
        m.window,
        m.containers,
      ]),
      [
        [
          'web-1',
          '15s',
          [
            { name: 'a', usage: { cpu: '250m', memory: '64Mi' } },
            { name: 'b', usage: { cpu: '250m', memory: '64Mi' } },
          ],
        ],
        [
          'web-2',
          '15s',
          [
            { name: 'a', usage: { cpu: '0', memory: '0' } },
            { name: 'b', usage: { cpu: '0', memory: '0' } },
          ],
        ],
      ],
    );
    const none = await apiRequest(cp, 'GET', `${BASE}/namespaces/default/pods?labelSelector=app%3Ddb`);
    assert.deepEqual(none.body.items, []);
  });

  it('sums a node’s running pods; answers get by name, NotFound, and refuses other verbs', async () => {
    const node = await apiRequest(cp, 'GET', `${BASE}/nodes/n1`);
    assert.equal(node.status, 200);
    assert.deepEqual([node.body.kind, node.body.usage], ['NodeMetrics', { cpu: '500m', memory: '128Mi' }]);
    // A pod without metrics (not running) is named namespace/name; a pod that does not exist is the pods' NotFound.
    const pending = await apiRequest(cp, 'GET', `${BASE}/namespaces/default/pods/db-1`);
    assert.deepEqual([pending.status, pending.body.message], [404, 'pods.metrics.k8s.io "default/db-1" not found']);
    const missing = await apiRequest(cp, 'GET', `${BASE}/namespaces/default/pods/nope`);
    assert.deepEqual([missing.status, missing.body.message], [404, 'pods "nope" not found']);
    // A node whose kubelet is not heard from (not Ready) has no metrics.
    const silent = await apiRequest(cp, 'GET', `${BASE}/nodes/n2`);
    assert.deepEqual([silent.status, silent.body.message], [404, 'nodes.metrics.k8s.io "n2" not found']);
    const nodes = await apiRequest(cp, 'GET', `${BASE}/nodes`);
    assert.deepEqual(
      nodes.body.items.map((n: { metadata: { name: string } }) => n.metadata.name),
      ['n1'],
    );
    const write = await apiRequest(cp, 'DELETE', `${BASE}/namespaces/default/pods/web-1`);
    assert.equal(write.status, 405);
    const bad = await apiRequest(cp, 'GET', `${BASE}/nodes?labelSelector=zone%3D%3D%3D`);
    assert.equal(bad.status, 400);
  });

  it('is listed in discovery', async () => {
    const groups = await apiRequest(cp, 'GET', '/apis');
    assert.ok(groups.body.groups.some((g: { name: string }) => g.name === 'metrics.k8s.io'));
    const resources = await apiRequest(cp, 'GET', BASE);
    assert.deepEqual(
      resources.body.resources.map((r: { name: string; kind: string; namespaced: boolean; verbs: string[] }) => [
        r.name,
        r.kind,
        r.namespaced,
        r.verbs,
      ]),
      [
        ['nodes', 'NodeMetrics', false, ['get', 'list']],
        ['pods', 'PodMetrics', true, ['get', 'list']],
      ],
    );
  });
});
