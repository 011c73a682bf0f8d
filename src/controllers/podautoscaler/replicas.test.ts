import { describe, it } from 'node:test';
import type { KubeObject } from '../../client/types.js';
import assert from '../../testing/assert.js';
import { ScaleHistory } from './normalize.js';
import { type PodMetric, podMetricsInfo, resourceReplicas, tolerance } from './replicas.js';

const NOW = Date.parse('2026-12-07T12:00:00Z');
const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d+Z$/, 'Z');
const TIMING = { now: NOW, cpuInitializationPeriodMs: 300_000, initialReadinessDelayMs: 30_000 };

/** A pod requesting 100m CPU, started `age` ms ago and Ready since then (or as given). */
function pod(name: string, opts: { phase?: string; ready?: string; age?: number; readySince?: number } = {}) {
  const started = NOW - (opts.age ?? 600_000);
  return {
    metadata: { name },
    spec: { containers: [{ name: 'c', resources: { requests: { cpu: '100m' } } }] },
    status: {
      phase: opts.phase ?? 'Running',
      startTime: iso(started),
      conditions: [
        { type: 'Ready', status: opts.ready ?? 'True', lastTransitionTime: iso(opts.readySince ?? started) },
      ],
    },
  } as KubeObject;
}

const metrics = (values: Record<string, number>) =>
  new Map<string, PodMetric>(
    Object.entries(values).map(([k, value]) => [k, { value, timestamp: NOW, windowMs: 15_000 }]),
  );

const utilization = (pods: KubeObject[], m: Record<string, number>, current = pods.length, target = 50) =>
  resourceReplicas({
    current,
    pods,
    metrics: metrics(m),
    resource: 'cpu',
    container: '',
    target: { utilization: target },
    tolerance: tolerance(0.1),
    timing: TIMING,
  });

describe('the replica calculator (resource metrics)', () => {
  it('proposes ceil(ratio × ready pods), and the current count within the tolerance', () => {
    assert.deepEqual(utilization([pod('a'), pod('b')], { a: 150, b: 150 }), {
      replicas: 6,
      utilization: 150,
      raw: 150,
    });
    assert.equal(utilization([pod('a'), pod('b')], { a: 52, b: 54 }).replicas, 2);
    assert.equal(utilization([pod('a'), pod('b')], { a: 10, b: 10 }).replicas, 1);
  });

  it('damps a scale-down by counting pods without metrics at their full request', () => {
    // a and b use 10% of 50%: alone they would ask for 1; c, missing, counts as 100%: (10+10+100)/300 → 40% → 3.
    assert.equal(utilization([pod('a'), pod('b'), pod('c')], { a: 10, b: 10 }).replicas, 3);
  });

  it('damps a scale-up by counting unready and starting pods as using nothing', () => {
    const starting = pod('c', { age: 60_000, readySince: NOW - 5_000 });
    // a and b at 100% want 4 of 2; c (ready for less than one window) counts as 0: 200/300 → 66% → ceil(1.33×3) = 4.
    assert.equal(utilization([pod('a'), pod('b'), starting], { a: 100, b: 100, c: 300 }).replicas, 4);
    const pending = pod('d', { phase: 'Pending' });
    assert.equal(utilization([pod('a'), pending], { a: 60 }, 2).replicas, 2);
  });

  it('leaves out deleted and failed pods, and refuses pods without a request or without metrics', () => {
    assert.equal(utilization([pod('a'), pod('f', { phase: 'Failed' })], { a: 100 }, 1).replicas, 2);
    assert.throws(() => utilization([], {}), /no pods returned by selector while calculating replica count/);
    assert.throws(
      () => utilization([pod('a', { phase: 'Pending' })], { a: 10 }),
      /did not receive metrics for targeted pods \(pods might be unready\)/,
    );
    const bare = { ...pod('a'), spec: { containers: [{ name: 'c' }] } } as KubeObject;
    assert.throws(() => utilization([bare], { a: 10 }), /missing request for cpu in container c of Pod a/);
  });

  it('reads PodMetrics: containers summed, or one container; pods missing the resource left out', () => {
    const items = [
      {
        metadata: { name: 'a' },
        timestamp: '2026-12-07T12:00:00Z',
        window: '15s',
        containers: [
          { name: 'app', usage: { cpu: '250m', memory: '1Mi' } },
          { name: 'side', usage: { cpu: '1', memory: '1Mi' } },
        ],
      },
      {
        metadata: { name: 'b' },
        timestamp: '2026-12-07T12:00:00Z',
        window: '15s',
        containers: [{ name: 'app', usage: {} }],
      },
    ];
    assert.deepEqual([...podMetricsInfo(items, 'cpu', '')], [['a', { value: 1250, timestamp: NOW, windowMs: 15_000 }]]);
    assert.deepEqual([...podMetricsInfo(items, 'cpu', 'side').keys()], ['a']);
  });
});

