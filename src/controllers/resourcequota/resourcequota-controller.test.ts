import { after, before, describe, it } from 'node:test';
import type { KubeObject } from '../../client/types.js';
import { type ControlPlane, startControlPlane } from '../../index.js';
import assert from '../../testing/assert.js';
import { eventually, runControllers } from '../../testing/controllers.js';
import { FakeClock } from '../../util/clock.js';
import type { ControllerManager } from '../manager.js';
import { DEFAULT_CONTROLLER_MANAGER_OPTIONS } from '../options.js';
import { resourceQuotaController } from './index.js';

/**
 * The controller's counting alone: ResourceQuota admission would refuse (and charge) the objects these tests make to
 * watch the controller count them. test/integration/admission-builtin-plugins.test.ts covers the two together.
 */
const ONLY_THE_CONTROLLER = { disablePlugins: ['ResourceQuota'] };

let cp: ControlPlane;
let manager: ControllerManager;
const NS = 'quota-test';

function pod(name: string, resources: Record<string, Record<string, string>>, extra: Record<string, unknown> = {}) {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: NS },
    spec: { containers: [{ name: 'c', image: 'nginx:1.27', resources }], ...extra },
  };
}

async function quotaStatus(name: string): Promise<{ hard?: Record<string, string>; used?: Record<string, string> }> {
  const q = await cp.client.resourceQuotas(NS).get(name);
  return q.status ?? {};
}

describe('resourcequota-controller', () => {
  before(async () => {
    cp = await startControlPlane({ storage: 'memory', admission: ONLY_THE_CONTROLLER });
    await cp.client.namespaces().create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
    manager = await runControllers(cp, [resourceQuotaController]);
  });
  after(async () => {
    await manager?.stop();
    await cp?.stop();
  });

  it('mirrors spec.hard and counts objects and pod compute requests in status.used', async () => {
    const hard = {
      pods: '10',
      configmaps: '5',
      services: '3',
      'services.nodeports': '4',
      'requests.cpu': '2',
      'requests.memory': '2Gi',
      'limits.memory': '4Gi',
      'count/deployments.apps': '2',
      'example.com/unmeasured': '1',
    };
    await cp.client.resourceQuotas(NS).create({
      apiVersion: 'v1',
      kind: 'ResourceQuota',
      metadata: { name: 'compute' },
      spec: { hard },
    });
    await eventually(async () => {
      const status = await quotaStatus('compute');
      assert.deepEqual(status.hard, hard);
      assert.deepEqual(status.used, {
        configmaps: '0',
        'count/deployments.apps': '0',
        'limits.memory': '0',
        pods: '0',
        'requests.cpu': '0',
        'requests.memory': '0',
        services: '0',
        'services.nodeports': '0',
      });
    });

    await cp.client.pods(NS).create(pod('a', { requests: { cpu: '500m', memory: '512Mi' } }));
    await cp.client.pods(NS).create(
      pod(
        'b',
        { requests: { cpu: '250m', memory: '1Gi' }, limits: { memory: '2Gi' } },
        {
          initContainers: [{ name: 'init', image: 'busybox', resources: { requests: { cpu: '1' } } }],
        },
      ),
    );
    await cp.client.configMaps(NS).create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm' } });
    await cp.client.services(NS).create({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'svc' },
      spec: {
        type: 'NodePort',
        ports: [
          { name: 'a', port: 80 },
          { name: 'b', port: 81 },
        ],
      },
    });
    await cp.client.deployments(NS).create({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web' },
      spec: {
        selector: { matchLabels: { app: 'web' } },
        template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } },
      },
    });

    // Pod b's init container needs a whole cpu, more than its regular container: it is charged 1.
    await eventually(async () => {
      const { used } = await quotaStatus('compute');
      assert.deepEqual(used, {
        configmaps: '1',
        'count/deployments.apps': '1',
        'limits.memory': '2Gi',
        pods: '2',
        'requests.cpu': '1500m',
        'requests.memory': '1536Mi',
        services: '1',
        'services.nodeports': '2',
      });
    });

    // A pod that has finished is no longer charged compute resources.
    const a = await cp.client.pods(NS).get('a');
    await cp.client.pods(NS).updateStatus({ ...a, status: { ...a.status, phase: 'Succeeded' } });
    await eventually(async () => {
      const { used } = await quotaStatus('compute');
      assert.equal(used?.pods, '1');
      assert.equal(used?.['requests.cpu'], '1');
      assert.equal(used?.['requests.memory'], '1Gi');
    });

    await cp.client.pods(NS).delete('b', { gracePeriodSeconds: 0 });
    await cp.client.configMaps(NS).delete('cm');
    await eventually(async () => {
      const { used } = await quotaStatus('compute');
      assert.equal(used?.pods, '0');
      assert.equal(used?.['requests.cpu'], '0');
      assert.equal(used?.['limits.memory'], '0');
      assert.equal(used?.configmaps, '0');
    });
  });

  it('follows a change of spec.hard', async () => {
    await cp.client.resourceQuotas(NS).create({
      apiVersion: 'v1',
      kind: 'ResourceQuota',
      metadata: { name: 'counts' },
      spec: { hard: { services: '5' } },
    });
    await eventually(async () => assert.deepEqual((await quotaStatus('counts')).used, { services: '1' }));
    const q = (await cp.client.resourceQuotas(NS).get('counts')) as KubeObject;
    q.spec = { hard: { services: '5', secrets: '7' } };
    await cp.client.resourceQuotas(NS).update(q);
    await eventually(async () => {
      const status = await quotaStatus('counts');
      assert.deepEqual(status.hard, { secrets: '7', services: '5' });
      assert.deepEqual(status.used, { secrets: '0', services: '1' });
    });
  });

  it('counts only pods inside the quota scopes', async () => {
    await cp.client.resourceQuotas(NS).create({
      apiVersion: 'v1',
      kind: 'ResourceQuota',
      metadata: { name: 'best-effort' },
      spec: { hard: { pods: '5' }, scopes: ['BestEffort'] },
    });
    await cp.client.resourceQuotas(NS).create({
      apiVersion: 'v1',
      kind: 'ResourceQuota',
      metadata: { name: 'terminating' },
      spec: { hard: { pods: '5', 'requests.cpu': '4' }, scopes: ['Terminating'] },
    });
    await cp.client.pods(NS).create(pod('plain', {}));
    await cp.client.pods(NS).create(pod('deadline', { requests: { cpu: '100m' } }, { activeDeadlineSeconds: 60 }));
    await eventually(async () => {
      assert.deepEqual((await quotaStatus('best-effort')).used, { pods: '1' });
      assert.deepEqual((await quotaStatus('terminating')).used, { pods: '1', 'requests.cpu': '100m' });
    });
  });
});

