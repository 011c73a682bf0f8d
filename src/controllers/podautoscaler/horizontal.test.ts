import { after, before, describe, it } from 'node:test';
import type { KubeObject } from '../../client/types.js';
import { type ControlPlane, startControlPlane } from '../../index.js';
import { apiRequest } from '../../testing/api-client.js';
import assert from '../../testing/assert.js';
import { eventually, runControllers } from '../../testing/controllers.js';
import { deploymentManifest } from '../../testing/deployment-fixtures.js';
import type { ControllerManager } from '../manager.js';
import { horizontalPodAutoscalerController } from './index.js';
import { goLabelSelectorString } from './metrics.js';

const NS = 'default';
const HPAS = { group: 'autoscaling', version: 'v2', resource: 'horizontalpodautoscalers' };
const CPU_50 = { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50 } } };
/** The target has no running pods: the metrics API has nothing for them. */
const NO_POD_METRICS = 'unable to get metrics for resource cpu: no metrics returned from resource metrics API';

describe('horizontal-pod-autoscaler-controller', () => {
  let cp: ControlPlane;
  let manager: ControllerManager;

  async function deployment(name: string, replicas: number): Promise<void> {
    await cp.client.deployments(NS).create(deploymentManifest(name, { replicas }));
  }

  async function hpa(name: string, spec: Record<string, unknown>): Promise<void> {
    await cp.client
      .resource(HPAS)
      .namespace(NS)
      .create({
        apiVersion: 'autoscaling/v2',
        kind: 'HorizontalPodAutoscaler',
        metadata: { name },
        spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name }, maxReplicas: 5, ...spec },
      });
  }

  const getHpa = (name: string) => cp.client.resource(HPAS).namespace(NS).get(name);
  const replicas = async (name: string) => (await cp.client.deployments(NS).get(name)).spec?.replicas;
  type Condition = { type: string; status: string; reason: string; message: string };
  const condition = (obj: KubeObject, type: string) =>
    ((obj.status?.conditions ?? []) as Condition[]).find((c) => c.type === type);

  /** The HPA's events as `type reason: message`. */
  async function events(name: string): Promise<string[]> {
    const list = await cp.client.events(NS).list({ fieldSelector: `involvedObject.name=${name}` });
    return list.items
      .filter((e) => e.involvedObject?.kind === 'HorizontalPodAutoscaler')
      .map((e) => `${e.type} ${e.reason}: ${e.message}`);
  }

  before(async () => {
    cp = await startControlPlane({ storage: 'memory' });
    manager = await runControllers(cp, [horizontalPodAutoscalerController], {
      options: { horizontalPodAutoscalerSyncPeriodMs: 100 },
    });
  });
  after(async () => {
    await manager?.stop();
    await cp?.stop();
  });

  it('scales a target below minReplicas up to it, and says so in an event, a condition and the status', async () => {
    await deployment('small', 1);
    await hpa('small', { minReplicas: 3, metrics: [CPU_50] });
    await eventually(async () => assert.equal(await replicas('small'), 3));
    await eventually(async () => {
      assert.ok(
        (await events('small')).includes(
          'Normal SuccessfulRescale: New size: 3; reason: Current number of replicas below Spec.MinReplicas',
        ),
      );
    });
    const status = (await getHpa('small')).status ?? {};
    assert.equal(typeof status.lastScaleTime, 'string');
    assert.equal(status.desiredReplicas, 3);
  });

  it('scales a target above maxReplicas down to it', async () => {
    await deployment('big', 8);
    await hpa('big', { minReplicas: 1, maxReplicas: 4, metrics: [CPU_50] });
    await eventually(async () => assert.equal(await replicas('big'), 4));
    await eventually(async () => {
      assert.ok(
        (await events('big')).includes(
          'Normal SuccessfulRescale: New size: 4; reason: Current number of replicas above Spec.MaxReplicas',
        ),
      );
    });
  });

  it('leaves a target at zero replicas alone: scaling is disabled', async () => {
    await deployment('idle', 0);
    await hpa('idle', { minReplicas: 2, metrics: [CPU_50] });
    await eventually(async () => {
      const c = condition(await getHpa('idle'), 'ScalingActive');
      assert.deepEqual(
        { status: c?.status, reason: c?.reason, message: c?.message },
        {
          status: 'False',
          reason: 'ScalingDisabled',
          message: 'scaling is disabled since the replica count of the target is zero',
        },
      );
    });
    assert.equal(await replicas('idle'), 0);
    assert.equal((await getHpa('idle')).status?.desiredReplicas, 0);
  });

  it('within its bounds, reports each metric it cannot read with upstream errors (no pod metrics, no custom or external metrics API)', async () => {
    await deployment('web', 2);
    await hpa('web', {
      minReplicas: 1,
      metrics: [
        CPU_50,
        { type: 'Pods', pods: { metric: { name: 'rps' }, target: { type: 'AverageValue', averageValue: '10' } } },
        {
          type: 'Object',
          object: {
            describedObject: { apiVersion: 'v1', kind: 'Service', name: 'web' },
            metric: { name: 'hits' },
            target: { type: 'Value', value: '10' },
          },
        },
        {
          type: 'External',
          external: {
            metric: { name: 'queue', selector: { matchLabels: { q: 'jobs' } } },
            target: { type: 'Value', value: '5' },
          },
        },
      ],
    });
    const cpuError = `failed to get cpu utilization: ${NO_POD_METRICS}`;
    await eventually(async () => {
      const got = await getHpa('web');
      assert.deepEqual(
        ((got.status?.conditions ?? []) as { type: string; status: string; reason: string; message: string }[]).map(
          (c) => [c.type, c.status, c.reason, c.message],
        ),
        [
          ['AbleToScale', 'True', 'SucceededGetScale', "the HPA controller was able to get the target's current scale"],
          [
            'ScalingActive',
            'False',
            'FailedGetResourceMetric',
            `the HPA was unable to compute the replica count: ${cpuError}`,
          ],
        ],
      );
      // One empty status per metric (upstream's zero MetricStatus), the replica counts as found.
      assert.deepEqual(got.status?.currentMetrics, [{ type: '' }, { type: '' }, { type: '' }, { type: '' }]);
      assert.equal(got.status?.currentReplicas, 2);
    });
    await eventually(async () => {
      const seen = await events('web');
      for (const expected of [
        `Warning FailedGetResourceMetric: ${cpuError}`,
        'Warning FailedGetPodsMetric: unable to get metric rps: unable to fetch metrics from custom metrics API: ' +
          'no custom metrics API (custom.metrics.k8s.io) registered',
        // Upstream's format string takes its arguments out of order: this is the text it prints.
        'Warning FailedGetObjectMetric: unable to get metric hits: Service on default web/unable to fetch metrics ' +
          'from custom metrics API: no custom metrics API (custom.metrics.k8s.io) registered',
        'Warning FailedGetExternalMetric: unable to get external metric default/queue/' +
          '&LabelSelector{MatchLabels:map[string]string{q: jobs,},MatchExpressions:[]LabelSelectorRequirement{},}: ' +
          'unable to fetch metrics from external metrics API: the server could not find the requested resource ' +
          '(get queue.external.metrics.k8s.io)',
        `Warning FailedComputeMetricsReplicas: invalid metrics (4 invalid out of 4), first error is: failed to get cpu resource metric value: ${cpuError}`,
      ]) {
        assert.ok(seen.includes(expected), `missing event: ${expected}\nseen: ${seen.join('\n')}`);
      }
    });
    assert.equal(await replicas('web'), 2);
  });

  it('cannot read a missing or unknown target: FailedGetScale', async () => {
    await hpa('ghost', { minReplicas: 1, metrics: [CPU_50] });
    await hpa('widget', { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Widget', name: 'w' }, maxReplicas: 2 });
    await eventually(async () => {
      const c = condition(await getHpa('ghost'), 'AbleToScale');
      assert.equal(c?.reason, 'FailedGetScale');
      assert.equal(
        c?.message,
        `the HPA controller was unable to get the target's current scale: deployments.apps "ghost" not found`,
      );
      assert.ok((await events('ghost')).includes('Warning FailedGetScale: deployments.apps "ghost" not found'));
      assert.ok(
        (await events('widget')).includes('Warning FailedGetScale: no matches for kind "Widget" in group "apps"'),
      );
    });
  });

  it('refuses a selector that two HPAs share', async () => {
    await deployment('shared', 1);
    await cp.client.pods(NS).create({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'shared-pod', labels: { app: 'shared' } },
      spec: { containers: [{ name: 'c', image: 'nginx' }] },
    });
    await hpa('shared', { minReplicas: 1, metrics: [CPU_50] });
    await hpa('shared-too', {
      scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'shared' },
      metrics: [CPU_50],
    });
    const message = 'pods by selector app=shared are controlled by multiple HPAs: [default/shared default/shared-too]';
    await eventually(async () => {
      for (const name of ['shared', 'shared-too']) {
        const c = condition(await getHpa(name), 'ScalingActive');
        assert.deepEqual([c?.reason, c?.message], ['AmbiguousSelector', message]);
      }
      assert.ok((await events('shared')).includes(`Warning AmbiguousSelector: ${message}`));
    });
  });

  /** A pod of the app, running (as a kubelet reports it) for ten minutes and using `cpu` per its annotation. */
  async function runningPod(name: string, app: string, cpu: string): Promise<void> {
    const long = new Date(Date.now() - 600_000).toISOString().replace(/\.\d+Z$/, 'Z');
    const pod = await cp.client.pods(NS).create({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name, labels: { app }, annotations: { 'sim.wheelhouse.dev/cpu-usage': cpu } },
      spec: {
        nodeName: 'node-a',
        containers: [{ name: 'c', image: 'nginx', resources: { requests: { cpu: '100m' } } }],
      },
    });
    pod.status = {
      phase: 'Running',
      startTime: long,
      conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: long }],
    };
    await cp.client.pods(NS).updateStatus(pod);
  }

  it('scales on CPU utilization from the metrics API, no faster than its scale-up limit', async () => {
    await deployment('busy', 2);
    await runningPod('busy-1', 'busy', '150m');
    await runningPod('busy-2', 'busy', '150m');
    await hpa('busy', { minReplicas: 1, maxReplicas: 10, metrics: [CPU_50] });
    // 150% of the request against a 50% target wants 3 × 2 = 6; without spec.behavior a step may at most double
    // (or reach 4): 2 → 4, then 4 → 6.
    await eventually(async () => assert.equal(await replicas('busy'), 6));
    await eventually(async () => {
      const got = await getHpa('busy');
      assert.deepEqual(got.status?.currentMetrics, [
        { type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: 150, averageValue: '150m' } } },
      ]);
      assert.deepEqual(
        ['ScalingActive', 'ScalingLimited'].map((t) => [condition(got, t)?.reason, condition(got, t)?.message]),
        [
          [
            'ValidMetricFound',
            'the HPA was able to successfully calculate a replica count from cpu resource utilization (percentage of request)',
          ],
          ['DesiredWithinRange', 'the desired count is within the acceptable range'],
        ],
      );
      const seen = await events('busy');
      for (const size of [4, 6]) {
        const event = `Normal SuccessfulRescale: New size: ${size}; reason: cpu resource utilization (percentage of request) above target`;
        assert.ok(seen.includes(event), `missing: ${event}\nseen: ${seen.join('\n')}`);
      }
    });
  });

  it('holds a scale-down for the stabilization window; an average value target reads raw usage', async () => {
    await deployment('calm', 2);
    await runningPod('calm-1', 'calm', '10m');
    await runningPod('calm-2', 'calm', '10m');
    await hpa('calm', {
      minReplicas: 1,
      metrics: [
        { type: 'Resource', resource: { name: 'cpu', target: { type: 'AverageValue', averageValue: '100m' } } },
      ],
    });
    // 10m against 100m wants 1 replica, but the first recommendation (the current 2) is within the window.
    await eventually(async () => {
      const got = await getHpa('calm');
      assert.deepEqual(
        [condition(got, 'AbleToScale')?.reason, condition(got, 'AbleToScale')?.message],
        [
          'ScaleDownStabilized',
          'recent recommendations were higher than current one, applying the highest recent recommendation',
        ],
      );
      assert.deepEqual(got.status?.currentMetrics, [
        { type: 'Resource', resource: { name: 'cpu', current: { averageValue: '10m' } } },
      ]);
    });
    assert.equal(await replicas('calm'), 2);
  });
});

