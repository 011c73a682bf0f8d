import { describe, it } from 'node:test';
import assert from '../../../testing/assert.js';
import { addPod, newNodeInfo } from '../../framework/node-info.js';
import { Code, CycleState, type NodeInfo, type Pod } from '../../framework/types.js';
import { BalancedAllocation, Fit } from './index.js';
import { brokenLinearFunction } from './resource-allocation.js';

let seq = 0;
/** A pod with one container per request map (no container at all when none given). */
function pod(reqs: Record<string, string>[] = [], extra: Record<string, unknown> = {}): Pod {
  seq += 1;
  return {
    metadata: { name: `p${seq}`, namespace: 'default', uid: `u${seq}` },
    spec: { containers: reqs.map((r, i) => ({ name: `c${i}`, resources: { requests: r } })), ...extra },
  } as Pod;
}
/** A node whose capacity and allocatable are `cpu` cores-as-given and `memory` bytes (as upstream's MakeNode().Capacity). */
function node(name: string, alloc: Record<string, string>): NodeInfo {
  return newNodeInfo({ metadata: { name }, status: { capacity: alloc, allocatable: alloc } });
}
function withPods(ni: NodeInfo, ...pods: Pod[]): NodeInfo {
  for (const p of pods) addPod(ni, p);
  return ni;
}
function scores(plugin: Fit | BalancedAllocation, p: Pod, nodes: NodeInfo[], preScore = true): number[] {
  const state = new CycleState();
  if (preScore) plugin.preScore(state, p);
  return nodes.map((n) => {
    const { score, status } = plugin.score(state, p, n);
    assert.equal(status.code, Code.Success, status.message());
    return score;
  });
}
function filter(p: Pod, ni: NodeInfo, args = {}): { code: Code; reasons: readonly string[] } {
  const fit = new Fit(args);
  const state = new CycleState();
  fit.preFilter(state, p);
  const s = fit.filter(state, p, ni);
  return { code: s.code, reasons: s.reasons };
}

