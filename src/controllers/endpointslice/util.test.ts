import { describe, it } from 'node:test';
import assert from '../../testing/assert.js';
import { newEndpointSlice, planAddressType, podToEndpoint } from './plan.js';
import { EndpointSliceTracker, TriggerTimeTracker } from './trackers.js';
import type { EndpointSlice, Pod, Service } from './types.js';
import { findPort, formatRFC3339Nano, parseIPSloppy, repackSubsets, servicesToUpdateOnPodChange } from './util.js';

const CONTROLLER = 'endpointslice-controller.k8s.io';
const svc: Service = {
  metadata: { name: 'web', namespace: 'ns', uid: 'svc-uid', creationTimestamp: '2024-01-01T00:00:00Z' },
  spec: {
    selector: { app: 'web' },
    clusterIP: '10.96.0.10',
    ipFamilies: ['IPv4'],
    ports: [{ name: 'http', port: 80 }],
  },
};
const pod = (name: string, ip: string, ready = true, extra: Partial<Pod['metadata']> = {}): Pod => ({
  metadata: { name, namespace: 'ns', uid: `uid-${name}`, labels: { app: 'web' }, resourceVersion: '1', ...extra },
  spec: { nodeName: 'node-1', containers: [{ name: 'c', ports: [{ name: 'web', containerPort: 8080 }] }] },
  status: {
    phase: 'Running',
    podIP: ip,
    podIPs: [{ ip }],
    conditions: [{ type: 'Ready', status: ready ? 'True' : 'False', lastTransitionTime: '2024-01-02T00:00:00Z' }],
  },
});
const opts = (max: number) => ({
  maxEndpointsPerSlice: max,
  controllerName: CONTROLLER,
  getNode: (name: string) => ({ metadata: { name, labels: { 'topology.kubernetes.io/zone': 'z1' } } }),
});
/** An existing slice of svc holding the pods' endpoints. */
function existing(name: string, pods: Pod[]): EndpointSlice {
  const slice = newEndpointSlice(svc, [{ name: 'http', port: 80, protocol: 'TCP' }], 'IPv4', CONTROLLER);
  slice.metadata.name = name;
  slice.metadata.uid = `uid-${name}`;
  slice.endpoints = pods.map((p) => podToEndpoint(p, opts(1).getNode('node-1'), svc, 'IPv4'));
  return slice;
}
const podNames = (s: EndpointSlice) => (s.endpoints ?? []).map((e) => e.targetRef?.name);

describe('IP parsing as Go does it', () => {
  it('accepts sloppy IPv4, prints canonical IPv6, treats IPv4-mapped IPv6 as IPv4', () => {
    assert.deepEqual(parseIPSloppy('010.0.0.1'), { ip: '10.0.0.1', ipv6: false });
    assert.deepEqual(parseIPSloppy('FD00:0:0::0001'), { ip: 'fd00::1', ipv6: true });
    assert.deepEqual(parseIPSloppy('::ffff:10.1.2.3'), { ip: '10.1.2.3', ipv6: false });
    assert.deepEqual(parseIPSloppy('::ffff:a01:203'), { ip: '10.1.2.3', ipv6: false });
    assert.deepEqual(parseIPSloppy('2001:db8:0:0:1:0:0:1'), { ip: '2001:db8::1:0:0:1', ipv6: true });
    assert.equal(parseIPSloppy('fe80::1%eth0'), undefined);
    assert.equal(parseIPSloppy('256.0.0.1'), undefined);
    assert.equal(parseIPSloppy('host.example'), undefined);
  });

  it('prints times as RFC3339Nano', () => {
    assert.equal(formatRFC3339Nano(Date.parse('2024-01-02T03:04:05Z')), '2024-01-02T03:04:05Z');
    assert.equal(formatRFC3339Nano(Date.parse('2024-01-02T03:04:05.120Z')), '2024-01-02T03:04:05.12Z');
  });
});

describe('pods and Services', () => {
  it('finds named target ports by name and protocol', () => {
    const p = pod('a', '10.0.0.1');
    assert.equal(findPort(p, { port: 80, targetPort: 'web' }), 8080);
    assert.equal(findPort(p, { port: 80, targetPort: 'web', protocol: 'UDP' }), undefined);
    assert.equal(findPort(p, { port: 80, targetPort: 9000 }), 9000);
    assert.equal(findPort(p, { port: 80 }), 80);
  });

  it('queues the Services a pod update concerns', () => {
    const other: Service = { metadata: { name: 'db', namespace: 'ns' }, spec: { selector: { app: 'db' } } };
    const old = pod('a', '10.0.0.1', false);
    // Resync (same resourceVersion): nothing.
    assert.deepEqual([...servicesToUpdateOnPodChange([svc, other], old, old)], []);
    // Readiness changed: its Service.
    const ready = { ...pod('a', '10.0.0.1', true), metadata: { ...old.metadata, resourceVersion: '2' } };
    assert.deepEqual([...servicesToUpdateOnPodChange([svc, other], old, ready)], ['ns/web']);
    // Only labels changed: the Services it left and joined.
    const moved = { ...old, metadata: { ...old.metadata, resourceVersion: '3', labels: { app: 'db' } } };
    assert.deepEqual([...servicesToUpdateOnPodChange([svc, other], old, moved)].sort(), ['ns/db', 'ns/web']);
    // An annotation changed: nothing.
    const annotated = { ...old, metadata: { ...old.metadata, resourceVersion: '4', annotations: { a: 'b' } } };
    assert.deepEqual([...servicesToUpdateOnPodChange([svc, other], old, annotated)], []);
  });
});

