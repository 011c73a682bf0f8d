/**
 * --use-service-account-credentials (on in startControlPlane, as kubeadm sets it) under --authorization-mode=Node,RBAC:
 * every controller writes as its ServiceAccount kube-system/<name>, allowed only by the bootstrap role
 * system:controller:<name>, while the controller manager's own identity keeps upstream's narrow
 * system:kube-controller-manager role. Who wrote what is read from the audit log.
 */
import { after, before, describe, it } from 'node:test';
import type { AuditEvent } from '../../src/apiserver/audit/event.js';
import type { KubeObject } from '../../src/client/types.js';
import { CONTROLLERS } from '../../src/controllers/registry.js';
import { type ControlPlane, startControlPlane } from '../../src/index.js';
import { apiRequest } from '../../src/testing/api-client.js';
import assert from '../../src/testing/assert.js';
import { eventually } from '../../src/testing/controllers.js';

const SA_PREFIX = 'system:serviceaccount:kube-system:';
const READS = new Set(['get', 'list', 'watch']);

describe('controllers act as their own ServiceAccounts', () => {
  let cp: ControlPlane;
  const audit: AuditEvent[] = [];
  /** Successful writes: `user verb resource[/subresource]`. */
  const writes = () =>
    audit
      .filter((e) => !READS.has(e.verb) && Number(e.responseStatus?.code) < 300 && e.objectRef)
      .map((e) => {
        const ref = e.objectRef as { resource?: string; subresource?: string };
        return `${e.user.username} ${e.verb} ${ref.resource}${ref.subresource ? `/${ref.subresource}` : ''}`;
      });

  before(async () => {
    cp = await startControlPlane({
      authorization: { modes: ['Node', 'RBAC'] },
      controllers: true,
      scheduler: true,
      nodes: 2,
      audit: {
        policy: { apiVersion: 'audit.k8s.io/v1', kind: 'Policy', rules: [{ level: 'Metadata' }] },
        sink: (event) => {
          if (event.stage === 'ResponseComplete') audit.push(event);
        },
      },
    });
  });
  after(async () => {
    await cp?.stop();
  });

  it('is on by default in startControlPlane, and every controller has its bound bootstrap role', async () => {
    assert.equal(cp.controllerManager?.options.useServiceAccountCredentials, true);
    const names = new Set(CONTROLLERS.flatMap((d) => (d.serviceAccount ? [d.serviceAccount] : [])));
    assert.ok(names.size >= 20);
    // The bootstrap token controllers' roles are upstream's namespaced ones, in kube-system (and kube-public).
    const namespaced = new Set(['bootstrap-signer', 'token-cleaner']);
    const rbac = (resource: string) =>
      cp.client.resource({ group: 'rbac.authorization.k8s.io', version: 'v1', resource });
    for (const name of names) {
      const role = namespaced.has(name)
        ? await rbac('roles').namespace('kube-system').get(`system:controller:${name}`)
        : await cp.client.clusterRoles().get(`system:controller:${name}`);
      assert.ok(Array.isArray(role.rules) && role.rules.length > 0, name);
      const binding = namespaced.has(name)
        ? await rbac('rolebindings').namespace('kube-system').get(`system:controller:${name}`)
        : await rbac('clusterrolebindings').get(`system:controller:${name}`);
      assert.deepEqual(
        (binding.subjects as { kind: string; name: string; namespace: string }[]).map(
          (s) => `${s.kind} ${s.namespace}/${s.name}`,
        ),
        [`ServiceAccount kube-system/${name}`],
        `binding of ${name}`,
      );
    }
    // Each ServiceAccount is made when its controller starts, whether or not the controller has written anything
    // (the bootstrap token controllers do not start under `*`).
    const started = (cp.controllerManager?.enabledDescriptors() ?? []).flatMap((d) =>
      d.serviceAccount ? [d.serviceAccount] : [],
    );
    assert.ok(started.length >= 20 && !started.includes('token-cleaner'));
    await eventually(async () => {
      const made = new Set(
        (await cp.client.serviceAccounts('kube-system').list()).items.map((sa) => sa.metadata.name as string),
      );
      assert.deepEqual(
        started.filter((name) => !made.has(name)),
        [],
      );
    });
    // As upstream: the token controller has no ServiceAccount of its own.
    assert.equal(CONTROLLERS.find((d) => d.name === 'serviceaccount-token-controller')?.serviceAccount, undefined);
  });

  it('rolls a Deployment out to Running pods, each object written by its controller’s ServiceAccount', async () => {
    await cp.client.deployments('default').create({
      metadata: { name: 'web' },
      spec: {
        replicas: 3,
        selector: { matchLabels: { app: 'web' } },
        template: {
          metadata: { labels: { app: 'web' } },
          // The simulated containers take their whole grace period to stop.
          spec: { terminationGracePeriodSeconds: 1, containers: [{ name: 'c', image: 'nginx' }] },
        },
      },
    } as KubeObject);
    await eventually(
      async () => {
        const pods = (await cp.client.pods('default').list({ labelSelector: 'app=web' })).items;
        assert.equal(pods.length, 3);
        for (const pod of pods) {
          assert.ok((pod.spec as { nodeName?: string }).nodeName);
          assert.equal((pod.status as { phase?: string }).phase, 'Running');
        }
        const d = await cp.client.deployments('default').get('web');
        assert.equal((d.status as { availableReplicas?: number }).availableReplicas, 3);
      },
      { timeoutMs: 30_000 },
    );
    const w = writes();
    assert.ok(w.includes(`${SA_PREFIX}deployment-controller create replicasets`), w.join('\n'));
    assert.ok(w.includes(`${SA_PREFIX}deployment-controller update deployments/status`));
    assert.ok(w.includes(`${SA_PREFIX}replicaset-controller create pods`));
    assert.ok(w.includes(`${SA_PREFIX}replicaset-controller update replicasets/status`));
    // Events too are written with the controller's own client.
    assert.ok(w.includes(`${SA_PREFIX}replicaset-controller create events`));
    // The user agent names the ServiceAccount after the manager's, as upstream's client builder does.
    const created = audit.find(
      (e) => e.user.username === `${SA_PREFIX}replicaset-controller` && e.verb === 'create' && e.objectRef,
    );
    assert.match(created?.userAgent ?? '', /\/system:serviceaccount:kube-system:replicaset-controller$/);
    for (const name of ['deployment-controller', 'replicaset-controller', 'node-controller']) {
      await cp.client.serviceAccounts('kube-system').get(name);
    }
  });

  it('collects the dependents of a deleted Deployment as generic-garbage-collector', async () => {
    await cp.client.deployments('default').delete('web', { propagationPolicy: 'Background' });
    await eventually(
      async () => {
        assert.equal((await cp.client.replicaSets('default').list({ labelSelector: 'app=web' })).items.length, 0);
        assert.equal((await cp.client.pods('default').list({ labelSelector: 'app=web' })).items.length, 0);
      },
      { timeoutMs: 30_000 },
    );
    const w = writes();
    assert.ok(w.includes(`${SA_PREFIX}generic-garbage-collector delete replicasets`), w.join('\n'));
    assert.ok(w.includes(`${SA_PREFIX}generic-garbage-collector delete pods`));
  });

  it('leaves the controller manager’s own identity upstream’s narrow role', async () => {
    const asManager = { 'Impersonate-User': 'system:kube-controller-manager' };
    const refused = await apiRequest(cp, 'POST', '/apis/apps/v1/namespaces/default/deployments', {
      headers: asManager,
      body: {
        metadata: { name: 'nope' },
        spec: {
          selector: { matchLabels: { a: 'b' } },
          template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'x' }] } },
        },
      },
    });
    assert.equal(refused.status, 403);
    assert.equal(
      refused.body.message,
      'deployments.apps is forbidden: User "system:kube-controller-manager" cannot create resource "deployments" in API group "apps" in the namespace "default"',
    );
    assert.equal(
      (await apiRequest(cp, 'DELETE', '/api/v1/namespaces/default/pods/any', { headers: asManager })).status,
      403,
    );
    assert.equal((await apiRequest(cp, 'GET', '/api/v1/pods', { headers: asManager })).status, 200);
    // What the manager itself wrote: its lease, the controllers' ServiceAccounts and their tokens, nothing else.
    const own = writes().filter((w) => w.startsWith('system:kube-controller-manager '));
    assert.ok(own.includes('system:kube-controller-manager create serviceaccounts/token'), own.join('\n'));
    for (const w of own) {
      assert.match(w, / (create|update) (leases|serviceaccounts|serviceaccounts\/token|secrets)$/, w);
    }
    // A controller's ServiceAccount may not do another's work either.
    const asReplicaSets = {
      'Impersonate-User': `${SA_PREFIX}replicaset-controller`,
      'Impersonate-Group': 'system:serviceaccounts',
    };
    const other = await apiRequest(cp, 'POST', '/apis/apps/v1/namespaces/default/replicasets', {
      headers: asReplicaSets,
      body: { metadata: { name: 'x' } },
    });
    assert.equal(other.status, 403);
  });

  it('never had a controller refused by the authorizer', () => {
    const refused = audit
      .filter((e) => e.user.username?.startsWith(SA_PREFIX) && Number(e.responseStatus?.code) === 403)
      .map((e) => `${e.user.username} ${e.verb} ${e.requestURI}`);
    assert.deepEqual(refused, []);
  });
});