describe('NodeResourcesFit filter', () => {
  const n = () => node('n', { cpu: '10', memory: '20', pods: '32', 'ephemeral-storage': '20', 'example.com/foo': '5' });

  it('fits when nothing is requested', () => {
    assert.equal(filter(pod(), n()).code, Code.Success);
  });
  it('reports every insufficient resource with upstream reasons', () => {
    const ni = withPods(n(), pod([{ cpu: '10', memory: '20' }]));
    const r = filter(pod([{ cpu: '1', memory: '1' }]), ni);
    assert.equal(r.code, Code.Unschedulable);
    assert.deepEqual(r.reasons, ['Insufficient cpu', 'Insufficient memory']);
  });
  it('counts the largest init container', () => {
    const ni = withPods(n(), pod([{ cpu: '8', memory: '19' }]));
    const p = pod([{ cpu: '1', memory: '1' }], {
      initContainers: [{ name: 'i', resources: { requests: { cpu: '3', memory: '1' } } }],
    });
    assert.deepEqual(filter(p, ni).reasons, ['Insufficient cpu']);
  });
  it('counts sidecars with the containers', () => {
    const ni = withPods(n(), pod([{ cpu: '8', memory: '1' }]));
    const ok = pod([{ cpu: '1' }]);
    assert.equal(filter(ok, ni).code, Code.Success);
    const withSidecar = pod([{ cpu: '1' }], {
      initContainers: [{ name: 's', restartPolicy: 'Always', resources: { requests: { cpu: '2' } } }],
    });
    assert.deepEqual(filter(withSidecar, ni).reasons, ['Insufficient cpu']);
  });
  it('counts overhead', () => {
    const ni = withPods(n(), pod([{ cpu: '9' }]));
    assert.equal(filter(pod([{ cpu: '1' }]), ni).code, Code.Success);
    assert.deepEqual(filter(pod([{ cpu: '1' }], { overhead: { cpu: '100m' } }), ni).reasons, ['Insufficient cpu']);
  });
  it('checks ephemeral storage and extended resources', () => {
    const ni = withPods(n(), pod([{ 'ephemeral-storage': '15', 'example.com/foo': '4' }]));
    const r = filter(pod([{ 'ephemeral-storage': '10', 'example.com/foo': '2' }]), ni);
    assert.deepEqual(r.reasons, ['Insufficient ephemeral-storage', 'Insufficient example.com/foo']);
    assert.deepEqual(filter(pod([{ 'example.com/bar': '1' }]), ni).reasons, ['Insufficient example.com/bar']);
  });
  it('skips ignored extended resources and groups', () => {
    const ni = n();
    assert.equal(
      filter(pod([{ 'example.com/bar': '1' }]), ni, { ignoredResources: ['example.com/bar'] }).code,
      Code.Success,
    );
    assert.equal(
      filter(pod([{ 'example.com/bar': '1' }]), ni, { ignoredResourceGroups: ['example.com'] }).code,
      Code.Success,
    );
    // hugepages are not extended resources: never ignored.
    assert.deepEqual(
      filter(pod([{ 'hugepages-2Mi': '2Mi' }]), ni, { ignoredResourceGroups: ['hugepages-2Mi'] }).reasons,
      ['Insufficient hugepages-2Mi'],
    );
  });
  it('reports Too many pods, even for pods that request nothing', () => {
    const ni = withPods(node('n', { cpu: '10', memory: '20', pods: '1' }), pod());
    assert.deepEqual(filter(pod(), ni).reasons, ['Too many pods']);
    assert.deepEqual(filter(pod([{ cpu: '11' }]), ni).reasons, ['Too many pods', 'Insufficient cpu']);
  });
  it('refuses bad args', () => {
    assert.throws(() => new Fit({ scoringStrategy: { type: 'Bogus' as never } }), /Unsupported value: "Bogus"/);
    assert.throws(
      () => new Fit({ scoringStrategy: { type: 'LeastAllocated', resources: [{ name: 'cpu', weight: 101 }] } }),
      /scoringStrategy.resources\[0\].weight/,
    );
    assert.throws(() => new Fit({ scoringStrategy: { type: 'RequestedToCapacityRatio' } }), /at least one point/);
  });
  it('registers pod deletion and node allocatable events with hints', () => {
    const fit = new Fit();
    const events = fit.eventsToRegister();
    assert.deepEqual(
      events.map((e) => e.event),
      [
        { resource: 'Pod', actions: ['Delete', 'UpdatePodScaleDown'] },
        { resource: 'Node', actions: ['Add', 'UpdateNodeAllocatable'] },
      ],
    );
    const p = pod([{ cpu: '2' }]);
    const podHint = events[0]?.hint;
    const nodeHint = events[1]?.hint;
    assert.ok(podHint && nodeHint);
    const bound = { ...pod([{ cpu: '1' }]), spec: { nodeName: 'n', containers: [] } };
    assert.equal(podHint(p, bound, undefined), 1);
    assert.equal(podHint(p, pod([{ cpu: '1' }]), undefined), 0);
    const small = { metadata: { name: 'a' }, status: { allocatable: { cpu: '1', pods: '10' } } };
    const big = { metadata: { name: 'a' }, status: { allocatable: { cpu: '4', pods: '10' } } };
    assert.equal(nodeHint(p, undefined, small), 0);
    assert.equal(nodeHint(p, undefined, big), 1);
    assert.equal(nodeHint(p, small, big), 1);
    assert.equal(nodeHint(p, big, big), 0);
  });
});

