import { after, before, describe, it } from 'node:test';
import { type ControlPlane, startControlPlane } from '../../src/index.js';
import { apiRequest, kubectl } from '../../src/testing/api-client.js';
import assert from '../../src/testing/assert.js';

const V2 = '/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers';
const V1 = '/apis/autoscaling/v1/namespaces/default/horizontalpodautoscalers';

describe('apiserver: HorizontalPodAutoscalers in autoscaling/v1 and v2, stored once', () => {
  let cp: ControlPlane;
  before(async () => {
    cp = await startControlPlane();
  });
  after(async () => {
    await cp?.stop();
  });

  it('serves a v2 object as v1 and keeps what v1 cannot say through a v1 update', async () => {
    const created = await apiRequest(cp, 'POST', V2, {
      body: {
        metadata: { name: 'web' },
        spec: {
          scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
          maxReplicas: 5,
          metrics: [
            { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 60 } } },
            { type: 'Resource', resource: { name: 'memory', target: { type: 'AverageValue', averageValue: '500Mi' } } },
          ],
          behavior: { scaleDown: { stabilizationWindowSeconds: 120 } },
        },
      },
    });
    assert.equal(created.status, 201, created.text);
    assert.equal(created.body.spec.minReplicas, 1);
    const v1 = (await apiRequest(cp, 'GET', `${V1}/web`)).body;
    assert.equal(v1.apiVersion, 'autoscaling/v1');
    assert.equal(v1.spec.targetCPUUtilizationPercentage, 60);
    assert.equal(v1.spec.metrics, undefined);
    const kept = JSON.parse(v1.metadata.annotations['autoscaling.alpha.kubernetes.io/metrics']);
    assert.equal(kept[0].resource.name, 'memory');
    v1.spec.maxReplicas = 7;
    const updated = await apiRequest(cp, 'PUT', `${V1}/web`, { body: v1 });
    assert.equal(updated.status, 200, updated.text);
    const v2 = (await apiRequest(cp, 'GET', `${V2}/web`)).body;
    assert.equal(v2.spec.maxReplicas, 7);
    assert.equal(v2.spec.metrics.length, 2);
    assert.equal(v2.spec.metrics[1].resource.name, 'memory');
    // A behavior given is filled in with upstream's scaling rules; scale-down's window stays as given.
    assert.deepEqual(v2.spec.behavior, {
      scaleUp: {
        stabilizationWindowSeconds: 0,
        selectPolicy: 'Max',
        policies: [
          { type: 'Pods', value: 4, periodSeconds: 15 },
          { type: 'Percent', value: 100, periodSeconds: 15 },
        ],
      },
      scaleDown: {
        stabilizationWindowSeconds: 120,
        selectPolicy: 'Max',
        policies: [{ type: 'Percent', value: 100, periodSeconds: 15 }],
      },
    });
    assert.equal(v2.metadata.annotations, undefined, 'the v1 annotations do not leak into v2');
  });

  it('creates through v1 with the CPU target as a v2 metric, and prints the columns kubectl shows', async () => {
    const res = await apiRequest(cp, 'POST', V1, {
      body: {
        metadata: { name: 'api' },
        spec: {
          scaleTargetRef: { kind: 'Deployment', name: 'api' },
          maxReplicas: 3,
          targetCPUUtilizationPercentage: 75,
        },
      },
    });
    assert.equal(res.status, 201, res.text);
    const v2 = (await apiRequest(cp, 'GET', `${V2}/api`)).body;
    assert.deepEqual(v2.spec.metrics, [
      { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 75 } } },
    ]);
    const bad = await apiRequest(cp, 'POST', V2, {
      body: {
        metadata: { name: 'bad' },
        spec: { scaleTargetRef: { kind: 'Deployment', name: 'x' }, minReplicas: 4, maxReplicas: 2 },
      },
    });
    assert.equal(bad.status, 422);
    assert.match(
      bad.body.message,
      /spec.maxReplicas: Invalid value: 2: must be greater than or equal to `minReplicas`/,
    );
    const out = await kubectl(cp, ['get', 'hpa']);
    assert.equal(out.code, 0, out.stderr);
    assert.match(out.stdout, /^NAME\s+REFERENCE\s+TARGETS\s+MINPODS\s+MAXPODS\s+REPLICAS\s+AGE$/m);
    assert.match(out.stdout, /^api\s+Deployment\/api\s+cpu: <unknown>\/75%\s+1\s+3\s+0\s+/m);
  });

  it("refuses specs upstream's validation refuses, with its messages", async () => {
    const refused = async (spec: Record<string, unknown>) => {
      const res = await apiRequest(cp, 'POST', V2, {
        body: { metadata: { name: 'invalid' }, spec: { scaleTargetRef: { kind: 'Deployment', name: 'x' }, ...spec } },
      });
      assert.equal(res.status, 422, res.text);
      assert.equal(res.body.reason, 'Invalid');
      return (res.body.details.causes as { field: string; message: string }[]).map((c) => `${c.field}: ${c.message}`);
    };
    assert.deepEqual(await refused({ minReplicas: 0, maxReplicas: 0 }), [
      'spec.minReplicas: Invalid value: 0: must be greater than or equal to 1',
      'spec.maxReplicas: Invalid value: 0: must be greater than 0',
      'spec.metrics: Forbidden: must specify at least one Object or External metric to support scaling to zero replicas',
    ]);
    assert.deepEqual(await refused({ minReplicas: 3, maxReplicas: 2 }), [
      'spec.maxReplicas: Invalid value: 2: must be greater than or equal to `minReplicas`',
    ]);
    assert.deepEqual(await refused({ maxReplicas: 2, scaleTargetRef: { kind: 'Deploy/ment', name: '' } }), [
      'spec.scaleTargetRef.kind: Invalid value: "Deploy/ment": may not contain \'/\'',
      'spec.scaleTargetRef.name: Required value',
    ]);
    const metric = (m: unknown) => refused({ maxReplicas: 2, metrics: [m] });
    assert.deepEqual(await metric({ type: 'Resource' }), [
      'spec.metrics[0].resource: Required value: must populate information for the given metric source',
    ]);
    assert.deepEqual(await metric({ type: 'Cpu' }), [
      'spec.metrics[0].type: Unsupported value: "Cpu": supported values: "ContainerResource", "External", "Object", "Pods", "Resource"',
      'spec.metrics[0].type: Unsupported value: "Cpu": supported values: "ContainerResource", "External", "Object", "Pods", "Resource"',
    ]);
    // Only the first source given (in the struct's order) is looked into; the others are refused.
    assert.deepEqual(
      await metric({
        type: 'Resource',
        resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 0 } },
        pods: { metric: { name: 'qps' }, target: { type: 'AverageValue', averageValue: '1' } },
      }),
      ['spec.metrics[0].pods: Forbidden: must populate the given metric source only'],
    );
    // A bad quantity is shown as upstream's field.Invalid prints a *resource.Quantity.
    assert.deepEqual(
      await metric({
        type: 'Resource',
        resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 0, averageValue: '-1' } },
      }),
      [
        'spec.metrics[0].resource.target.averageValue: Invalid value: resource.Quantity{i:resource.int64Amount{value:-1, scale:0}, d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:"-1", Format:"DecimalSI"}: must be positive',
        'spec.metrics[0].resource.target.averageUtilization: Invalid value: 0: must be greater than 0',
        'spec.metrics[0].resource.target.averageValue: Forbidden: may not set both a target raw value and a target utilization',
      ],
    );
    assert.deepEqual(
      await metric({ type: 'Pods', pods: { metric: { name: '' }, target: { type: 'Value', value: '0' } } }),
      [
        'spec.metrics[0].pods.metric.name: Required value: must specify a metric name',
        'spec.metrics[0].pods.target.value: Invalid value: resource.Quantity{i:resource.int64Amount{value:0, scale:0}, d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:"0", Format:"DecimalSI"}: must be positive',
        'spec.metrics[0].pods.target.averageValue: Required value: must specify a positive target averageValue',
      ],
    );
    assert.deepEqual(
      await metric({
        type: 'ContainerResource',
        containerResource: { name: 'gpu', container: 'App', target: { type: 'Utilization', averageUtilization: 50 } },
      }),
      [
        'spec.metrics[0].containerResource.name: Invalid value: "gpu": must be a standard resource type or fully qualified',
        'spec.metrics[0].containerResource.name: Invalid value: "gpu": must be a standard resource for containers',
        "spec.metrics[0].containerResource.container: Invalid value: \"App\": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
      ],
    );
    assert.deepEqual(
      await refused({
        maxReplicas: 2,
        behavior: {
          scaleUp: { stabilizationWindowSeconds: 4000, selectPolicy: 'Fastest', policies: [] },
          scaleDown: { policies: [{ type: 'Pods', value: 0, periodSeconds: 1801 }] },
        },
      }),
      [
        'spec.behavior.scaleUp.stabilizationWindowSeconds: Invalid value: 4000: must be less than or equal to 3600',
        'spec.behavior.scaleUp.selectPolicy: Unsupported value: "Fastest": supported values: "Disabled", "Max", "Min"',
        'spec.behavior.scaleUp.policies: Required value: must specify at least one Policy',
        'spec.behavior.scaleDown.policies[0].value: Invalid value: 0: must be greater than zero',
        'spec.behavior.scaleDown.policies[0].periodSeconds: Invalid value: 1801: must be less than or equal to 1800',
      ],
    );
    // Status writes keep replica counts non-negative.
    const made = await apiRequest(cp, 'POST', V2, {
      body: {
        metadata: { name: 'counted' },
        spec: { scaleTargetRef: { kind: 'Deployment', name: 'x' }, maxReplicas: 2 },
      },
    });
    assert.equal(made.status, 201, made.text);
    const status = await apiRequest(cp, 'PATCH', `${V2}/counted/status`, {
      body: { status: { currentReplicas: -1, desiredReplicas: 0 } },
      contentType: 'application/merge-patch+json',
    });
    assert.equal(status.status, 422, status.text);
    assert.match(status.body.message, /status\.currentReplicas: Invalid value: -1: must be greater than or equal to 0/);
  });

  it('drops the alpha per-direction tolerance, as upstream does while HPAConfigurableTolerance is off', async () => {
    const made = await apiRequest(cp, 'POST', V2, {
      body: {
        metadata: { name: 'tolerant' },
        spec: {
          scaleTargetRef: { kind: 'Deployment', name: 'x' },
          maxReplicas: 3,
          behavior: { scaleUp: { tolerance: '0.05' }, scaleDown: { tolerance: '0.1', stabilizationWindowSeconds: 60 } },
        },
      },
    });
    assert.equal(made.status, 201, made.text);
    assert.equal(made.body.spec.behavior.scaleUp.tolerance, undefined);
    assert.equal(made.body.spec.behavior.scaleDown.tolerance, undefined);
    assert.equal(made.body.spec.behavior.scaleDown.stabilizationWindowSeconds, 60);
    const hpa = made.body;
    hpa.spec.behavior.scaleUp.tolerance = '0.2';
    const updated = await apiRequest(cp, 'PUT', `${V2}/tolerant`, { body: hpa });
    assert.equal(updated.status, 200, updated.text);
    assert.equal(updated.body.spec.behavior.scaleUp.tolerance, undefined);
  });

  it('answers a Table for a v1 object whose kept metrics annotation holds a null, without a 500', async () => {
    const res = await apiRequest(cp, 'POST', V1, {
      body: {
        metadata: { name: 'odd', annotations: { 'autoscaling.alpha.kubernetes.io/metrics': '[null]' } },
        spec: { scaleTargetRef: { kind: 'Deployment', name: 'odd' }, maxReplicas: 3 },
      },
    });
    assert.ok(res.status < 500, res.text);
    const table = await apiRequest(cp, 'GET', V1, {
      headers: { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' },
    });
    assert.equal(table.status, 200, JSON.stringify(table.body).slice(0, 600));
  });
});