describe('unserved API groups', () => {
  it("answer as upstream's handler chain ends (Go's plain-text 404); a served group version answers a Status", async () => {
    const cp = await startControlPlane({ storage: 'memory' });
    try {
      const unserved = await apiRequest(cp, 'GET', '/apis/custom.metrics.k8s.io/v1beta2/namespaces/default/pods/*/rps');
      assert.equal(unserved.status, 404);
      assert.equal(unserved.headers['content-type'], 'text/plain; charset=utf-8');
      assert.equal(unserved.text, '404 page not found\n');
      const served = await apiRequest(cp, 'GET', '/apis/apps/v1/namespaces/default/widgets');
      assert.equal(served.status, 404);
      assert.deepEqual([served.body.kind, served.body.reason], ['Status', 'NotFound']);
      // A client then names the resource itself, as client-go does.
      const err = await cp.client
        .resource({ group: 'external.metrics.k8s.io', version: 'v1beta1', resource: 'queue' })
        .namespace('default')
        .list()
        .catch((e: unknown) => e as Error);
      assert.equal(
        (err as Error).message,
        'the server could not find the requested resource (get queue.external.metrics.k8s.io)',
      );
    } finally {
      await cp.stop();
    }
  });
});

describe("Go's %+v of a label selector", () => {
  it('is its generated String: sorted labels, expressions with their values', () => {
    assert.equal(goLabelSelectorString(undefined), 'nil');
    assert.equal(
      goLabelSelectorString({
        matchLabels: { b: '2', a: '1' },
        matchExpressions: [{ key: 'env', operator: 'In', values: ['x', 'y'] }],
      }),
      '&LabelSelector{MatchLabels:map[string]string{a: 1,b: 2,},' +
        'MatchExpressions:[]LabelSelectorRequirement{LabelSelectorRequirement{Key:env,Operator:In,Values:[x y],},},}',
    );
  });
});