describe('normalizing a recommendation', () => {
  it('without behavior: bounds, the scale-up limit, and the downscale stabilization window', () => {
    const h = new ScaleHistory(300_000);
    h.recordInitial('k', 3, NOW - 10_000);
    const limit = h.normalize('k', 3, 20, 1, 10, NOW);
    assert.equal(limit.replicas, 6);
    assert.deepEqual(
      limit.conditions.map((c) => [c.type, c.status, c.reason]),
      [
        ['AbleToScale', 'True', 'ReadyForNewScale'],
        ['ScalingLimited', 'True', 'ScaleUpLimit'],
      ],
    );
    // The recommendations of the last five minutes (3, then 20) hold a scale-down at the highest.
    const held = h.normalize('k', 6, 2, 1, 10, NOW + 60_000);
    assert.equal(held.replicas, 10);
    assert.equal(held.conditions[0]?.reason, 'ScaleDownStabilized');
    assert.deepEqual(new ScaleHistory(0).normalize('x', 3, 0, 2, 10, NOW).conditions[1], {
      type: 'ScalingLimited',
      status: 'True',
      reason: 'TooFewReplicas',
      message: 'the desired replica count is less than the minimum replica count',
    });
  });

  it('with behavior: the policies bound each period, by the changes made within it', () => {
    const h = new ScaleHistory(300_000);
    const behavior = { scaleUp: { stabilizationWindowSeconds: 0 } };
    // Defaults: 4 pods or 100% per 15s, the larger.
    const first = h.normalizeWithBehavior('k', behavior, 1, 10, 1, 20, NOW);
    assert.equal(first.replicas, 5);
    assert.equal(first.conditions[1]?.reason, 'ScaleUpLimit');
    h.storeScaleEvent('k', behavior, 1, 5, NOW);
    // Five seconds later the period still holds the change from 1: no more room.
    assert.equal(h.normalizeWithBehavior('k', behavior, 5, 10, 1, 20, NOW + 5_000).replicas, 5);
    // After the period, 100% of 5 is the larger step.
    assert.equal(h.normalizeWithBehavior('k', behavior, 5, 12, 1, 20, NOW + 20_000).replicas, 10);
    const min = { scaleUp: { selectPolicy: 'Min', stabilizationWindowSeconds: 0 } };
    assert.equal(new ScaleHistory(0).normalizeWithBehavior('m', min, 1, 10, 1, 20, NOW).replicas, 2);
    const slow = {
      scaleDown: { stabilizationWindowSeconds: 0, policies: [{ type: 'Pods', value: 2, periodSeconds: 60 }] },
    };
    const down = new ScaleHistory(0).normalizeWithBehavior('s', slow, 10, 1, 1, 20, NOW);
    assert.deepEqual([down.replicas, down.conditions[1]?.reason], [8, 'ScaleDownLimit']);
    const minOfTwo = {
      scaleDown: {
        stabilizationWindowSeconds: 0,
        selectPolicy: 'Min',
        policies: [
          { type: 'Pods', value: 2, periodSeconds: 60 },
          { type: 'Percent', value: 50, periodSeconds: 60 },
        ],
      },
    };
    // Min takes the smaller change: 2 pods rather than half of 10.
    assert.equal(new ScaleHistory(0).normalizeWithBehavior('t', minOfTwo, 10, 1, 1, 20, NOW).replicas, 8);
    const off = { scaleDown: { selectPolicy: 'Disabled' } };
    assert.equal(new ScaleHistory(0).normalizeWithBehavior('d', off, 6, 1, 1, 20, NOW).replicas, 6);
  });
});