// Upstream's least_allocated_test.go cases (capacities in whole cores and bytes).
describe('NodeResourcesFit LeastAllocated (upstream cases)', () => {
  const req = [
    { cpu: '1000', memory: '2000' },
    { cpu: '2000', memory: '3000' },
  ];
  it('nothing scheduled, nothing requested', () => {
    const nodes = [node('node1', { cpu: '4000', memory: '10000' }), node('node2', { cpu: '4000', memory: '10000' })];
    assert.deepEqual(scores(new Fit(), pod(), nodes), [100, 100]);
  });
  it('nothing scheduled, resources requested, differently sized nodes', () => {
    const nodes = [node('node1', { cpu: '4000', memory: '10000' }), node('node2', { cpu: '6000', memory: '10000' })];
    assert.deepEqual(scores(new Fit(), pod(req), nodes), [37, 50]);
  });
  it('no resources requested, pods scheduled with resources', () => {
    const nodes = [
      withPods(
        node('node1', { cpu: '10000', memory: '20000' }),
        pod([{ cpu: '3000', memory: '0' }]),
        pod([{ cpu: '3000', memory: '0' }]),
      ),
      withPods(
        node('node2', { cpu: '10000', memory: '20000' }),
        pod([{ cpu: '3000', memory: '0' }]),
        pod([{ cpu: '3000', memory: '5000' }]),
      ),
    ];
    assert.deepEqual(scores(new Fit(), pod(), nodes), [70, 57]);
  });
  it('resources requested, pods scheduled with resources, differently sized nodes', () => {
    const nodes = [
      withPods(node('node1', { cpu: '10000', memory: '20000' }), pod([{ cpu: '3000', memory: '0' }])),
      withPods(node('node2', { cpu: '10000', memory: '50000' }), pod([{ cpu: '3000', memory: '5000' }])),
    ];
    assert.deepEqual(scores(new Fit(), pod(req), nodes), [57, 60]);
  });
  it('requested resources exceed node capacity', () => {
    const nodes = [
      withPods(node('node1', { cpu: '4000', memory: '10000' }), pod([{ cpu: '3000', memory: '0' }])),
      withPods(node('node2', { cpu: '4000', memory: '10000' }), pod([{ cpu: '3000', memory: '5000' }])),
    ];
    assert.deepEqual(scores(new Fit(), pod([{ cpu: '3000', memory: '0' }]), nodes), [50, 25]);
  });
  it('zero node resources', () => {
    const nodes = [
      withPods(node('node1', {}), pod([{ cpu: '3000', memory: '0' }])),
      withPods(node('node2', {}), pod([{ cpu: '3000', memory: '5000' }])),
    ];
    assert.deepEqual(scores(new Fit(), pod(), nodes), [0, 0]);
  });
  it('weights', () => {
    const nodes = [node('node1', { cpu: '4000', memory: '10000' }), node('node2', { cpu: '6000', memory: '10000' })];
    const fit = new Fit({
      scoringStrategy: {
        type: 'LeastAllocated',
        resources: [
          { name: 'memory', weight: 2 },
          { name: 'cpu', weight: 1 },
        ],
      },
    });
    assert.deepEqual(scores(fit, pod(req), nodes), [41, 50]);
  });
  it('extended resources: bypassed when not requested, honoured when requested', () => {
    const resources = [
      { name: 'cpu', weight: 1 },
      { name: 'memory', weight: 1 },
      { name: 'example.com/foo', weight: 1 },
    ];
    const fit = new Fit({ scoringStrategy: { type: 'LeastAllocated', resources } });
    const n1 = node('node1', { cpu: '6000', memory: '10000' });
    const n2 = node('node2', { cpu: '6000', memory: '10000', 'example.com/foo': '4' });
    assert.deepEqual(scores(fit, pod(req), [n1, n2]), [50, 50]);
    const withFoo = pod([
      { cpu: '1000', memory: '2000' },
      { cpu: '2000', memory: '3000', 'example.com/foo': '2' },
    ]);
    const m1 = node('node1', { cpu: '6000', memory: '10000', 'example.com/foo': '4' });
    const m2 = node('node2', { cpu: '6000', memory: '10000', 'example.com/foo': '10' });
    assert.deepEqual(scores(fit, withFoo, [m1, m2]), [50, 60]);
  });
  it('gives containers without requests the non-zero defaults', () => {
    // 100m of 1 cpu → 90; 200Mi of 1000Mi → 80; (90 + 80) / 2 = 85
    const ni = node('n', { cpu: '1', memory: '1000Mi' });
    assert.deepEqual(scores(new Fit(), pod([{}]), [ni]), [85]);
  });
});

describe('NodeResourcesFit MostAllocated and RequestedToCapacityRatio', () => {
  const req = [
    { cpu: '1000', memory: '2000' },
    { cpu: '2000', memory: '3000' },
  ];
  const nodes = () => [
    node('node1', { cpu: '4000', memory: '10000' }),
    node('node2', { cpu: '6000', memory: '10000' }),
  ];
  it('MostAllocated favours fuller nodes', () => {
    // node1: cpu 75, memory 50 → 62; node2: 50, 50 → 50
    assert.deepEqual(scores(new Fit({ scoringStrategy: { type: 'MostAllocated' } }), pod(req), nodes()), [62, 50]);
  });
  it('MostAllocated caps requests at capacity', () => {
    const ni = withPods(node('node1', { cpu: '4000', memory: '10000' }), pod([{ cpu: '3000', memory: '0' }]));
    // cpu 6000 of 4000 → 100; memory 0 → 0
    assert.deepEqual(
      scores(new Fit({ scoringStrategy: { type: 'MostAllocated' } }), pod([{ cpu: '3000', memory: '0' }]), [ni]),
      [50],
    );
  });
  it('RequestedToCapacityRatio maps utilisation through the shape and rounds', () => {
    const fit = new Fit({
      scoringStrategy: {
        type: 'RequestedToCapacityRatio',
        requestedToCapacityRatio: {
          shape: [
            { utilization: 0, score: 0 },
            { utilization: 100, score: 10 },
          ],
        },
      },
    });
    // node1: 75 and 50 → 62.5 → 63; node2: 50 and 50 → 50
    assert.deepEqual(scores(fit, pod(req), nodes()), [63, 50]);
    const spread = new Fit({
      scoringStrategy: {
        type: 'RequestedToCapacityRatio',
        requestedToCapacityRatio: {
          shape: [
            { utilization: 0, score: 10 },
            { utilization: 100, score: 0 },
          ],
        },
      },
    });
    // node1: 25 and 50 → 37.5 → 38; node2: 50 and 50
    assert.deepEqual(scores(spread, pod(req), nodes()), [38, 50]);
  });
  it('broken linear function', () => {
    const f = brokenLinearFunction([
      { utilization: 10, score: 1 },
      { utilization: 50, score: 5 },
      { utilization: 90, score: 3 },
    ]);
    assert.deepEqual([0, 10, 30, 50, 70, 90, 100].map(f), [1, 1, 3, 5, 4, 3, 3]);
  });
});