describe('repackSubsets', () => {
  it('merges addresses sharing ports, keeps not-ready over ready, and orders the result', () => {
    const a = { ip: '10.0.0.2', targetRef: { uid: 'b' } };
    const b = { ip: '10.0.0.1', targetRef: { uid: 'a' } };
    const http = { name: 'http', port: 80, protocol: 'TCP' };
    const https = { name: 'https', port: 443, protocol: 'TCP' };
    const packed = repackSubsets([
      { addresses: [a], ports: [http] },
      { addresses: [b], ports: [http] },
      { notReadyAddresses: [a], ports: [https] },
      { addresses: [a], ports: [https] },
    ]);
    assert.deepEqual(packed, [
      { addresses: [b, a], ports: [http] },
      { notReadyAddresses: [a], ports: [https] },
    ]);
    // Without ports (a headless Service): addresses alone.
    assert.deepEqual(repackSubsets([{ addresses: [a] }, { addresses: [b] }]), [{ addresses: [b, a] }]);
    assert.deepEqual(repackSubsets([]), []);
  });
});

describe('TriggerTimeTracker', () => {
  it("answers the Service's creation first, then the earliest change since the last sync, then nothing", () => {
    const t = new TriggerTimeTracker();
    const p1 = pod('a', '10.0.0.1');
    assert.equal(t.compute('ns', svc, [p1]), Date.parse('2024-01-01T00:00:00Z'));
    assert.equal(t.compute('ns', svc, [p1]), undefined);
    const p2 = pod('b', '10.0.0.2');
    p2.status?.conditions?.splice(0, 1, { type: 'Ready', status: 'True', lastTransitionTime: '2024-01-03T00:00:00Z' });
    assert.equal(t.compute('ns', svc, [p1, p2]), Date.parse('2024-01-03T00:00:00Z'));
  });
});

describe('EndpointSliceTracker', () => {
  it('tells own writes from others and notices a lagging cache', () => {
    const t = new EndpointSliceTracker();
    const slice = existing('web-a', []);
    slice.metadata.generation = 2;
    t.update(slice);
    assert.equal(t.shouldSync(slice), false);
    assert.equal(t.shouldSync({ ...slice, metadata: { ...slice.metadata, generation: 3 } }), true);
    assert.equal(t.staleSlices(svc, [slice]), false);
    assert.equal(t.staleSlices(svc, []), true, 'a written slice missing from the cache');
    assert.equal(t.staleSlices(svc, [{ ...slice, metadata: { ...slice.metadata, generation: 1 } }]), true);
    t.expectDeletion(slice);
    assert.equal(t.staleSlices(svc, [slice]), true, 'a deleted slice still in the cache');
    assert.equal(t.handleDeletion(slice), true);
    assert.equal(t.staleSlices(svc, []), false);
  });
});

describe('slice planning', () => {
  it('creates one placeholder for a Service without pods, and keeps it', () => {
    const first = planAddressType(svc, [], [], 'IPv4', opts(3));
    assert.equal(first.toCreate.length, 1);
    assert.deepEqual(first.toCreate[0]?.endpoints, []);
    const placeholder = {
      ...(first.toCreate[0] as EndpointSlice),
      metadata: { ...first.toCreate[0]?.metadata, name: 'web-p' },
    };
    const again = planAddressType(svc, [], [placeholder], 'IPv4', opts(3));
    assert.deepEqual([again.toCreate, again.toUpdate, again.toDelete], [[], [], []]);
  });

  it('updates changed slices in place, fills them first, then the closest-to-full unchanged slice', () => {
    const [a, b, c, d, e] = ['a', 'b', 'c', 'd', 'e'].map((n, i) => pod(n, `10.0.0.${i + 1}`));
    // s1 holds a (now not ready) and b; s2 holds c and d, unchanged.
    const s1 = existing('s1', [a as Pod, b as Pod]);
    const s2 = existing('s2', [c as Pod, d as Pod]);
    const notReadyA = pod('a', '10.0.0.1', false);
    const plan = planAddressType(svc, [notReadyA, b as Pod, c as Pod, d as Pod, e as Pod], [s1, s2], 'IPv4', opts(3));
    assert.deepEqual(plan.toCreate, []);
    assert.deepEqual(plan.toDelete, []);
    // e goes into s1, which is written anyway; s2 is not touched.
    assert.deepEqual(
      plan.toUpdate.map((s) => [s.metadata.name, podNames(s)]),
      [['s1', ['a', 'b', 'e']]],
    );
    assert.equal(plan.toUpdate[0]?.endpoints?.[0]?.conditions?.ready, false);
  });

  it('deletes slices left empty, and creates new ones only beyond what fits', () => {
    const pods = ['a', 'b', 'c', 'd'].map((n, i) => pod(n, `10.0.0.${i + 1}`));
    const s1 = existing('s1', [pods[0] as Pod]);
    const gone = existing('s2', [pod('z', '10.0.0.26')]);
    const plan = planAddressType(svc, pods, [s1, gone], 'IPv4', opts(3));
    assert.deepEqual(
      plan.toDelete.map((s) => s.metadata.name),
      ['s2'],
    );
    // s1 is unchanged; three more do not fit in it (1 + 3 > 3): a new slice for them.
    assert.deepEqual(plan.toUpdate, []);
    assert.deepEqual(plan.toCreate.map(podNames), [['b', 'c', 'd']]);
  });

  it('leaves out pods whose Node is unknown, and reports them', () => {
    const plan = planAddressType(svc, [pod('a', '10.0.0.1')], [], 'IPv4', { ...opts(3), getNode: () => undefined });
    assert.deepEqual(plan.errors, ['skipping Pod a for Service ns/web: Node node-1 Not Found']);
  });
});
