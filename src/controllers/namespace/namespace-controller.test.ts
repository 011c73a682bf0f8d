import { after, before, describe, it } from 'node:test';
import { isNotFound, type KubeObject } from '../../client/types.js';
import { type ControlPlane, startControlPlane } from '../../index.js';
import { kubectl } from '../../testing/api-client.js';
import assert from '../../testing/assert.js';
import { eventually, runControllers } from '../../testing/controllers.js';
import type { Clock } from '../../util/clock.js';
import type { ControllerManager } from '../manager.js';
import { rootCaCertPublisherController } from '../rootcacert/index.js';
import { serviceAccountController } from '../serviceaccount/index.js';
import type { NamespaceCondition } from './conditions.js';
import { namespaceController } from './index.js';

/**
 * A clock that runs `factor` times faster than real time, so that the controller's upstream waits (5 s after a
 * namespace event, half the estimated remaining time between passes) pass quickly without changing them.
 */
class FastClock implements Clock {
  private readonly start = Date.now();
  constructor(private readonly factor: number) {}
  now(): number {
    return this.start + (Date.now() - this.start) * this.factor;
  }
  after(ms: number, fn: () => void) {
    const t = setTimeout(fn, ms / this.factor);
    t.unref?.();
    return { cancel: () => clearTimeout(t) };
  }
  every(ms: number, fn: () => void) {
    const t = setInterval(fn, Math.max(1, ms / this.factor));
    t.unref?.();
    return { cancel: () => clearInterval(t) };
  }
}

let cp: ControlPlane;
let manager: ControllerManager;

const labels = { app: 'web' };
const podSpec = { containers: [{ name: 'web', image: 'nginx:1.27' }] };

async function createNamespace(name: string): Promise<void> {
  await cp.client.namespaces().create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
}

async function namespaceGone(name: string): Promise<void> {
  try {
    const ns = await cp.client.namespaces().get(name);
    assert.fail(`namespace ${name} is still there: ${JSON.stringify(ns.status)}`);
  } catch (err) {
    if (!isNotFound(err)) throw err;
  }
}

async function markRunning(ns: string, pod: KubeObject): Promise<void> {
  const current = await cp.client.pods(ns).get(pod.metadata.name ?? '');
  current.status = {
    ...current.status,
    phase: 'Running',
    conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: `${new Date().toISOString().slice(0, 19)}Z` }],
  };
  await cp.client.pods(ns).updateStatus(current);
}

function condition(ns: KubeObject, type: string): NamespaceCondition | undefined {
  return ((ns.status?.conditions ?? []) as NamespaceCondition[]).find((c) => c.type === type);
}

