import { request } from 'node:https';
import { after, before, describe, it } from 'node:test';
import type { KubeObject } from '../client/types.js';
import { type ControlPlane, startControlPlane } from '../index.js';
import assert from '../testing/assert.js';
import { eventually } from '../testing/controllers.js';
import { defaultProfile } from './config/defaults.js';
import { fetchVerdicts, formatVerdicts } from './explain.js';
import { IN_TREE_PLUGINS } from './plugins/registry.js';
import { Scheduler } from './scheduler.js';
import { createNode, podManifest } from './test-fixtures.js';

function httpsGet(url: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { rejectUnauthorized: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c) => {
        body += c;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

async function eventsFor(cp: ControlPlane, pod: string) {
  const list = await cp.client.events('default').list();
  return list.items.filter((e) => e.involvedObject?.name === pod);
}

describe('Scheduler against a control plane', () => {
  let cp: ControlPlane;
  let scheduler: Scheduler;

  before(async () => {
    cp = await startControlPlane({ storage: 'memory' });
    for (const name of ['node-1', 'node-2', 'node-3']) await createNode(cp, name);
    const binPacking = defaultProfile({ schedulerName: 'bin-packing' });
    scheduler = new Scheduler({
      client: cp.client,
      registry: IN_TREE_PLUGINS,
      profiles: [defaultProfile({}), binPacking],
      leaderElect: false,
      secureServing: { bindAddress: '127.0.0.1', port: 0 },
    });
    await scheduler.start();
  });

  after(async () => {
    await scheduler?.stop();
    await cp?.stop();
  });

  it('binds pods to nodes and records Scheduled events', async () => {
    for (let i = 1; i <= 3; i++) await cp.client.pods('default').create(podManifest(`web-${i}`, '500m'));
    const bound = await eventually(async () => {
      const pods = (await cp.client.pods('default').list({ labelSelector: 'app=web' })).items;
      const names = pods.filter((p) => p.metadata.name?.startsWith('web-')).map((p) => p.spec.nodeName);
      assert.equal(names.filter(Boolean).length, 3);
      return pods;
    });
    for (const pod of bound) {
      const scheduled = pod.status.conditions?.find((c: { type: string }) => c.type === 'PodScheduled');
      assert.equal(scheduled?.status, 'True');
    }
    const pod = bound.find((p) => p.metadata.name === 'web-1') as KubeObject;
    await eventually(async () => {
      const events = await eventsFor(cp, 'web-1');
      const e = events.find((x) => x.reason === 'Scheduled');
      assert.ok(e, 'Scheduled event');
      assert.equal(e.type, 'Normal');
      assert.equal(e.message, `Successfully assigned default/web-1 to ${pod.spec.nodeName}`);
      assert.equal(e.source?.component, 'default-scheduler');
    });
    const v = scheduler.verdictsFor('default', 'web-1');
    assert.equal(v?.result, 'Scheduled');
    assert.equal(v?.nodeName, pod.spec.nodeName);
    assert.equal(v?.nodes.length, 3);
    assert.ok(v?.nodes.every((n) => n.feasible && n.filters.NodeResourcesFit === 'ok' && n.totalScore !== undefined));
  });

  it('leaves a pod no node fits Pending with PodScheduled=False/Unschedulable and a FailedScheduling event', async () => {
    await cp.client.pods('default').create(podManifest('big', '100'));
    const condition = await eventually(async () => {
      const pod = await cp.client.pods('default').get('big');
      const c = pod.status.conditions?.find((x: { type: string }) => x.type === 'PodScheduled');
      assert.ok(c, 'PodScheduled condition');
      return c;
    });
    assert.equal(condition.status, 'False');
    assert.equal(condition.reason, 'Unschedulable');
    // A condition's times are Go structs: one the scheduler's patch leaves out is stored as null, as upstream shows it.
    assert.ok(Object.hasOwn(condition, 'lastProbeTime') && condition.lastProbeTime === null, JSON.stringify(condition));
    assert.match(
      condition.message,
      /^0\/3 nodes are available: 3 Insufficient cpu\. preemption: 0\/3 nodes are available: /,
    );
    const event = await eventually(async () => {
      const e = (await eventsFor(cp, 'big')).find((x) => x.reason === 'FailedScheduling');
      assert.ok(e);
      return e;
    });
    assert.equal(event.type, 'Warning');
    assert.equal(event.message, condition.message);
    const pod = await cp.client.pods('default').get('big');
    assert.equal(pod.spec.nodeName, undefined);
    assert.equal(pod.status.phase, 'Pending');

    const v = scheduler.verdictsFor('default', 'big');
    assert.equal(v?.result, 'Unschedulable');
    assert.equal(v?.message, condition.message);
    assert.deepEqual(
      v?.nodes.map((n) => [n.node, n.filters.NodeResourcesFit, n.filters.InterPodAffinity]),
      [
        ['node-1', 'Insufficient cpu', 'skip'],
        ['node-2', 'Insufficient cpu', 'skip'],
        ['node-3', 'Insufficient cpu', 'skip'],
      ],
    );
    const text = formatVerdicts(v as NonNullable<typeof v>);
    assert.match(text, /^Pod default\/big \(scheduler default-scheduler\), attempt \d+ at .*: Unschedulable/);
    assert.match(text, /node-2 +ok +ok +ok +skip +skip +Insufficient cpu +skip +skip +skip\n/);
    assert.match(text, /VolumeRestrictions, NodeVolumeLimits, VolumeZone: not evaluated until volumes exist\./);
  });

  it('serves verdicts, health and metrics on its secure port', async () => {
    const url = scheduler.url as string;
    const verdicts = await httpsGet(`${url}/debug/verdicts/default/big`);
    assert.equal(verdicts.status, 200);
    const body = JSON.parse(verdicts.body);
    assert.equal(body.pod.name, 'big');
    assert.equal(body.nodes[0].filters.NodeResourcesFit, 'Insufficient cpu');
    assert.equal((await httpsGet(`${url}/debug/verdicts/default/nope`)).status, 404);
    assert.equal((await fetchVerdicts(url, 'default', 'big'))?.result, 'Unschedulable');
    assert.equal(await fetchVerdicts(url, 'default', 'nope'), undefined);
    assert.deepEqual(await httpsGet(`${url}/healthz`), { status: 200, body: 'ok' });
    assert.equal((await httpsGet(`${url}/readyz`)).status, 200);
    const metrics = (await httpsGet(`${url}/metrics`)).body;
    assert.match(metrics, /scheduler_schedule_attempts_total\{result="scheduled",profile="default-scheduler"\} [1-9]/);
    assert.match(
      metrics,
      /scheduler_schedule_attempts_total\{result="unschedulable",profile="default-scheduler"\} [1-9]/,
    );
    assert.match(metrics, /scheduler_scheduling_attempt_duration_seconds_bucket\{le="0.001",result="scheduled"/);
    assert.match(metrics, /scheduler_pending_pods\{queue="unschedulable"\} 1/);
  });

  it('ignores pods of other schedulers', async () => {
    await cp.client.pods('default').create(podManifest('other', '100m', { schedulerName: 'my-scheduler' }));
    await cp.client.pods('default').create(podManifest('after-other', '100m'));
    await eventually(async () => assert.ok((await cp.client.pods('default').get('after-other')).spec.nodeName));
    const other = await cp.client.pods('default').get('other');
    assert.equal(other.spec.nodeName, undefined);
    assert.equal(other.status.conditions, undefined);
    assert.equal(scheduler.verdictsFor('default', 'other'), undefined);
  });

  it('schedules the waiting pod once a node that fits it appears', async () => {
    await createNode(cp, 'node-big', '128');
    const pod = await eventually(async () => {
      const p = await cp.client.pods('default').get('big');
      assert.equal(p.spec.nodeName, 'node-big');
      return p;
    });
    assert.equal(pod.spec.nodeName, 'node-big');
  });

  it("schedules pods of each profile under that profile's name", async () => {
    await cp.client.pods('default').create(podManifest('packed', '100m', { schedulerName: 'bin-packing' }));
    await eventually(async () => assert.ok((await cp.client.pods('default').get('packed')).spec.nodeName));
    assert.equal(scheduler.verdictsFor('default', 'packed')?.profile, 'bin-packing');
    await eventually(async () => {
      const e = (await eventsFor(cp, 'packed')).find((x) => x.reason === 'Scheduled');
      assert.equal(e?.source?.component, 'bin-packing');
    });
  });

  it('leaves gated pods alone until their scheduling gates are removed', async () => {
    const created = await cp.client
      .pods('default')
      .create(podManifest('gated', '100m', { schedulingGates: [{ name: 'example.com/approval' }] }));
    await new Promise((r) => setTimeout(r, 200));
    assert.equal(scheduler.verdictsFor('default', 'gated'), undefined, 'never attempted');
    assert.equal((await cp.client.pods('default').get('gated')).spec.nodeName, undefined);
    await cp.client.pods('default').patch('gated', 'json', [{ op: 'remove', path: '/spec/schedulingGates' }]);
    await eventually(async () => assert.ok((await cp.client.pods('default').get('gated')).spec.nodeName));
    assert.equal(created.metadata.name, 'gated');
  });
});
