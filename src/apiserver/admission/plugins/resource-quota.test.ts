import { after, before, describe, it } from 'node:test';
import {
  type AdmissionTestCluster,
  admissionTestCluster,
  refusalMessage as refusal,
  runPlugin,
} from '../../../testing/admission-registry.js';
import assert from '../../../testing/assert.js';
import type { KubeObject } from '../../registry/object.js';
import { ClusterReader } from './cluster-reader.js';
import { resourceQuota } from './resource-quota.js';

type Rec = Record<string, unknown>;
const container = (name: string, resources: Rec = {}) => ({ name, image: 'i', resources });

function pod(name: string, spec: Rec = {}): KubeObject {
  return { metadata: { name, namespace: 'q' }, spec: { containers: [container('c')], ...spec } };
}

/** A quota as the resourcequota controller leaves it: status.hard from spec, status.used counted. */
function quota(name: string, hard: Rec, used: Rec, spec: Rec = {}): KubeObject {
  return { metadata: { name, namespace: 'q' }, spec: { hard, ...spec }, status: { hard, used } };
}

describe('ResourceQuota admission', () => {
  let cluster: AdmissionTestCluster;
  let plugin: ReturnType<typeof resourceQuota>;
  const used = async (name: string) =>
    ((await cluster.get('', 'v1', 'resourcequotas', 'q', name))?.status as Rec | undefined)?.used;
  const createPod = (p: KubeObject, dryRun = false) =>
    runPlugin(plugin, cluster.attrs('', 'v1', 'pods', { operation: 'CREATE', object: p, dryRun }));

  before(async () => {
    cluster = admissionTestCluster();
    await cluster.put('', 'v1', 'namespaces', { metadata: { name: 'q' } });
    await cluster.put('', 'v1', 'resourcequotas', quota('pods', { pods: '2' }, { pods: '1' }));
    await cluster.put(
      '',
      'v1',
      'resourcequotas',
      quota(
        'compute',
        { 'limits.cpu': '1', 'requests.memory': '1Gi' },
        { 'limits.cpu': '0', 'requests.memory': '0' },
        {
          scopes: ['NotBestEffort'],
        },
      ),
    );
    await cluster.put(
      '',
      'v1',
      'resourcequotas',
      quota('cms', { 'count/configmaps': '1' }, { 'count/configmaps': '1' }),
    );
    await cluster.settle();
    plugin = resourceQuota(new ClusterReader(cluster.registry));
  });
  after(() => cluster.close());

  it('charges an admitted pod to status.used, and refuses the pod over quota with upstream message', async () => {
    await createPod(pod('one'));
    assert.deepEqual(await used('pods'), { pods: '2' });
    assert.equal(
      await refusal(createPod(pod('two'))),
      'pods "two" is forbidden: exceeded quota: pods, requested: pods=1, used: pods=2, limited: pods=2',
    );
    assert.deepEqual(await used('pods'), { pods: '2' });
  });

  it('charges against the stored quota, so the second of two racing creates is refused', async () => {
    await cluster.put('', 'v1', 'resourcequotas', quota('race', { 'count/secrets': '1' }, { 'count/secrets': '0' }));
    await cluster.settle();
    const secret = (name: string) =>
      runPlugin(
        plugin,
        cluster.attrs('', 'v1', 'secrets', { operation: 'CREATE', object: { metadata: { name, namespace: 'q' } } }),
      );
    const results = await Promise.allSettled([secret('a'), secret('b')]);
    assert.equal(results.filter((r) => r.status === 'fulfilled').length, 1);
    const refused = results.find((r) => r.status === 'rejected');
    assert.equal(
      (refused as PromiseRejectedResult).reason.message,
      'secrets "b" is forbidden: exceeded quota: race, requested: count/secrets=1, used: count/secrets=1, limited: count/secrets=1',
    );
    assert.deepEqual(await used('race'), { 'count/secrets': '1' });
  });

  it('does not charge dry-run requests', async () => {
    await cluster.put('', 'v1', 'resourcequotas', quota('dry', { 'count/services': '5' }, { 'count/services': '0' }));
    await cluster.settle();
    await runPlugin(
      plugin,
      cluster.attrs('', 'v1', 'services', {
        operation: 'CREATE',
        object: { metadata: { name: 's', namespace: 'q' }, spec: { ports: [{ port: 80 }] } },
        dryRun: true,
      }),
    );
    assert.deepEqual(await used('dry'), { 'count/services': '0' });
  });

  it('applies scoped compute quotas only to pods in scope, asking each container to state what is tracked', async () => {
    await cluster.put('', 'v1', 'namespaces', { metadata: { name: 's' } });
    await cluster.put('', 'v1', 'resourcequotas', {
      ...quota(
        'compute',
        { 'limits.cpu': '1', 'requests.memory': '1Gi' },
        { 'limits.cpu': '0', 'requests.memory': '0' },
        {
          scopes: ['NotBestEffort'],
        },
      ),
      metadata: { name: 'compute', namespace: 's' },
    });
    await cluster.settle();
    const inS = (p: KubeObject): KubeObject => ({ ...p, metadata: { ...p.metadata, namespace: 's' } });
    // BestEffort pods are outside the NotBestEffort scope: the quota does not apply to them.
    await createPod(inS(pod('idle')));
    const burst = inS(
      pod('burst', { containers: [container('app', { limits: { cpu: '2' }, requests: { cpu: '2', memory: '1Gi' } })] }),
    );
    assert.equal(
      await refusal(createPod(burst)),
      'pods "burst" is forbidden: exceeded quota: compute, requested: limits.cpu=2, used: limits.cpu=0, limited: limits.cpu=1',
    );
    const missing = inS(pod('half', { containers: [container('app', { requests: { cpu: '100m' } })] }));
    assert.equal(
      await refusal(createPod(missing)),
      'pods "half" is forbidden: failed quota: compute: must specify limits.cpu for: app; requests.memory for: app',
    );
    const fits = inS(
      pod('fits', {
        containers: [container('app', { limits: { cpu: '500m' }, requests: { cpu: '500m', memory: '256Mi' } })],
      }),
    );
    await createPod(fits);
    assert.deepEqual((await cluster.get('', 'v1', 'resourcequotas', 's', 'compute'))?.status, {
      hard: { 'limits.cpu': '1', 'requests.memory': '1Gi' },
      used: { 'limits.cpu': '500m', 'requests.memory': '256Mi' },
    });
  });

  it('refuses while the controller has not counted a quota yet', async () => {
    await cluster.put('', 'v1', 'resourcequotas', {
      metadata: { name: 'fresh', namespace: 'q' },
      spec: { hard: { 'count/configmaps': '3' } },
      status: { hard: { 'count/configmaps': '3' } },
    });
    await cluster.settle();
    assert.equal(
      await refusal(
        runPlugin(
          plugin,
          cluster.attrs('', 'v1', 'configmaps', {
            operation: 'CREATE',
            object: { metadata: { name: 'x', namespace: 'q' } },
          }),
        ),
      ),
      'configmaps "x" is forbidden: status unknown for quota: fresh, resources: count/configmaps',
    );
  });

  it('charges an update only for what it adds', async () => {
    await cluster.put('', 'v1', 'namespaces', { metadata: { name: 'u' } });
    await cluster.put('', 'v1', 'resourcequotas', {
      metadata: { name: 'lb', namespace: 'u' },
      spec: { hard: { 'services.loadbalancers': '1' } },
      status: { hard: { 'services.loadbalancers': '1' }, used: { 'services.loadbalancers': '1' } },
    });
    await cluster.settle();
    const svc = (type: string): KubeObject => ({
      metadata: { name: 's', namespace: 'u', resourceVersion: '5' },
      spec: { type, ports: [{ port: 80 }] },
    });
    await runPlugin(
      plugin,
      cluster.attrs('', 'v1', 'services', {
        operation: 'UPDATE',
        object: svc('LoadBalancer'),
        oldObject: svc('LoadBalancer'),
      }),
    );
    const refused = await refusal(
      runPlugin(
        plugin,
        cluster.attrs('', 'v1', 'services', {
          operation: 'UPDATE',
          object: svc('LoadBalancer'),
          oldObject: svc('ClusterIP'),
        }),
      ),
    );
    assert.equal(
      refused,
      'services "s" is forbidden: exceeded quota: lb, requested: services.loadbalancers=1, used: services.loadbalancers=1, limited: services.loadbalancers=1',
    );
  });
});