describe('namespace controller', () => {
  before(async () => {
    cp = await startControlPlane({ storage: 'memory' });
    // The controllers that put content into every namespace run too: they must not hold a deletion up.
    const caData = cp.kubeconfig.config.clusters[0]?.cluster['certificate-authority-data'] ?? '';
    manager = await runControllers(cp, [namespaceController, serviceAccountController, rootCaCertPublisherController], {
      clock: new FastClock(50),
      options: { rootCaPem: Buffer.from(caData, 'base64').toString('utf8') },
    });
  });

  after(async () => {
    await manager?.stop();
    await cp?.stop();
  });

  it('deletes all content of a deleted namespace, then the namespace', async () => {
    const ns = 'doomed';
    await createNamespace(ns);
    const c = cp.client;
    await eventually(() => c.serviceAccounts(ns).get('default'));
    await eventually(() => c.configMaps(ns).get('kube-root-ca.crt'));
    await c.configMaps(ns).create({ metadata: { name: 'settings' }, data: { a: '1' } });
    await c.secrets(ns).create({ metadata: { name: 'token' }, stringData: { t: 'x' } });
    await c.services(ns).create({ metadata: { name: 'web' }, spec: { selector: labels, ports: [{ port: 80 }] } });
    const deployment = await c.deployments(ns).create({
      metadata: { name: 'web' },
      spec: { replicas: 2, selector: { matchLabels: labels }, template: { metadata: { labels }, spec: podSpec } },
    });
    const rs = await c.replicaSets(ns).create({
      metadata: {
        name: 'web-5d4f',
        labels,
        ownerReferences: [
          {
            apiVersion: 'apps/v1',
            kind: 'Deployment',
            name: 'web',
            uid: deployment.metadata.uid ?? '',
            controller: true,
            blockOwnerDeletion: true,
          },
        ],
      },
      spec: { replicas: 2, selector: { matchLabels: labels }, template: { metadata: { labels }, spec: podSpec } },
    });
    for (const name of ['web-5d4f-a', 'web-5d4f-b']) {
      const pod = await c.pods(ns).create({
        metadata: {
          name,
          labels,
          ownerReferences: [
            {
              apiVersion: 'apps/v1',
              kind: 'ReplicaSet',
              name: 'web-5d4f',
              uid: rs.metadata.uid ?? '',
              controller: true,
            },
          ],
        },
        spec: podSpec,
      });
      await markRunning(ns, pod);
    }

    await c.namespaces().delete(ns);
    // Until it is emptied the namespace is Terminating and takes no new content.
    const terminating = await c.namespaces().get(ns);
    assert.equal(terminating.status?.phase, 'Terminating');
    await assert.rejects(c.configMaps(ns).create({ metadata: { name: 'late' } }), /being terminated/);

    await eventually(() => namespaceGone(ns));
    const kinds = [c.configMaps, c.secrets, c.serviceAccounts, c.services, c.deployments, c.replicaSets, c.pods];
    for (const list of kinds.map((k) => k.call(c, ns))) {
      assert.deepEqual((await list.list()).items, []);
    }
  });

  it('lets `kubectl delete namespace` complete', async () => {
    const ns = 'kubectl-doomed';
    await createNamespace(ns);
    await cp.client.configMaps(ns).create({ metadata: { name: 'settings' }, data: { a: '1' } });
    await cp.client.pods(ns).create({ metadata: { name: 'one' }, spec: podSpec });
    const result = await kubectl(cp, ['delete', 'namespace', ns, '--timeout=60s']);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /namespace "kubectl-doomed" deleted/);
    await namespaceGone(ns);
  });

  it('waits for content held by finalizers and says so in the conditions', async () => {
    const ns = 'held';
    await createNamespace(ns);
    const c = cp.client;
    for (const name of ['a', 'b']) {
      await c.configMaps(ns).create({ metadata: { name, finalizers: ['example.com/hold'] } });
    }

    await c.namespaces().delete(ns);
    const held = await eventually(async () => {
      const current = await c.namespaces().get(ns);
      assert.equal(current.status?.phase, 'Terminating');
      assert.deepEqual(condition(current, 'NamespaceContentRemaining'), {
        ...condition(current, 'NamespaceContentRemaining'),
        status: 'True',
        reason: 'SomeResourcesRemain',
        message: 'Some resources are remaining: configmaps. has 2 resource instances',
      });
      return current;
    });
    assert.deepEqual(
      [condition(held, 'NamespaceFinalizersRemaining')].map((x) => [x?.status, x?.reason, x?.message]),
      [
        [
          'True',
          'SomeFinalizersRemain',
          'Some content in the namespace has finalizers remaining: example.com/hold in 2 resource instances',
        ],
      ],
    );
    assert.deepEqual(
      [
        'NamespaceDeletionDiscoveryFailure',
        'NamespaceDeletionGroupVersionParsingFailure',
        'NamespaceDeletionContentFailure',
      ].map((type) => [type, condition(held, type)?.status, condition(held, type)?.reason]),
      [
        ['NamespaceDeletionDiscoveryFailure', 'False', 'ResourcesDiscovered'],
        ['NamespaceDeletionGroupVersionParsingFailure', 'False', 'ParsedGroupVersions'],
        ['NamespaceDeletionContentFailure', 'False', 'ContentDeleted'],
      ],
    );
    assert.deepEqual(held.spec?.finalizers, ['kubernetes']);
    // Everything else is gone already (the ServiceAccount and root CA ConfigMap the controllers made); the held
    // objects wait, marked for deletion.
    assert.deepEqual((await c.serviceAccounts(ns).list()).items, []);
    const left = (await c.configMaps(ns).list()).items;
    assert.deepEqual(left.map((m) => m.metadata.name).sort(), ['a', 'b']);
    assert.ok(left.every((m) => m.metadata.deletionTimestamp));

    for (const name of ['a', 'b']) {
      await c.configMaps(ns).patch(name, 'merge', { metadata: { finalizers: null } });
    }
    await eventually(() => namespaceGone(ns));
  });

  it('deletes the pods first, and the rest only once no pod remains (OrderedNamespaceDeletion)', async () => {
    const ns = 'ordered';
    await createNamespace(ns);
    const c = cp.client;
    await c.configMaps(ns).create({ metadata: { name: 'settings' } });
    for (const name of ['a', 'b']) {
      await c.pods(ns).create({ metadata: { name, finalizers: ['example.com/hold'] }, spec: podSpec });
    }

    await c.namespaces().delete(ns);
    await eventually(async () => {
      const pods = (await c.pods(ns).list()).items;
      assert.equal(pods.length, 2);
      assert.ok(pods.every((p) => p.metadata.deletionTimestamp));
      // Upstream updates the conditions without counting what remains while pods hold the rest back.
      const current = await c.namespaces().get(ns);
      assert.equal(condition(current, 'NamespaceDeletionContentFailure')?.reason, 'ContentDeleted');
    });
    // Several passes later, the ConfigMap is still there, untouched.
    await new Promise((r) => setTimeout(r, 300));
    const settings = await c.configMaps(ns).get('settings');
    assert.equal(settings.metadata.deletionTimestamp, undefined);
    assert.equal((await c.namespaces().get(ns)).status?.phase, 'Terminating');

    for (const name of ['a', 'b']) {
      await c.pods(ns).patch(name, 'merge', { metadata: { finalizers: null } });
    }
    await eventually(() => namespaceGone(ns));
  });

  it('waits for pods that terminate gracefully', async () => {
    const ns = 'graceful';
    await createNamespace(ns);
    const c = cp.client;
    await c.configMaps(ns).create({ metadata: { name: 'settings' } });
    // A pod bound to a node is deleted gracefully: it stays until its kubelet (here: the test) removes it.
    const pod = await c.pods(ns).create({ metadata: { name: 'bound' }, spec: { ...podSpec, nodeName: 'node-1' } });
    await markRunning(ns, pod);

    await c.namespaces().delete(ns);
    const terminating = await eventually(async () => {
      const current = await c.pods(ns).get('bound');
      assert.ok(current.metadata.deletionTimestamp);
      return current;
    });
    assert.equal(terminating.metadata.deletionGracePeriodSeconds, 30);
    // The other content waits for the pod.
    await new Promise((r) => setTimeout(r, 300));
    assert.equal((await c.configMaps(ns).get('settings')).metadata.deletionTimestamp, undefined);

    await c.pods(ns).delete('bound', { gracePeriodSeconds: 0 });
    await eventually(() => namespaceGone(ns));
  });

  it('leaves namespaces that are not being deleted alone', async () => {
    const ns = 'kept';
    await createNamespace(ns);
    await cp.client.configMaps(ns).create({ metadata: { name: 'settings' } });
    // A namespace that is deleted afterwards shows the controller has looked at namespaces since.
    await createNamespace('probe');
    await cp.client.namespaces().delete('probe');
    await eventually(() => namespaceGone('probe'));
    const kept = await cp.client.namespaces().get(ns);
    assert.equal(kept.status?.phase, 'Active');
    assert.equal(kept.status?.conditions, undefined);
    assert.equal((await cp.client.configMaps(ns).get('settings')).metadata.deletionTimestamp, undefined);
  });
});
