/**
 * The simulated kubelets of startControlPlane under --authorization-mode=Node,RBAC (NodeRestriction on by default):
 * each node writes as its own identity, system:node:<name> in system:nodes, and is refused another node's objects
 * with upstream's Node authorizer and NodeRestriction messages; the fleet's shared informers and the volume
 * provisioner act as their add-on users with only their ClusterRoles. A Deployment with a Secret and a ConfigMap,
 * exec through the kubelet endpoint, pod logs, a claim of the default class and a node stopped and started again
 * all work without one Forbidden answer to them, as the audit log shows.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { WebSocket } from 'ws';
import type { Policy } from '../../src/apiserver/audit/policy.js';
import { ApiError, type ControlPlane, type KubeObject, startControlPlane } from '../../src/index.js';
import { SIM_KUBELETS_USER, SIM_LOCAL_PROVISIONER_USER } from '../../src/kubelet/identities.js';
import { ensureSimNodesRbac, SIM_NODES_BINDING } from '../../src/kubelet/sim-rbac.js';
import assert from '../../src/testing/assert.js';
import { eventually } from '../../src/testing/controllers.js';
import { createLogger } from '../../src/util/logger.js';

const NS = 'default';

interface AuditEvent {
  stage: string;
  verb: string;
  user: { username?: string; groups?: string[] };
  objectRef?: { resource?: string; namespace?: string; name?: string; subresource?: string };
  responseStatus?: { code: number; message?: string };
}

const POLICY: Policy = {
  apiVersion: 'audit.k8s.io/v1',
  kind: 'Policy',
  omitStages: ['RequestReceived'],
  rules: [
    { level: 'Metadata', userGroups: ['system:nodes'] },
    { level: 'Metadata', users: [SIM_KUBELETS_USER, SIM_LOCAL_PROVISIONER_USER] },
    { level: 'None' },
  ],
};

/** Runs a command in a container through the kubelet endpoint (as the apiserver's exec proxy does); its stdout. */
function exec(port: number, pod: string, container: string, command: string[]): Promise<string> {
  const query = [...command.map((c) => `command=${encodeURIComponent(c)}`), 'stdout=1', 'stderr=1'].join('&');
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`wss://127.0.0.1:${port}/exec/${NS}/${pod}/${container}?${query}`, ['v5.channel.k8s.io'], {
      rejectUnauthorized: false,
    });
    let stdout = '';
    let stderr = '';
    ws.on('message', (data: Buffer) => {
      if (data[0] === 1) stdout += data.subarray(1).toString('utf8');
      if (data[0] === 2) stderr += data.subarray(1).toString('utf8');
    });
    ws.on('close', () => (stderr ? reject(new Error(stderr)) : resolve(stdout)));
    ws.on('error', reject);
  });
}

