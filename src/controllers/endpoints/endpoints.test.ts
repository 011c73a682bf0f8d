import { after, before, describe, it } from 'node:test';
import type { KubeObject } from '../../client/types.js';
import { type ControlPlane, startControlPlane } from '../../index.js';
import { kubectl } from '../../testing/api-client.js';
import assert from '../../testing/assert.js';
import { eventually, runControllers } from '../../testing/controllers.js';
import { createNamespace, createNode, runPod, setPodStatus } from '../endpointslice/test-fixtures.js';
import type { EndpointSubset, Endpoints, Pod, Service } from '../endpointslice/types.js';
import type { ControllerManager } from '../manager.js';
import { endpointsController } from './index.js';
import { computeSubsets, MAX_CAPACITY, truncateEndpoints } from './subsets.js';

describe('endpoints-controller', () => {
  let cp: ControlPlane;
  let manager: ControllerManager;

  before(async () => {
    cp = await startControlPlane({ storage: 'memory' });
    await createNode(cp.client, 'node-1');
    manager = await runControllers(cp, [endpointsController]);
  });
  after(async () => {
    await manager?.stop();
    await cp?.stop();
  });

  const getEndpoints = async (ns: string, name: string) => (await cp.client.endpoints(ns).get(name)) as Endpoints;
  const names = (addrs: EndpointSubset['addresses']) => (addrs ?? []).map((a) => a.targetRef?.name);

  it('lists ready pods under addresses and the others under notReadyAddresses', async () => {
    const ns = 'ep-basic';
    await createNamespace(cp.client, ns);
    await cp.client.services(ns).create({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'web', labels: { team: 'blue' } },
      spec: { selector: { app: 'web' }, ports: [{ name: 'http', port: 80, targetPort: 8080 }] },
    });
    // Without pods, Endpoints without subsets.
    const empty = await eventually(() => getEndpoints(ns, 'web'));
    assert.equal(empty.subsets, undefined);

    const a = await runPod(cp.client, ns, 'a', { app: 'web' }, '10.1.0.1', true);
    await runPod(cp.client, ns, 'b', { app: 'web' }, '10.1.0.2', false);
    const ep = await eventually(async () => {
      const got = await getEndpoints(ns, 'web');
      assert.deepEqual(names(got.subsets?.[0]?.addresses), ['a']);
      assert.deepEqual(names(got.subsets?.[0]?.notReadyAddresses), ['b']);
      return got;
    });
    assert.deepEqual(ep.subsets, [
      {
        addresses: [
          {
            ip: '10.1.0.1',
            nodeName: 'node-1',
            targetRef: { kind: 'Pod', namespace: ns, name: 'a', uid: a.metadata.uid },
          },
        ],
        notReadyAddresses: [ep.subsets?.[0]?.notReadyAddresses?.[0]],
        ports: [{ name: 'http', port: 8080, protocol: 'TCP' }],
      },
    ]);
    assert.deepEqual(ep.metadata.labels, { team: 'blue' });
    assert.match(ep.metadata.annotations?.['endpoints.kubernetes.io/last-change-trigger-time'] ?? '', /^\d{4}-/);

    await setPodStatus(cp.client, ns, 'b', '10.1.0.2', true);
    await eventually(async () => {
      const got = await getEndpoints(ns, 'web');
      assert.deepEqual(names(got.subsets?.[0]?.addresses), ['a', 'b']);
      assert.equal(got.subsets?.[0]?.notReadyAddresses, undefined);
    });

    // A terminating pod leaves the Endpoints.
    await cp.client.pods(ns).delete('a');
    await eventually(async () => {
      const got = await getEndpoints(ns, 'web');
      assert.deepEqual(names(got.subsets?.[0]?.addresses), ['b']);
    });

    const out = await kubectl(cp, ['get', 'endpoints', 'web', '-n', ns]);
    assert.equal(out.code, 0, out.stderr);
    assert.match(out.stdout, /web\s+10\.1\.0\.2:8080\s+/);
  });

  it('labels the Endpoints of a headless Service, and deletes the Endpoints of a deleted Service', async () => {
    const ns = 'ep-headless';
    await createNamespace(cp.client, ns);
    await cp.client.services(ns).create({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'hl' },
      spec: { clusterIP: 'None', selector: { app: 'hl' } },
    });
    await runPod(cp.client, ns, 'h', { app: 'hl' }, '10.1.1.1', true, { hostname: 'h0', subdomain: 'hl' });
    await eventually(async () => {
      const got = await getEndpoints(ns, 'hl');
      assert.deepEqual(got.metadata.labels, { 'service.kubernetes.io/headless': '' });
      // Headless without ports: the addresses alone, with the pod's hostname.
      assert.deepEqual(got.subsets, [
        {
          addresses: [
            {
              ip: '10.1.1.1',
              hostname: 'h0',
              nodeName: 'node-1',
              targetRef: got.subsets?.[0]?.addresses?.[0]?.targetRef,
            },
          ],
        },
      ]);
    });
    await cp.client.services(ns).delete('hl');
    await eventually(async () => {
      await assert.rejects(getEndpoints(ns, 'hl'), /not found/);
    });
  });

  it('leaves the Endpoints of Services without a selector, and the kubernetes Service, alone', async () => {
    const ns = 'ep-manual';
    await createNamespace(cp.client, ns);
    await cp.client.services(ns).create({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'ext' },
      spec: { ports: [{ port: 5432 }] },
    });
    const manual: KubeObject = {
      apiVersion: 'v1',
      kind: 'Endpoints',
      metadata: { name: 'ext' },
      subsets: [{ addresses: [{ ip: '192.168.1.10' }], ports: [{ port: 5432, protocol: 'TCP' }] }],
    };
    await cp.client.endpoints(ns).create(manual);
    // A selector Service created after it is a barrier: once its Endpoints exist, ext's sync has long happened.
    await cp.client.services(ns).create({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'barrier' },
      spec: { selector: { app: 'none' }, ports: [{ port: 80 }] },
    });
    await eventually(() => getEndpoints(ns, 'barrier'));
    const ext = await getEndpoints(ns, 'ext');
    assert.deepEqual(ext.subsets, manual.subsets);
    const k8s = await getEndpoints('default', 'kubernetes');
    assert.equal(k8s.subsets?.length, 1);
  });
});

