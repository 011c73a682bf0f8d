/**
 * kube-scheduler's identity under --authorization-mode=Node,RBAC, as startControlPlane (and `wheelhouse up`) runs it:
 * it authenticates with its own client certificate as system:kube-scheduler and schedules with only what upstream's
 * bootstrap policy grants that user (ClusterRoles system:kube-scheduler and system:volume-scheduler, the
 * kube-system leader-locking Role) — never refused while it works, refused with upstream's Forbidden message for what
 * it must not do.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parse as parseYaml } from 'yaml';
import type { AuditEvent } from '../../src/apiserver/audit/event.js';
import type { Kubeconfig } from '../../src/client/kubeconfig.js';
import { type ControlPlane, startControlPlane } from '../../src/index.js';
import assert from '../../src/testing/assert.js';
import { eventually } from '../../src/testing/controllers.js';
import { certificateExtra, type Identity, requestAs } from '../../src/testing/identity-request.js';

const SCHEDULER = 'system:kube-scheduler';
/** The user agent of this test's own requests with the scheduler's certificate, told apart from the scheduler's. */
const TEST_AGENT = 'scheduler-identity-test';
const READS = new Set(['get', 'list', 'watch']);

/** The client certificate of the scheduler's kubeconfig, as startControlPlane wrote it to the data directory. */
function schedulerIdentity(cp: ControlPlane): Identity {
  const kc = parseYaml(readFileSync(join(cp.dataDir, 'scheduler.kubeconfig'), 'utf8')) as Kubeconfig;
  const user = kc.users[0]?.user ?? {};
  const decode = (b64: string | undefined) => Buffer.from(b64 ?? '', 'base64').toString('utf8');
  return { cert: decode(user['client-certificate-data']), key: decode(user['client-key-data']) };
}

