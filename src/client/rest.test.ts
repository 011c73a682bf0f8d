import { execFile } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { type ControlPlane, startControlPlane } from '../index.js';
import assert from '../testing/assert.js';
import { resolveKubeconfig } from './kubeconfig.js';
import { KubeClient } from './rest.js';
import {
  ApiError,
  isAlreadyExists,
  isConflict,
  isGone,
  isNotFound,
  type KubeObject,
  type WatchEvent,
  type WatchStream,
} from './types.js';

let cp: ControlPlane;
before(async () => {
  cp = await startControlPlane({ storage: 'memory', watchCache: { capacity: 1000, maxCapacity: 1000 } });
});
after(() => cp?.stop());

const deployment = (name: string, replicas = 1): KubeObject => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name },
  spec: {
    replicas,
    selector: { matchLabels: { app: name } },
    template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } },
  },
});

/** Reads events until `count` have come or the stream ends. */
async function take(stream: WatchStream, count: number): Promise<WatchEvent[]> {
  const events: WatchEvent[] = [];
  if (count === 0) return events;
  for await (const event of stream) {
    events.push(event);
    if (events.length >= count) break;
  }
  return events;
}

describe('KubeClient against a control plane', () => {
  test('create, get, update, delete a ConfigMap; errors carry the Status', async () => {
    const cms = cp.client.configMaps('default');
    const created = await cms.create({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'crud' },
      data: { a: '1' },
    });
    assert.equal(created.metadata.namespace, 'default');
    assert.ok(created.metadata.uid);
    const got = await cms.get('crud');
    assert.deepEqual(got.data, { a: '1' });

    const updated = await cms.update({ ...got, data: { a: '2' } });
    assert.deepEqual(updated.data, { a: '2' });
    assert.notEqual(updated.metadata.resourceVersion, got.metadata.resourceVersion);

    const stale = await cms.update({ ...got, data: { a: '3' } }).catch((e: unknown) => e);
    assert.ok(stale instanceof ApiError);
    assert.equal(stale.code, 409);
    assert.ok(isConflict(stale));
    assert.match(stale.message, /the object has been modified/);

    const again = await cms.create({ metadata: { name: 'crud' } }).catch((e: unknown) => e);
    assert.ok(isAlreadyExists(again));

    const deleted = await cms.delete('crud');
    assert.equal(deleted.kind, 'Status');
    assert.equal(deleted.status, 'Success');
    const missing = await cms.get('crud').catch((e: unknown) => e);
    assert.ok(missing instanceof ApiError);
    assert.ok(isNotFound(missing));
    assert.equal(missing.reason, 'NotFound');
    assert.equal(missing.message, 'configmaps "crud" not found');
    assert.equal(missing.status.details?.name, 'crud');
  });

  test('names with a colon are sent as written, as client-go sends them (system:controller:…)', async () => {
    const role = await cp.client.clusterRoles().get('system:controller:deployment-controller');
    assert.equal(role.metadata.name, 'system:controller:deployment-controller');
  });

  test('withRateLimit gives a client with its own limit over the same connection', async () => {
    const limited = new KubeClient({ ...(await resolveKubeconfig(cp.kubeconfig.config)), qps: 20, burst: 30 });
    const fast = limited.withRateLimit(400, 3000);
    assert.deepEqual(fast.rateLimit, { qps: 400, burst: 3000 });
    assert.deepEqual(limited.rateLimit, { qps: 20, burst: 30 });
    assert.equal((await fast.namespaces().get('default')).metadata.name, 'default');
    fast.close();
    assert.equal((await limited.namespaces().get('default')).metadata.name, 'default', 'the connection stays open');
    limited.close();
  });

  test('objects are written to their metadata.namespace when the client has none', async () => {
    const created = await cp.client
      .configMaps()
      .create({ metadata: { name: 'ns-from-object', namespace: 'kube-public' } });
    assert.equal(created.metadata.namespace, 'kube-public');
    await assert.rejects(cp.client.configMaps().get('x'), /a namespace is needed/);
    const nodes = cp.client.nodes();
    const listed = await nodes.namespace('ignored-for-cluster-scoped').list();
    assert.equal(listed.kind, 'NodeList');
  });

  test('list with labelSelector, limit and continue; all namespaces', async () => {
    const cms = cp.client.configMaps('list-test');
    await cp.client.namespaces().create({ metadata: { name: 'list-test' } });
    for (let i = 0; i < 5; i++) {
      await cms.create({ metadata: { name: `cm-${i}`, labels: { tier: i % 2 === 0 ? 'even' : 'odd' } } });
    }
    const even = await cms.list({ labelSelector: 'tier=even' });
    assert.deepEqual(
      even.items.map((o) => o.metadata.name),
      ['cm-0', 'cm-2', 'cm-4'],
    );
    const page1 = await cms.list({ limit: 2 });
    assert.equal(page1.items.length, 2);
    assert.ok(page1.metadata.continue);
    const page2 = await cms.list({ limit: 2, continue: page1.metadata.continue });
    const page3 = await cms.list({ limit: 2, continue: page2.metadata.continue });
    assert.deepEqual(
      [...page1.items, ...page2.items, ...page3.items].map((o) => o.metadata.name),
      ['cm-0', 'cm-1', 'cm-2', 'cm-3', 'cm-4'],
    );
    assert.equal(page3.metadata.continue, undefined);
    const all = await cp.client.configMaps().list({ fieldSelector: 'metadata.namespace=list-test' });
    assert.equal(all.items.length, 5);
  });

  test('strategic merge, merge and JSON patches; dryRun and fieldManager', async () => {
    const deployments = cp.client.deployments('default');
    await deployments.create(deployment('patched'));
    const strategic = await deployments.patch('patched', 'strategic', {
      spec: { template: { spec: { containers: [{ name: 'sidecar', image: 'busybox' }] } } },
    });
    assert.deepEqual(
      strategic.spec.template.spec.containers.map((c: { name: string }) => c.name).sort(),
      ['c', 'sidecar'],
      'a strategic merge patch merges containers by name',
    );
    const merge = await deployments.patch('patched', 'merge', { metadata: { labels: { patched: 'merge' } } });
    assert.equal(merge.metadata.labels?.patched, 'merge');
    const json = await deployments.patch('patched', 'json', [{ op: 'replace', path: '/spec/replicas', value: 3 }], {
      fieldManager: 'tester',
    });
    assert.equal(json.spec.replicas, 3);
    assert.ok(json.metadata.managedFields?.some((f) => (f as { manager?: string }).manager === 'tester'));
    const dry = await deployments.patch('patched', 'merge', { spec: { replicas: 7 } }, { dryRun: 'All' });
    assert.equal(dry.spec.replicas, 7);
    assert.equal((await deployments.get('patched')).spec.replicas, 3, 'a dry run changes nothing');
  });

  test('patchForVersion answers the written resourceVersion, read off the answer or decoded', async () => {
    const configMaps = cp.client.configMaps('default');
    await configMaps.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'versioned' } });
    const rv = await configMaps.patchForVersion('versioned', 'merge', { data: { a: '1' } });
    const stored = await configMaps.get('versioned');
    assert.equal(rv, stored.metadata.resourceVersion);
    assert.equal(stored.data?.a, '1');
    // A second resourceVersion key in the answer (an annotation's): the answer is decoded, and the object's own
    // resourceVersion is still the one answered.
    const again = await configMaps.patchForVersion('versioned', 'strategic', {
      metadata: { annotations: { resourceVersion: '1' } },
    });
    assert.equal(again, (await configMaps.get('versioned')).metadata.resourceVersion);
    assert.notEqual(again, '1');
    await assert.rejects(configMaps.patchForVersion('missing', 'merge', { data: {} }), isNotFound);
  });

  test('delete with a propagation policy and deleteCollection', async () => {
    const cms = cp.client.configMaps('default');
    await cms.create({ metadata: { name: 'foreground' } });
    const answer = await cms.delete('foreground', { propagationPolicy: 'Foreground' });
    assert.equal(answer.kind, 'ConfigMap', 'the object stays while its finalizer is there');
    assert.ok(answer.metadata.deletionTimestamp);
    assert.deepEqual(answer.metadata.finalizers, ['foregroundDeletion']);
    await cms.patch('foreground', 'merge', { metadata: { finalizers: null } });
    await assert.rejects(cms.get('foreground'), isNotFound);

    await cms.create({ metadata: { name: 'dc-1', labels: { batch: 'x' } } });
    await cms.create({ metadata: { name: 'dc-2', labels: { batch: 'x' } } });
    await cms.deleteCollection({ labelSelector: 'batch=x' });
    assert.equal((await cms.list({ labelSelector: 'batch=x' })).items.length, 0);
  });

  test('watch sees ADDED, MODIFIED and DELETED; close() ends the iteration', async () => {
    await cp.client.namespaces().create({ metadata: { name: 'watched' } });
    const cms = cp.client.configMaps('watched');
    const start = await cms.list();
    const watch = await cms.watch({ resourceVersion: start.metadata.resourceVersion });
    const created = await cms.create({ metadata: { name: 'w' }, data: { v: '1' } });
    await cms.update({ ...created, data: { v: '2' } });
    await cms.delete('w');
    const events = await take(watch, 3);
    assert.deepEqual(
      events.map((e) => [e.type, e.object.metadata.name]),
      [
        ['ADDED', 'w'],
        ['MODIFIED', 'w'],
        ['DELETED', 'w'],
      ],
    );
    assert.deepEqual(events[1]?.object.data, { v: '2' });

    const idle = await cms.watch({ resourceVersion: start.metadata.resourceVersion, labelSelector: 'none=none' });
    const ended = take(idle, 1);
    idle.close();
    assert.deepEqual(await ended, [], 'a closed watch ends without more events');
  });

  test('a watch from a resourceVersion the server no longer has ends with 410 Expired', async () => {
    const cms = cp.client.configMaps('default');
    const old = await cms.create({ metadata: { name: 'old-rv' } });
    const newer = await cms.update({ ...old, data: { x: 'y' } });
    await cp.storage.compact(Number(newer.metadata.resourceVersion));

    const list = await cms
      .list({ resourceVersion: old.metadata.resourceVersion, resourceVersionMatch: 'Exact' })
      .catch((e: unknown) => e);
    assert.ok(isGone(list), 'a list at a compacted revision is 410');
    assert.equal((list as ApiError).reason, 'Expired');

    // The watch cache still holds `old` in its window of recent events: push it out with more than the window
    // holds (1000 changes here), written straight to storage to keep the test fast.
    const key = '/registry/podtemplates/default/churn';
    const value = (i: number) =>
      Buffer.from(
        JSON.stringify({
          apiVersion: 'v1',
          kind: 'PodTemplate',
          metadata: { name: 'churn', namespace: 'default', uid: 'u-1', creationTimestamp: '2025-01-01T00:00:00Z' },
          template: { metadata: { labels: { i: String(i) } } },
        }),
      );
    let written = await cp.storage.create(key, value(0));
    for (let i = 1; i <= 1001; i++) written = await cp.storage.update(key, value(i), written.revision);
    let gone: unknown;
    try {
      const watch = await cp.client
        .resource({ group: '', version: 'v1', resource: 'podtemplates' })
        .watch({ resourceVersion: old.metadata.resourceVersion });
      const [event] = await take(watch, 1);
      assert.equal(event?.type, 'ERROR');
      gone = ApiError.fromStatus(event?.object);
    } catch (error) {
      gone = error;
    }
    assert.ok(isGone(gone), String(gone));
  });

  test('status subresource of a pod, scale subresource of a deployment', async () => {
    const pods = cp.client.pods('default');
    const pod = await pods.create({
      metadata: { name: 'status-pod' },
      spec: { containers: [{ name: 'c', image: 'nginx' }] },
    });
    const withStatus = await pods.updateStatus({
      ...pod,
      spec: { ...pod.spec, activeDeadlineSeconds: 5 },
      status: { ...pod.status, phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] },
    });
    assert.equal(withStatus.status.phase, 'Running');
    assert.equal(withStatus.spec.activeDeadlineSeconds, undefined, 'a status update leaves the spec alone');

    const deployments = cp.client.deployments('default');
    await deployments.create(deployment('scaled', 2));
    const scale = await deployments.getSubresource('scaled', 'scale');
    assert.equal(scale.kind, 'Scale');
    assert.equal(scale.apiVersion, 'autoscaling/v1');
    assert.equal(scale.spec.replicas, 2);
    const rescaled = await deployments.updateSubresource('scaled', 'scale', { ...scale, spec: { replicas: 5 } });
    assert.equal(rescaled.spec.replicas, 5);
    assert.equal((await deployments.get('scaled')).spec.replicas, 5);
    const patched = await deployments.patch('scaled', 'merge', { spec: { replicas: 1 } }, { subresource: 'scale' });
    assert.equal(patched.kind, 'Scale');
  });

  test('request() reaches any path; the shorthands name the right resources', async () => {
    const version = await cp.client.request<{ major: string; minor: string }>({ method: 'GET', path: '/version' });
    assert.equal(version.major, '1');
    const health = await cp.client.request({ method: 'GET', path: '/healthz', accept: 'text/plain' });
    assert.equal(health, 'ok');
    const c = cp.client;
    for (const client of [
      c.pods('default'),
      c.services('default'),
      c.endpoints('default'),
      c.namespaces(),
      c.nodes(),
      c.configMaps('default'),
      c.secrets('default'),
      c.serviceAccounts('default'),
      c.events('default'),
      c.replicationControllers('default'),
      c.resourceQuotas('default'),
      c.deployments('default'),
      c.replicaSets('default'),
      c.statefulSets('default'),
      c.daemonSets('default'),
      c.controllerRevisions('default'),
      c.jobs('default'),
      c.cronJobs('default'),
      c.leases('default'),
      c.endpointSlices('default'),
      c.podDisruptionBudgets('default'),
      c.clusterRoles(),
      c.priorityClasses(),
    ]) {
      const list = await client.list({ limit: 1 });
      assert.match(list.kind ?? '', /List$/);
    }
  });

  test('fromKubeconfig reads the admin kubeconfig; an idle client does not keep Node running', async () => {
    const client = await KubeClient.fromKubeconfig({ kubeconfigPath: cp.kubeconfig.path });
    try {
      assert.equal(client.defaultNamespace, 'default');
      assert.equal((await client.namespaces().get('default')).metadata.name, 'default');
    } finally {
      client.close();
    }
    // A child process makes a request and never closes its client: it must still exit by itself.
    const script = `
      import { KubeClient } from ${JSON.stringify(new URL('./rest.ts', import.meta.url).href)};
      const client = await KubeClient.fromKubeconfig({ kubeconfigPath: process.env.KC });
      const ns = await client.namespaces().get('default');
      console.log(ns.metadata.name);
    `;
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', '--input-type=module', '-e', script],
      { env: { ...process.env, KC: cp.kubeconfig.path }, timeout: 30_000 },
    );
    assert.equal(stdout.trim(), 'default');
  });
});