describe('simulated kubelets as node identities under Node,RBAC', () => {
  let cp: ControlPlane;
  let dir: string;
  let auditPath: string;
  const lines: string[] = [];
  const audit = (): AuditEvent[] =>
    readFileSync(auditPath, 'utf8')
      .split('\n')
      .filter((l) => l.length > 0)
      .map((l) => JSON.parse(l) as AuditEvent);
  const nodeOf = async (pod: string): Promise<string> => (await cp.client.pods(NS).get(pod)).spec.nodeName;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sim-identities-'));
    auditPath = join(dir, 'audit.log');
    cp = await startControlPlane({
      authorization: { modes: ['Node', 'RBAC'] },
      controllers: true,
      scheduler: true,
      // Leases renewed every second, so that a stopped node shows at once.
      nodes: { nodes: 3, leaseDurationSeconds: 4, nodeStatusUpdateFrequencyMs: 1000 },
      audit: { policy: POLICY, logPath: auditPath },
      logger: createLogger({ component: 'test', write: (line) => lines.push(line) }),
    });
    await cp.client.secrets(NS).create({ metadata: { name: 'app-secret' }, stringData: { password: 's3cret' } });
    await cp.client.configMaps(NS).create({ metadata: { name: 'app-config' }, data: { mode: 'fast' } });
  });
  after(async () => {
    await cp?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('registers every node and its Lease as the node itself', async () => {
    const nodes = await eventually(async () => {
      const list = await cp.client.nodes().list();
      assert.equal(list.items.length, 3);
      for (const node of list.items) {
        const ready = node.status?.conditions?.find((c: { type: string }) => c.type === 'Ready');
        assert.equal(ready?.status, 'True', `${node.metadata.name} is Ready`);
      }
      return list.items;
    });
    const events = audit().filter((e) => e.stage === 'ResponseComplete');
    const writes = (resource: string) =>
      events.filter((e) => e.objectRef?.resource === resource && !['get', 'list', 'watch'].includes(e.verb));
    for (const node of nodes) {
      const user = `system:node:${node.metadata.name}`;
      for (const resource of ['nodes', 'leases']) {
        assert.ok(
          writes(resource).some(
            (e) => e.verb === 'create' && e.user.username === user && e.responseStatus?.code === 201,
          ),
          `${user} created its ${resource}`,
        );
      }
    }
    // Events about a node (Starting, NodeReady, …) are written by that node, though the recorders are pooled.
    const nodeEvents = writes('events');
    for (const node of nodes) {
      assert.ok(nodeEvents.some((e) => e.user.username === `system:node:${node.metadata.name}`));
    }
    assert.ok(nodeEvents.every((e) => e.user.groups?.includes('system:nodes')));
    for (const e of [...writes('nodes'), ...writes('leases')]) {
      // A create names its object in the body; the others name it in the path: the node's own.
      if (e.objectRef?.name) assert.equal(e.user.username, `system:node:${e.objectRef.name}`);
      assert.deepEqual(e.user.groups, ['system:nodes', 'system:authenticated']);
    }
    const lease = await cp.client.leases('kube-node-lease').get('node-2');
    assert.equal(lease.spec.holderIdentity, 'node-2');
  });

  it('runs a Deployment whose pods use a Secret and a ConfigMap; exec reads them as the pod node', async () => {
    await cp.client.deployments(NS).create({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web' },
      spec: {
        replicas: 3,
        selector: { matchLabels: { app: 'web' } },
        template: {
          metadata: { labels: { app: 'web' } },
          spec: {
            containers: [
              {
                name: 'app',
                image: 'nginx:1.27',
                env: [{ name: 'PASSWORD', valueFrom: { secretKeyRef: { name: 'app-secret', key: 'password' } } }],
                envFrom: [{ configMapRef: { name: 'app-config' } }],
                volumeMounts: [
                  { name: 'creds', mountPath: '/etc/creds' },
                  { name: 'config', mountPath: '/etc/config' },
                ],
              },
            ],
            volumes: [
              { name: 'creds', secret: { secretName: 'app-secret' } },
              { name: 'config', configMap: { name: 'app-config' } },
            ],
          },
        },
      },
    });
    const pods = await eventually(
      async () => {
        const list = await cp.client.pods(NS).list({ labelSelector: 'app=web' });
        assert.equal(list.items.length, 3);
        for (const pod of list.items) assert.equal(pod.status?.phase, 'Running', pod.metadata.name);
        return list.items as KubeObject[];
      },
      { timeoutMs: 30_000 },
    );
    const port = cp.nodes?.port as number;
    for (const pod of pods) {
      const out = await exec(port, pod.metadata.name as string, 'app', [
        'sh',
        '-c',
        'echo $PASSWORD $mode; cat /etc/creds/password; echo; cat /etc/config/mode',
      ]);
      assert.equal(out, 's3cret fast\ns3cret\nfast');
    }
    const reads = audit().filter(
      (e) => e.stage === 'ResponseComplete' && ['secrets', 'configmaps'].includes(e.objectRef?.resource ?? ''),
    );
    for (const pod of pods) {
      const user = `system:node:${pod.spec.nodeName}`;
      assert.ok(
        reads.some(
          (e) => e.user.username === user && e.objectRef?.name === 'app-secret' && e.responseStatus?.code === 200,
        ),
        `${user} read the secret`,
      );
    }
    const statuses = audit().filter((e) => e.objectRef?.resource === 'pods' && e.objectRef.subresource === 'status');
    for (const pod of pods) {
      const mine = statuses.filter((e) => e.objectRef?.name === pod.metadata.name);
      assert.ok(mine.length > 0);
      for (const e of mine) assert.equal(e.user.username, `system:node:${pod.spec.nodeName}`);
    }
    // kubectl logs: the apiserver proxies to the kubelet endpoint (an empty log is no body at all).
    const logs = await cp.client.request<string | undefined>({
      method: 'GET',
      path: `/api/v1/namespaces/${NS}/pods/${pods[0]?.metadata.name}/log`,
      accept: '*/*',
    });
    assert.ok(logs === undefined || typeof logs === 'string');
  });

  it('provisions a claim of the default class as the provisioner', async () => {
    await cp.client
      .resource({ group: '', version: 'v1', resource: 'persistentvolumeclaims' })
      .namespace(NS)
      .create({
        metadata: { name: 'data' },
        spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
      });
    await cp.client.pods(NS).create({
      metadata: { name: 'db' },
      spec: {
        containers: [{ name: 'db', image: 'postgres:17', volumeMounts: [{ name: 'data', mountPath: '/data' }] }],
        volumes: [{ name: 'data', persistentVolumeClaim: { claimName: 'data' } }],
      },
    });
    await eventually(
      async () => {
        const pod = await cp.client.pods(NS).get('db');
        assert.equal(pod.status?.phase, 'Running');
        const claim = await cp.client
          .resource({ group: '', version: 'v1', resource: 'persistentvolumeclaims' })
          .namespace(NS)
          .get('data');
        assert.equal(claim.status?.phase, 'Bound');
      },
      { timeoutMs: 30_000 },
    );
    const creates = audit().filter(
      (e) => e.stage === 'ResponseComplete' && e.objectRef?.resource === 'persistentvolumes' && e.verb === 'create',
    );
    assert.equal(creates.length, 1);
    assert.equal(creates[0]?.user.username, SIM_LOCAL_PROVISIONER_USER);
    assert.equal(creates[0]?.responseStatus?.code, 201);
  });

  it('a stopped node stops renewing its Lease; started again, it renews as itself', async () => {
    const node = await nodeOf('db');
    const renewTime = async () => (await cp.client.leases('kube-node-lease').get(node)).spec.renewTime as string;
    cp.nodes?.kubelets.stopNode(node);
    await new Promise((r) => setTimeout(r, 1200));
    const stopped = await renewTime();
    await new Promise((r) => setTimeout(r, 2000));
    assert.equal(await renewTime(), stopped);
    cp.nodes?.kubelets.startNode(node);
    await eventually(async () => assert.notEqual(await renewTime(), stopped), { timeoutMs: 10_000 });
    const renewals = audit().filter(
      (e) => e.objectRef?.resource === 'leases' && e.objectRef.name === node && e.verb === 'update',
    );
    assert.ok(renewals.length > 0);
    for (const e of renewals) assert.equal(e.user.username, `system:node:${node}`);
  });

  it("refuses a node's identity another node's writes and reads, with upstream's messages", async () => {
    const kubelets = cp.nodes?.kubelets;
    assert.ok(kubelets);
    const node1 = kubelets.clientOf('node-1');
    const refused = async (p: Promise<unknown>, message: string) => {
      await assert.rejects(p, (err: unknown) => {
        assert.ok(err instanceof ApiError, String(err));
        assert.equal(err.code, 403);
        assert.equal(err.message, message);
        return true;
      });
    };
    await refused(
      node1
        .nodes()
        .patch(
          'node-2',
          'strategic',
          { status: { conditions: [{ type: 'Ready', status: 'False' }] } },
          { subresource: 'status' },
        ),
      'nodes "node-2" is forbidden: node "node-1" is not allowed to modify node "node-2"',
    );
    await refused(
      node1.leases('kube-node-lease').update({
        ...(await cp.client.leases('kube-node-lease').get('node-2')),
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
      }),
      'leases.coordination.k8s.io "node-2" is forbidden: User "system:node:node-1" cannot update resource "leases" in API group "coordination.k8s.io" in the namespace "kube-node-lease": can only access node lease with the same name as the requesting node',
    );
    await refused(
      node1.pods().list(),
      'pods is forbidden: User "system:node:node-1" cannot list resource "pods" in API group "" at the cluster scope: can only list/watch pods with spec.nodeName field selector',
    );
    const elsewhere = (await cp.client.pods(NS).list()).items.find((p) => p.spec.nodeName !== 'node-1');
    assert.ok(elsewhere, 'a pod on another node');
    await refused(
      node1.pods(NS).patch(
        elsewhere.metadata.name ?? '',
        'strategic',
        { status: { message: 'x' } },
        {
          subresource: 'status',
        },
      ),
      `pods "${elsewhere.metadata.name}" is forbidden: node "node-1" can only update pod status for pods with spec.nodeName set to itself`,
    );
    // Its own pods, listed as upstream's kubelet lists them, are its to read.
    const own = await node1.pods().list({ fieldSelector: 'spec.nodeName=node-1' });
    assert.ok(own.items.every((p) => p.spec.nodeName === 'node-1'));
    // The fleet's identity reads pods and nodes, and nothing else.
    await refused(
      kubelets.clientOf('not-a-node').secrets(NS).get('app-secret'),
      `secrets "app-secret" is forbidden: User "${SIM_KUBELETS_USER}" cannot get resource "secrets" in API group "" in the namespace "default"`,
    );
  });

  it('no request of a kubelet or the provisioner was refused, and none logged Forbidden', () => {
    const refused = audit().filter((e) => e.stage === 'ResponseComplete' && e.responseStatus?.code === 403);
    // Only the refusals the previous test asked for.
    for (const e of refused) {
      assert.ok(
        e.user.username === 'system:node:node-1' || e.user.username === SIM_KUBELETS_USER,
        `${e.user.username} ${e.verb} ${e.objectRef?.resource}/${e.objectRef?.name}`,
      );
    }
    assert.ok(refused.length <= 6, JSON.stringify(refused.map((e) => [e.user.username, e.verb, e.objectRef])));
    const forbidden = lines.filter((l) => /forbidden/i.test(l) && /"component":"test\/kubelet/.test(l));
    assert.deepEqual(forbidden, []);
  });
});

describe('simulated kubelets under RBAC without the Node authorizer', () => {
  let cp: ControlPlane;
  before(async () => {
    cp = await startControlPlane({ authorization: { modes: ['RBAC'] }, nodes: 1 });
  });
  after(async () => {
    await cp?.stop();
  });

  it('bind upstream system:node to system:nodes, and register as the node', async () => {
    const binding = await cp.client
      .resource({ group: 'rbac.authorization.k8s.io', version: 'v1', resource: 'clusterrolebindings' })
      .get(SIM_NODES_BINDING);
    assert.deepEqual(binding.roleRef, {
      apiGroup: 'rbac.authorization.k8s.io',
      kind: 'ClusterRole',
      name: 'system:node',
    });
    assert.deepEqual(binding.subjects, [
      { apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'system:nodes' },
    ]);
    await eventually(async () => {
      const lease = await cp.client.leases('kube-node-lease').get('node-1');
      assert.equal(lease.spec.holderIdentity, 'node-1');
    });
    // Started again over the same cluster, the add-on brings its roles back to what it needs.
    const roles = cp.client.clusterRoles();
    const role = await roles.get(SIM_KUBELETS_USER);
    await roles.update({ ...role, rules: [] });
    await ensureSimNodesRbac(cp.client, { bindNodeRole: true });
    assert.deepEqual((await roles.get(SIM_KUBELETS_USER)).rules, [
      { apiGroups: [''], resources: ['nodes', 'pods'], verbs: ['list', 'watch'] },
    ]);
    const review = await cp.nodes?.kubelets.clientOf('node-1').request<KubeObject>({
      method: 'POST',
      path: '/apis/authentication.k8s.io/v1/selfsubjectreviews',
      body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' },
    });
    assert.equal(review?.status?.userInfo?.username, 'system:node:node-1');
  });
});
