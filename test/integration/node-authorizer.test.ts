/**
 * --authorization-mode=Node,RBAC with NodeRestriction (on by default): a kubelet's identity, system:node:node-1 in
 * system:nodes (impersonated by the admin here), reads what its pods use once they are bound to it, its own Node
 * and Lease, and is refused the rest with upstream's reasons.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type ControlPlane, startControlPlane } from '../../src/index.js';
import { type ApiResponse, apiRequest } from '../../src/testing/api-client.js';
import assert from '../../src/testing/assert.js';
import { eventually } from '../../src/testing/controllers.js';

const asNode = { 'Impersonate-User': 'system:node:node-1', 'Impersonate-Group': 'system:nodes' };

describe('Node authorizer and NodeRestriction', () => {
  let cp: ControlPlane;
  const admin = async (method: string, path: string, body?: unknown): Promise<ApiResponse> => {
    const res = await apiRequest(cp, method, path, body === undefined ? {} : { body });
    assert.ok(res.status < 300, `${method} ${path}: ${res.status} ${res.text}`);
    return res;
  };
  const node = (method: string, path: string, body?: unknown, contentType?: string) =>
    apiRequest(cp, method, path, {
      headers: asNode,
      ...(body === undefined ? {} : { body }),
      ...(contentType ? { contentType } : {}),
    });

  before(async () => {
    cp = await startControlPlane({ authorization: { modes: ['Node', 'RBAC'] } });
    for (const name of ['node-1', 'node-2']) await admin('POST', '/api/v1/nodes', { metadata: { name } });
    await admin('POST', '/api/v1/namespaces/default/secrets', {
      metadata: { name: 'db-pass' },
      stringData: { p: 'x' },
    });
    await admin('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'settings' }, data: { a: 'b' } });
  });
  after(async () => {
    await cp?.stop();
  });

  it('reads its own Node, not another, and writes only its own', async () => {
    assert.equal((await node('GET', '/api/v1/nodes/node-1')).status, 200);
    const other = await node('GET', '/api/v1/nodes/node-2');
    assert.equal(other.status, 403);
    assert.equal(
      other.body.message,
      'nodes "node-2" is forbidden: User "system:node:node-1" cannot get resource "nodes" in API group "" at the cluster scope: node \'node-1\' cannot read \'node-2\', only its own Node object',
    );
    const patch = (name: string, body: unknown) =>
      node('PATCH', `/api/v1/nodes/${name}`, body, 'application/merge-patch+json');
    const foreign = await patch('node-2', { metadata: { labels: { a: 'b' } } });
    assert.equal(foreign.status, 403);
    assert.equal(
      foreign.body.message,
      'nodes "node-2" is forbidden: node "node-1" is not allowed to modify node "node-2"',
    );
    assert.equal((await patch('node-1', { metadata: { labels: { 'kubernetes.io/arch': 'arm64' } } })).status, 200);
    const restricted = await patch('node-1', { metadata: { labels: { 'node-restriction.kubernetes.io/pool': 'x' } } });
    assert.equal(restricted.status, 403);
    assert.equal(
      restricted.body.message,
      'nodes "node-1" is forbidden: is not allowed to modify labels: node-restriction.kubernetes.io/pool',
    );
    const taints = await patch('node-1', { spec: { taints: [{ key: 'k', effect: 'NoSchedule' }] } });
    assert.equal(taints.body.message, 'nodes "node-1" is forbidden: node "node-1" is not allowed to modify taints');
  });

  it('reads a secret and configmap once a pod bound to it uses them, and only then', async () => {
    const denied = await node('GET', '/api/v1/namespaces/default/secrets/db-pass');
    assert.equal(denied.status, 403);
    assert.equal(
      denied.body.message,
      'secrets "db-pass" is forbidden: User "system:node:node-1" cannot get resource "secrets" in API group "" in the namespace "default": no relationship found between node \'node-1\' and this object',
    );
    await admin('POST', '/api/v1/namespaces/default/pods', {
      metadata: { name: 'web' },
      spec: {
        nodeName: 'node-1',
        containers: [{ name: 'c', image: 'nginx', envFrom: [{ configMapRef: { name: 'settings' } }] }],
        volumes: [{ name: 's', secret: { secretName: 'db-pass' } }],
      },
    });
    await eventually(async () => {
      assert.equal((await node('GET', '/api/v1/namespaces/default/secrets/db-pass')).status, 200);
    });
    assert.equal((await node('GET', '/api/v1/namespaces/default/configmaps/settings')).status, 200);
    const watchOne = await node('GET', '/api/v1/namespaces/default/secrets?fieldSelector=metadata.name%3Ddb-pass');
    assert.equal(watchOne.status, 200);
    assert.equal((await node('GET', '/api/v1/namespaces/default/secrets')).status, 403);
    // node-2 has no pod using it.
    const node2 = await apiRequest(cp, 'GET', '/api/v1/namespaces/default/secrets/db-pass', {
      headers: { 'Impersonate-User': 'system:node:node-2', 'Impersonate-Group': 'system:nodes' },
    });
    assert.equal(node2.status, 403);
    // Its pods, listed by spec.nodeName; their status; not all pods.
    assert.equal((await node('GET', '/api/v1/pods?fieldSelector=spec.nodeName%3Dnode-1')).status, 200);
    const all = await node('GET', '/api/v1/pods');
    assert.match(all.body.message, /can only list\/watch pods with spec.nodeName field selector$/);
    const status = await node(
      'PATCH',
      '/api/v1/namespaces/default/pods/web/status',
      { status: { phase: 'Running' } },
      'application/merge-patch+json',
    );
    assert.equal(status.status, 200, status.text);
    // The pod goes: so does the access.
    await admin('DELETE', '/api/v1/namespaces/default/pods/web?gracePeriodSeconds=0');
    await eventually(async () => {
      assert.equal((await node('GET', '/api/v1/namespaces/default/secrets/db-pass')).status, 403);
    });
  });

  it("keeps a pod's edges through its status reports, and adds an ephemeral container's references", async () => {
    await admin('POST', '/api/v1/namespaces/default/secrets', {
      metadata: { name: 'debug-token' },
      stringData: { t: 'x' },
    });
    await admin('POST', '/api/v1/namespaces/default/pods', {
      metadata: { name: 'debugged' },
      spec: {
        nodeName: 'node-1',
        containers: [{ name: 'c', image: 'nginx' }],
        volumes: [{ name: 's', secret: { secretName: 'db-pass' } }],
      },
    });
    await eventually(async () => {
      assert.equal((await node('GET', '/api/v1/namespaces/default/secrets/db-pass')).status, 200);
    });
    // Status reports (not even decoded for the graph) leave what the node may read as it was.
    for (const phase of ['Running', 'Succeeded']) {
      const res = await node(
        'PATCH',
        '/api/v1/namespaces/default/pods/debugged/status',
        { status: { phase } },
        'application/merge-patch+json',
      );
      assert.equal(res.status, 200, res.text);
    }
    assert.equal((await node('GET', '/api/v1/namespaces/default/secrets/db-pass')).status, 200);
    assert.equal((await node('GET', '/api/v1/namespaces/default/secrets/debug-token')).status, 403);
    // An ephemeral container brings a reference of its own: the node may read that secret from then on.
    const added = await apiRequest(cp, 'PATCH', '/api/v1/namespaces/default/pods/debugged/ephemeralcontainers', {
      body: {
        spec: {
          ephemeralContainers: [{ name: 'debug', image: 'busybox', envFrom: [{ secretRef: { name: 'debug-token' } }] }],
        },
      },
      contentType: 'application/strategic-merge-patch+json',
    });
    assert.equal(added.status, 200, added.text);
    await eventually(async () => {
      assert.equal((await node('GET', '/api/v1/namespaces/default/secrets/debug-token')).status, 200);
    });
    await admin('DELETE', '/api/v1/namespaces/default/pods/debugged?gracePeriodSeconds=0');
  });

  it('writes only its own Lease; creates only mirror pods', async () => {
    const lease = (name: string) =>
      node('POST', '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases', {
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata: { name },
        spec: { holderIdentity: name },
      });
    assert.equal((await lease('node-1')).status, 201);
    const other = await lease('node-2');
    assert.equal(other.status, 403);
    assert.match(other.body.message, /can only access node lease with the same name as the requesting node$/);
    const pod = await node('POST', '/api/v1/namespaces/default/pods', {
      metadata: { name: 'sneaky' },
      spec: { nodeName: 'node-1', containers: [{ name: 'c', image: 'nginx' }] },
    });
    assert.equal(pod.status, 403);
    assert.equal(
      pod.body.message,
      'pods "sneaky" is forbidden: pod does not have "kubernetes.io/config.mirror" annotation, node "node-1" can only create mirror pods',
    );
    // Nothing outside the Node authorizer's set and the system:node rules.
    const deploy = await node('GET', '/apis/apps/v1/deployments');
    assert.equal(deploy.status, 403);
  });
  it('creates, updates and deletes its own CSINode only, and reads the VolumeAttachments of its node only', async () => {
    const csinodes = '/apis/storage.k8s.io/v1/csinodes';
    const driver = { name: 'csi.example.com', nodeID: 'n1' };
    const created = await node('POST', csinodes, { metadata: { name: 'node-1' }, spec: { drivers: [driver] } });
    assert.equal(created.status, 201, created.text);
    const patched = await node(
      'PATCH',
      `${csinodes}/node-1`,
      { spec: { drivers: [driver, { name: 'other.example.com', nodeID: 'n1' }] } },
      'application/merge-patch+json',
    );
    assert.equal(patched.status, 200, patched.text);
    assert.equal(patched.body.spec.drivers.length, 2);
    assert.equal((await node('GET', `${csinodes}/node-1`)).status, 200);
    const foreign = await node('POST', csinodes, { metadata: { name: 'node-2' }, spec: { drivers: [] } });
    assert.equal(foreign.status, 403);
    assert.equal(
      foreign.body.message,
      'csinodes.storage.k8s.io "node-2" is forbidden: can only access CSINode with the same name as the requesting node',
    );
    await admin('POST', csinodes, { metadata: { name: 'node-2' }, spec: { drivers: [] } });
    for (const [method, verb] of [
      ['GET', 'get'],
      ['PUT', 'update'],
      ['DELETE', 'delete'],
    ] as const) {
      const body = method === 'PUT' ? { metadata: { name: 'node-2' }, spec: { drivers: [] } } : undefined;
      const res = await node(method, `${csinodes}/node-2`, body);
      assert.equal(res.status, 403, `${method}: ${res.text}`);
      assert.equal(
        res.body.message,
        `csinodes.storage.k8s.io "node-2" is forbidden: User "system:node:node-1" cannot ${verb} resource "csinodes" in API group "storage.k8s.io" at the cluster scope: can only access CSINode with the same name as the requesting node`,
      );
    }
    const list = await node('GET', csinodes);
    assert.equal(list.status, 403);
    assert.match(list.body.message, /: can only get, create, update, patch, or delete a CSINode$/);
    assert.equal((await node('DELETE', `${csinodes}/node-1`)).status, 200);

    const attachment = (name: string, nodeName: string) => ({
      metadata: { name },
      spec: { attacher: 'csi.example.com', nodeName, source: { persistentVolumeName: 'pv-1' } },
    });
    await admin('POST', '/apis/storage.k8s.io/v1/volumeattachments', attachment('va-1', 'node-1'));
    await admin('POST', '/apis/storage.k8s.io/v1/volumeattachments', attachment('va-2', 'node-2'));
    await eventually(async () => {
      assert.equal((await node('GET', '/apis/storage.k8s.io/v1/volumeattachments/va-1')).status, 200);
    });
    const other = await node('GET', '/apis/storage.k8s.io/v1/volumeattachments/va-2');
    assert.equal(other.status, 403);
    assert.equal(
      other.body.message,
      `volumeattachments.storage.k8s.io "va-2" is forbidden: User "system:node:node-1" cannot get resource "volumeattachments" in API group "storage.k8s.io" at the cluster scope: no relationship found between node 'node-1' and this object`,
    );
  });
});

describe('Node authorizer after a restart on stored bound pods', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'node-authz-restart-'));
  after(() => rmSync(dataDir, { recursive: true, force: true }));

  it('starts, and its graph has the pods storage already holds', async () => {
    const start = () => startControlPlane({ storage: 'sqlite', dataDir, authorization: { modes: ['Node', 'RBAC'] } });
    let cp = await start();
    const admin = (method: string, path: string, body: unknown) => apiRequest(cp, method, path, { body });
    try {
      assert.equal((await admin('POST', '/api/v1/nodes', { metadata: { name: 'node-1' } })).status, 201);
      const secret = { metadata: { name: 'db-pass' }, stringData: { p: 'x' } };
      assert.equal((await admin('POST', '/api/v1/namespaces/default/secrets', secret)).status, 201);
      const pod = {
        metadata: { name: 'web' },
        spec: { nodeName: 'node-1', containers: [{ name: 'c', image: 'nginx' }], volumes: [secretVolume] },
      };
      assert.equal((await admin('POST', '/api/v1/namespaces/default/pods', pod)).status, 201);
    } finally {
      await cp.stop();
    }
    cp = await start();
    try {
      const read = () => apiRequest(cp, 'GET', '/api/v1/namespaces/default/secrets/db-pass', { headers: asNode });
      await eventually(async () => assert.equal((await read()).status, 200));
    } finally {
      await cp.stop();
    }
  });
});

const secretVolume = { name: 's', secret: { secretName: 'db-pass' } };
