import { describe, it } from 'node:test';
import assert from '../../testing/assert.js';
import {
  addPod,
  cloneNodeInfo,
  computePodResourceRequest,
  hasNode,
  hostPortsConflict,
  hostPortsLen,
  newNodeInfo,
  removePod,
  setNode,
} from './node-info.js';
import { isScalarResourceName, resourceFromList } from './resources.js';
import type { Node, Pod } from './types.js';

let uid = 0;
function pod(spec: Record<string, unknown>, extra: Record<string, unknown> = {}): Pod {
  uid += 1;
  return { metadata: { name: `p${uid}`, namespace: 'default', uid: `uid-${uid}` }, spec, ...extra } as Pod;
}
const c = (requests?: Record<string, string>, more: Record<string, unknown> = {}) => ({
  name: `c${Math.random()}`,
  resources: requests ? { requests } : {},
  ...more,
});
const node: Node = {
  metadata: { name: 'n1' },
  status: {
    allocatable: { cpu: '4', memory: '8Gi', pods: '110', 'ephemeral-storage': '10Gi', 'example.com/gpu': '2' },
    images: [{ names: ['nginx:1.25', 'docker.io/library/nginx:1.25'], sizeBytes: 50_000_000 }],
  },
};

describe('computePodResourceRequest', () => {
  it('sums containers', () => {
    const r = computePodResourceRequest(pod({ containers: [c({ cpu: '100m', memory: '1Gi' }), c({ cpu: '1' })] }));
    assert.equal(r.milliCPU, 1100);
    assert.equal(r.memory, 1024 ** 3);
  });
  it('takes the max of the containers and each init container', () => {
    const r = computePodResourceRequest(
      pod({
        initContainers: [c({ cpu: '2', memory: '100Mi' }), c({ cpu: '500m', memory: '3Gi' })],
        containers: [c({ cpu: '1', memory: '1Gi' })],
      }),
    );
    assert.equal(r.milliCPU, 2000);
    assert.equal(r.memory, 3 * 1024 ** 3);
  });
  it('counts sidecars (restartable init containers) with the containers and with later init containers', () => {
    const r = computePodResourceRequest(
      pod({
        initContainers: [
          c({ cpu: '1' }, { restartPolicy: 'Always' }),
          c({ cpu: '2' }),
          c({ cpu: '500m' }, { restartPolicy: 'Always' }),
        ],
        containers: [c({ cpu: '1' })],
      }),
    );
    // regular + sidecars = 1 + 1 + 0.5 = 2.5; init #2 runs beside sidecar #1: 2 + 1 = 3.
    assert.equal(r.milliCPU, 3000);
  });
  it('adds overhead', () => {
    const r = computePodResourceRequest(
      pod({ containers: [c({ cpu: '1' })], overhead: { cpu: '250m', memory: '120Mi' } }),
    );
    assert.equal(r.milliCPU, 1250);
    assert.equal(r.memory, 120 * 1024 ** 2);
  });
  it('gives containers without requests the non-zero defaults, but keeps explicit zeros', () => {
    const p = pod({ containers: [c(), c({ cpu: '0' }), c({ memory: '1Gi' })] });
    const plain = computePodResourceRequest(p);
    assert.equal(plain.milliCPU, 0);
    const nz = computePodResourceRequest(p, { nonZero: true });
    assert.equal(nz.milliCPU, 200);
    assert.equal(nz.memory, 2 * 200 * 1024 * 1024 + 1024 ** 3);
  });
  it('tracks extended and hugepages resources as scalars; ignores unknown native names', () => {
    const r = computePodResourceRequest(
      pod({ containers: [c({ 'example.com/gpu': '1', 'hugepages-2Mi': '4Mi', foo: '3' })] }),
    );
    assert.equal(r.scalarResources.get('example.com/gpu'), 1);
    assert.equal(r.scalarResources.get('hugepages-2Mi'), 4 * 1024 * 1024);
    assert.equal(r.scalarResources.has('foo'), false);
    assert.equal(isScalarResourceName('kubernetes.io/batch'), true);
    assert.equal(isScalarResourceName('cpu'), false);
  });
  it('rounds cpu up to a millicore', () => {
    assert.equal(resourceFromList({ cpu: '0.0001' }).milliCPU, 1);
  });
  it('with in-place resize counts the larger of spec and status', () => {
    const p = pod(
      { containers: [{ name: 'a', resources: { requests: { cpu: '1' } } }] },
      { status: { containerStatuses: [{ name: 'a', resources: { requests: { cpu: '2' } } }] } },
    );
    assert.equal(computePodResourceRequest(p).milliCPU, 2000);
  });
});