// Upstream's balanced_allocation_test.go cases (cpu in millicores, memory in bytes).
describe('NodeResourcesBalancedAllocation (upstream cases)', () => {
  const mk = (name: string, milliCPU: number, memory: number, extra: Record<string, string> = {}) =>
    node(name, { cpu: `${milliCPU}m`, memory: `${memory}`, ...extra });
  const cpuOnly = () =>
    pod([
      { cpu: '1000m', memory: '0' },
      { cpu: '2000m', memory: '0' },
    ]);
  const cpuAndMemory = () =>
    pod([
      { cpu: '1000m', memory: '2000' },
      { cpu: '2000m', memory: '3000' },
    ]);
  const cpuMemGpu = () =>
    pod([
      { cpu: '1000m', memory: '2000' },
      { cpu: '2000m', memory: '3000', 'nvidia.com/gpu': '3' },
    ]);
  const ba = new BalancedAllocation();

  it('skips best-effort pods in PreScore', () => {
    assert.equal(ba.preScore(new CycleState(), pod()).code, Code.Skip);
    assert.equal(ba.preScore(new CycleState(), pod([{}])).code, Code.Skip);
  });
  it('nothing scheduled, resources requested, differently sized nodes', () => {
    assert.deepEqual(scores(ba, cpuAndMemory(), [mk('node1', 4000, 10000), mk('node2', 6000, 10000)]), [87, 100]);
  });
  it('resources requested, pods scheduled with resources', () => {
    const nodes = [withPods(mk('node1', 10000, 20000), cpuOnly()), withPods(mk('node2', 10000, 20000), cpuAndMemory())];
    assert.deepEqual(scores(ba, cpuAndMemory(), nodes), [82, 95]);
    assert.deepEqual(scores(ba, cpuAndMemory(), nodes, false), [82, 95]);
  });
  it('differently sized nodes', () => {
    const nodes = [withPods(mk('node1', 10000, 20000), cpuOnly()), withPods(mk('node2', 10000, 50000), cpuAndMemory())];
    assert.deepEqual(scores(ba, cpuAndMemory(), nodes), [82, 80]);
  });
  it('requested resources at node capacity', () => {
    const nodes = [withPods(mk('node1', 6000, 10000), cpuOnly()), withPods(mk('node2', 6000, 10000), cpuAndMemory())];
    assert.deepEqual(scores(ba, cpuOnly(), nodes), [50, 75]);
  });
  it('includes a scalar resource, three-way standard deviation', () => {
    const withGpu = new BalancedAllocation({
      resources: [{ name: 'cpu' }, { name: 'memory' }, { name: 'nvidia.com/gpu', weight: 1 }],
    });
    const gpu = { 'nvidia.com/gpu': '8' };
    const nodes = [
      withPods(mk('node1', 3500, 40000, gpu), cpuMemGpu()),
      withPods(mk('node2', 3500, 40000, gpu), cpuAndMemory()),
    ];
    assert.deepEqual(scores(withGpu, pod([{ memory: '0', 'nvidia.com/gpu': '1' }]), nodes), [70, 65]);
  });
  it('skips a scalar resource the node does not have', () => {
    const withGpu = new BalancedAllocation({
      resources: [{ name: 'cpu' }, { name: 'memory' }, { name: 'nvidia.com/gpu' }],
    });
    const nodes = [mk('node1', 3500, 40000, { 'nvidia.com/gpu': '8' }), mk('node2', 3500, 40000)];
    assert.deepEqual(scores(withGpu, cpuAndMemory(), nodes), [63, 63]);
  });
});