describe('endpoints subsets', () => {
  const svc = (spec: Service['spec']): Service => ({ metadata: { name: 's', namespace: 'n' }, spec });
  const pod = (name: string, ip: string, ready: boolean, ports?: { name: string; containerPort: number }[]): Pod => ({
    metadata: { name, namespace: 'n', uid: `uid-${name}` },
    spec: { nodeName: 'node-1', containers: [{ name: 'c', ...(ports ? { ports } : {}) }] },
    status: { phase: 'Running', podIP: ip, conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }] },
  });

  it('packs pods serving the same ports into one subset, and pods with different named-port numbers apart', () => {
    const s = svc({ clusterIP: '10.96.0.5', ports: [{ name: 'web', port: 80, targetPort: 'web' }] });
    const { subsets } = computeSubsets(s, [
      pod('a', '10.0.0.1', true, [{ name: 'web', containerPort: 8080 }]),
      pod('b', '10.0.0.2', false, [{ name: 'web', containerPort: 8080 }]),
      pod('c', '10.0.0.3', true, [{ name: 'web', containerPort: 9090 }]),
      pod('d', '10.0.0.4', true),
    ]);
    const summary = subsets
      .map((x) => ({
        ports: (x.ports ?? []).map((p) => p.port),
        ready: (x.addresses ?? []).map((a) => a.ip),
        notReady: (x.notReadyAddresses ?? []).map((a) => a.ip),
      }))
      .sort((x, y) => (x.ports[0] ?? 0) - (y.ports[0] ?? 0));
    assert.deepEqual(summary, [
      { ports: [8080], ready: ['10.0.0.1'], notReady: ['10.0.0.2'] },
      { ports: [9090], ready: ['10.0.0.3'], notReady: [] },
    ]);
  });

  it('truncates at 1000 addresses, ready ones first, in proportion per subset', () => {
    const addrs = (n: number, base: number) =>
      Array.from({ length: n }, (_, i) => ({ ip: `10.${base}.${Math.floor(i / 250)}.${(i % 250) + 1}` }));
    const ep: Endpoints = {
      metadata: { name: 'big' },
      subsets: [
        { addresses: addrs(600, 1), notReadyAddresses: addrs(300, 2) },
        { addresses: addrs(200, 3), notReadyAddresses: addrs(100, 4) },
      ],
    };
    assert.equal(truncateEndpoints(ep), true);
    const [s1, s2] = ep.subsets ?? [];
    assert.equal(s1?.addresses?.length, 600);
    assert.equal(s2?.addresses?.length, 200);
    // 200 places for 400 not-ready addresses: 150 and 50.
    assert.equal(s1?.notReadyAddresses?.length, 150);
    assert.equal(s2?.notReadyAddresses?.length, 50);

    const small: Endpoints = { metadata: { name: 'small' }, subsets: [{ addresses: addrs(MAX_CAPACITY, 5) }] };
    assert.equal(truncateEndpoints(small), false);
  });
});