describe('kube-scheduler as system:kube-scheduler under Node,RBAC', () => {
  let cp: ControlPlane;
  let scheduler: Identity;
  const audit: AuditEvent[] = [];
  /** What the scheduler itself did (not this test with its certificate) that pred accepts. */
  const bySchedulerOf = (pred: (e: AuditEvent) => boolean) =>
    audit.filter((e) => e.user.username === SCHEDULER && e.userAgent !== TEST_AGENT && pred(e));
  /** One request with the scheduler's client certificate. */
  const asScheduler = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
    requestAs(cp, scheduler, method, path, body, { 'user-agent': TEST_AGENT, ...headers });
  const describeEvent = (e: AuditEvent) => {
    const ref = (e.objectRef ?? {}) as { resource?: string; subresource?: string; apiGroup?: string };
    const resource = `${ref.resource ?? e.requestURI}${ref.subresource ? `/${ref.subresource}` : ''}`;
    return `${e.verb} ${ref.apiGroup ? `${resource}.${ref.apiGroup}` : resource}`;
  };

  before(async () => {
    cp = await startControlPlane({
      authorization: { modes: ['Node', 'RBAC'] },
      // The node lifecycle controller takes the not-ready taint off the new nodes.
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
    scheduler = schedulerIdentity(cp);
  });
  after(async () => {
    await cp?.stop();
  });

  it('authenticates as system:kube-scheduler with its own client certificate', async () => {
    const res = await asScheduler('POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', {
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'SelfSubjectReview',
    });
    assert.equal(res.status, 201, res.text);
    assert.deepEqual(res.body.status.userInfo, {
      username: SCHEDULER,
      groups: ['system:authenticated'],
      extra: certificateExtra(scheduler.cert),
    });
  });

  it('binds pods to nodes as system:kube-scheduler, and reports it in events', async () => {
    for (const name of ['a', 'b', 'c']) {
      await cp.client.pods('default').create({
        metadata: { name },
        spec: { terminationGracePeriodSeconds: 0, containers: [{ name: 'c', image: 'nginx' }] },
      });
    }
    await eventually(
      async () => {
        for (const name of ['a', 'b', 'c']) {
          const pod = await cp.client.pods('default').get(name);
          assert.match((pod.spec as { nodeName?: string }).nodeName ?? '', /^node-[12]$/, name);
          assert.equal((pod.status as { phase?: string }).phase, 'Running', name);
        }
      },
      { timeoutMs: 30_000 },
    );
    const writes = bySchedulerOf((e) => !READS.has(e.verb) && Number(e.responseStatus?.code) < 300).map(describeEvent);
    assert.equal(writes.filter((w) => w === 'create pods/binding').length, 3, writes.join('\n'));
    assert.ok(
      writes.some((w) => w === 'create events.events.k8s.io' || w === 'create events'),
      writes.join('\n'),
    );
    // Its Lease in kube-system (system::leader-locking-kube-scheduler and its own ClusterRole allow it).
    const lease = await cp.client
      .resource({ group: 'coordination.k8s.io', version: 'v1', resource: 'leases' })
      .namespace('kube-system')
      .get('kube-scheduler');
    assert.equal((lease.spec as { holderIdentity?: string }).holderIdentity, cp.scheduler?.identity);
    assert.ok(writes.includes('create leases.coordination.k8s.io'), writes.join('\n'));
    // Everything the scheduler wrote is what its bootstrap roles allow.
    for (const w of writes) {
      assert.match(
        w,
        /^(create pods\/binding|(create|patch|update) events(\.events\.k8s\.io)?|(create|update) leases\.coordination\.k8s\.io|(patch|update) pods\/status)$/,
        w,
      );
    }
  });

  it('reads what it needs with its own certificate, and deletes pods (preemption)', async () => {
    for (const path of [
      '/api/v1/nodes',
      '/api/v1/pods',
      '/api/v1/namespaces',
      '/api/v1/persistentvolumeclaims',
      '/apis/apps/v1/replicasets',
      '/apis/policy/v1/poddisruptionbudgets',
      '/apis/storage.k8s.io/v1/storageclasses',
    ]) {
      const res = await asScheduler('GET', path);
      assert.equal(res.status, 200, `${path}: ${res.text}`);
    }
    const deleted = await asScheduler('DELETE', '/api/v1/namespaces/default/pods/c');
    assert.equal(deleted.status, 200, deleted.text);
  });

  it('is refused what upstream’s bootstrap policy does not give it, with upstream’s message', async () => {
    const refusals: [string, string, unknown, string][] = [
      [
        'DELETE',
        '/api/v1/namespaces/default',
        undefined,
        'namespaces "default" is forbidden: User "system:kube-scheduler" cannot delete resource "namespaces" in API group "" in the namespace "default"',
      ],
      [
        'GET',
        '/api/v1/namespaces/default/secrets',
        undefined,
        'secrets is forbidden: User "system:kube-scheduler" cannot list resource "secrets" in API group "" in the namespace "default"',
      ],
      [
        'GET',
        '/api/v1/secrets',
        undefined,
        'secrets is forbidden: User "system:kube-scheduler" cannot list resource "secrets" in API group "" at the cluster scope',
      ],
      [
        'POST',
        '/api/v1/namespaces/default/pods',
        { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'x' }, spec: { containers: [{ name: 'c', image: 'x' }] } },
        'pods is forbidden: User "system:kube-scheduler" cannot create resource "pods" in API group "" in the namespace "default"',
      ],
      [
        'PATCH',
        '/api/v1/nodes/node-1',
        { metadata: { labels: { a: 'b' } } },
        'nodes "node-1" is forbidden: User "system:kube-scheduler" cannot patch resource "nodes" in API group "" at the cluster scope',
      ],
      [
        'POST',
        '/apis/apps/v1/namespaces/default/deployments',
        { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'x' } },
        'deployments.apps is forbidden: User "system:kube-scheduler" cannot create resource "deployments" in API group "apps" in the namespace "default"',
      ],
      [
        'PUT',
        '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/node-1',
        { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'node-1' } },
        'leases.coordination.k8s.io "node-1" is forbidden: User "system:kube-scheduler" cannot update resource "leases" in API group "coordination.k8s.io" in the namespace "kube-node-lease"',
      ],
    ];
    for (const [method, path, body, message] of refusals) {
      const res = await asScheduler(
        method,
        path,
        body,
        method === 'PATCH' ? { 'content-type': 'application/merge-patch+json' } : {},
      );
      assert.equal(res.status, 403, `${method} ${path}: ${res.text}`);
      assert.equal(res.body.reason, 'Forbidden');
      assert.equal(res.body.message, message);
    }
    // Nothing of it happened.
    assert.equal((await cp.client.namespaces().get('default')).metadata.name, 'default');
  });

  it('was never refused while it scheduled', () => {
    const refusedOf = (events: AuditEvent[]) =>
      events.filter((e) => Number(e.responseStatus?.code) === 403).map((e) => `${e.verb} ${e.requestURI}`);
    assert.deepEqual(refusedOf(bySchedulerOf(() => true)), []);
    // The audit log saw the refusals the previous test asked for, as the scheduler's user.
    const asked = audit.filter((e) => e.user.username === SCHEDULER && e.userAgent === TEST_AGENT);
    assert.deepEqual(refusedOf(asked), [
      'delete /api/v1/namespaces/default',
      'list /api/v1/namespaces/default/secrets',
      'list /api/v1/secrets',
      'create /api/v1/namespaces/default/pods',
      'patch /api/v1/nodes/node-1',
      'create /apis/apps/v1/namespaces/default/deployments',
      'update /apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/node-1',
    ]);
  });
});