describe('NodeInfo', () => {
  it('reads allocatable and images from the node', () => {
    const ni = newNodeInfo(node);
    assert.equal(ni.allocatable.milliCPU, 4000);
    assert.equal(ni.allocatable.allowedPodNumber, 110);
    assert.equal(ni.allocatable.scalarResources.get('example.com/gpu'), 2);
    assert.deepEqual(ni.imageStates.get('nginx:1.25'), { size: 50_000_000, numNodes: 1 });
    assert.equal(hasNode(ni), true);
    assert.equal(hasNode(newNodeInfo()), false);
  });

  it('adds and removes pods with their requests, ports and affinity', () => {
    const ni = newNodeInfo(node);
    const g0 = ni.generation;
    const a = pod({
      containers: [c({ cpu: '500m', memory: '1Gi' }, { ports: [{ containerPort: 80, hostPort: 8080 }] })],
      affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ topologyKey: 'x' }] } },
    });
    const b = pod({ containers: [c()] });
    addPod(ni, a);
    addPod(ni, b);
    assert.ok(ni.generation > g0);
    assert.equal(ni.pods.length, 2);
    assert.equal(ni.podsWithAffinity.length, 1);
    assert.equal(ni.podsWithRequiredAntiAffinity.length, 1);
    assert.equal(ni.requested.milliCPU, 500);
    assert.equal(ni.nonZeroRequested.milliCPU, 600);
    assert.equal(ni.nonZeroRequested.memory, 1024 ** 3 + 200 * 1024 * 1024);
    assert.equal(hostPortsLen(ni.usedPorts), 1);
    assert.equal(hostPortsConflict(ni.usedPorts, '', 'TCP', 8080), true);

    const copy = cloneNodeInfo(ni);
    assert.equal(removePod(ni, a), true);
    assert.equal(removePod(ni, a), false);
    assert.equal(ni.pods.length, 1);
    assert.equal(ni.podsWithAffinity.length, 0);
    assert.equal(ni.requested.milliCPU, 0);
    assert.equal(ni.nonZeroRequested.milliCPU, 100);
    assert.equal(hostPortsLen(ni.usedPorts), 0);
    // The copy is untouched.
    assert.equal(copy.pods.length, 2);
    assert.equal(copy.requested.milliCPU, 500);
    assert.equal(hostPortsLen(copy.usedPorts), 1);
  });

  it('setNode replaces allocatable', () => {
    const ni = newNodeInfo();
    setNode(ni, { metadata: { name: 'x' }, status: { allocatable: { cpu: '2' } } });
    assert.equal(ni.allocatable.milliCPU, 2000);
  });
});

describe('host ports', () => {
  it('applies wildcard semantics', () => {
    const ni = newNodeInfo(node);
    addPod(
      ni,
      pod({ containers: [c(undefined, { ports: [{ hostIP: '127.0.0.1', hostPort: 80, protocol: 'TCP' }] })] }),
    );
    const h = ni.usedPorts;
    assert.equal(hostPortsConflict(h, '0.0.0.0', 'TCP', 80), true);
    assert.equal(hostPortsConflict(h, '127.0.0.1', 'TCP', 80), true);
    assert.equal(hostPortsConflict(h, '127.0.0.2', 'TCP', 80), false);
    assert.equal(hostPortsConflict(h, '127.0.0.1', 'UDP', 80), false);
    assert.equal(hostPortsConflict(h, '127.0.0.1', 'TCP', 0), false);
  });
});
