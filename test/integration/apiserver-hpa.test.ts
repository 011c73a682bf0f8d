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
    assert.deepEqual(v2.spec.behavior, { scaleDown: { stabilizationWindowSeconds: 120 } });
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