describe('resourcequota-controller full resync', () => {
  let cp2: ControlPlane;
  let manager2: ControllerManager;
  const clock = new FakeClock(Date.now());

  before(async () => {
    cp2 = await startControlPlane({ storage: 'memory', admission: ONLY_THE_CONTROLLER });
    await cp2.client.namespaces().create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
    manager2 = await runControllers(cp2, [resourceQuotaController], { clock });
  });
  after(async () => {
    await manager2?.stop();
    await cp2?.stop();
  });

  it('stops charging a pod stuck terminating past its grace period on the next full recalculation', async () => {
    await cp2.client.resourceQuotas(NS).create({
      apiVersion: 'v1',
      kind: 'ResourceQuota',
      metadata: { name: 'pods' },
      spec: { hard: { pods: '3', 'count/pods': '3' } },
    });
    await cp2.client.pods(NS).create({
      ...pod('stuck', {}),
      metadata: { name: 'stuck', namespace: NS, finalizers: ['example.com/hold'] },
      spec: { nodeName: 'node-1', containers: [{ name: 'c', image: 'nginx:1.27' }] },
    });
    await eventually(async () => assert.deepEqual((await quotaStatus2('pods')).used, { 'count/pods': '1', pods: '1' }));
    await cp2.client.pods(NS).delete('stuck', { gracePeriodSeconds: 30 });
    const stuck = await cp2.client.pods(NS).get('stuck');
    assert.ok(stuck.metadata.deletionTimestamp);
    // Still inside its grace period: charged.
    await eventually(async () => assert.deepEqual((await quotaStatus2('pods')).used, { 'count/pods': '1', pods: '1' }));
    // Nothing changes on the pod once the grace period is over; the periodic full recalculation notices.
    clock.step(DEFAULT_CONTROLLER_MANAGER_OPTIONS.resourceQuotaSyncPeriodMs);
    await eventually(async () => assert.deepEqual((await quotaStatus2('pods')).used, { 'count/pods': '1', pods: '0' }));
    await cp2.client.pods(NS).patch('stuck', 'merge', { metadata: { finalizers: null } });
  });

  /** The quota's status; moves the clock on a little first, so that retries after a conflict come due. */
  async function quotaStatus2(name: string): Promise<{ used?: Record<string, string> }> {
    clock.step(100);
    return (await cp2.client.resourceQuotas(NS).get(name)).status ?? {};
  }
});
