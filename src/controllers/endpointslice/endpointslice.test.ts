import { after, before, describe, it } from 'node:test';
import { type ControlPlane, startControlPlane } from '../../index.js';
import { kubectl } from '../../testing/api-client.js';
import assert from '../../testing/assert.js';
import { eventually, runControllers } from '../../testing/controllers.js';
import type { ControllerManager } from '../manager.js';
import { endpointSliceController } from './index.js';
import { createNamespace, createNode, runPod, setPodStatus } from './test-fixtures.js';
import type { Endpoint, EndpointSlice } from './types.js';

describe('endpointslice-controller', () => {
  let cp: ControlPlane;
  let manager: ControllerManager;

  before(async () => {
    cp = await startControlPlane({ storage: 'memory' });
    await createNode(cp.client, 'node-1', 'zone-a');
    manager = await runControllers(cp, [endpointSliceController], { options: { maxEndpointsPerSlice: 3 } });
  });
  after(async () => {
    await manager?.stop();
    await cp?.stop();
  });

  async function slicesOf(ns: string, service: string): Promise<EndpointSlice[]> {
    const list = await cp.client.endpointSlices(ns).list({ labelSelector: `kubernetes.io/service-name=${service}` });
    return list.items as EndpointSlice[];
  }
  const endpointsOf = (slices: EndpointSlice[]) =>
    slices
      .flatMap((s) => s.endpoints ?? [])
      .sort((a, b) => (a.targetRef?.name ?? '').localeCompare(b.targetRef?.name ?? ''));
  const byPod = (eps: Endpoint[], name: string) => eps.find((e) => e.targetRef?.name === name);

  async function createService(
    ns: string,
    name: string,
    spec: Record<string, unknown>,
    labels?: Record<string, string>,
  ) {
    return cp.client.services(ns).create({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name, ...(labels ? { labels } : {}) },
      spec,
    });
  }

  it('gives a Service one slice whose endpoints follow its pods: ready, not ready, terminating', async () => {
    const ns = 'es-basic';
    await createNamespace(cp.client, ns);
    const svc = await createService(
      ns,
      'web',
      { selector: { app: 'web' }, ports: [{ name: 'http', port: 80, targetPort: 8080 }] },
      { team: 'blue' },
    );
    // No pods yet: one empty placeholder slice.
    const [placeholder] = await eventually(async () => {
      const slices = await slicesOf(ns, 'web');
      assert.equal(slices.length, 1);
      return slices;
    });
    assert.deepEqual(placeholder?.endpoints ?? [], []);

    const a = await runPod(cp.client, ns, 'a', { app: 'web' }, '10.0.0.1', true);
    await runPod(cp.client, ns, 'b', { app: 'web' }, '10.0.0.2', false);
    await runPod(cp.client, ns, 'other', { app: 'db' }, '10.0.0.9', true);
    const slice = await eventually(async () => {
      const slices = await slicesOf(ns, 'web');
      assert.equal(slices.length, 1);
      assert.equal(endpointsOf(slices).length, 2);
      return slices[0] as EndpointSlice;
    });
    assert.equal(slice.addressType, 'IPv4');
    assert.equal(slice.metadata.generateName, 'web-');
    assert.deepEqual(slice.metadata.labels, {
      team: 'blue',
      'kubernetes.io/service-name': 'web',
      'endpointslice.kubernetes.io/managed-by': 'endpointslice-controller.k8s.io',
    });
    assert.deepEqual(slice.metadata.ownerReferences, [
      {
        apiVersion: 'v1',
        kind: 'Service',
        name: 'web',
        uid: svc.metadata.uid,
        controller: true,
        blockOwnerDeletion: true,
      },
    ]);
    assert.match(
      slice.metadata.annotations?.['endpoints.kubernetes.io/last-change-trigger-time'] ?? '',
      /^\d{4}-\d\d-\d\dT/,
    );
    assert.deepEqual(slice.ports, [{ name: 'http', port: 8080, protocol: 'TCP' }]);
    const eps = endpointsOf([slice]);
    assert.deepEqual(byPod(eps, 'a'), {
      addresses: ['10.0.0.1'],
      conditions: { ready: true, serving: true, terminating: false },
      targetRef: { kind: 'Pod', namespace: ns, name: 'a', uid: a.metadata.uid },
      nodeName: 'node-1',
      zone: 'zone-a',
    });
    assert.deepEqual(byPod(eps, 'b')?.conditions, { ready: false, serving: false, terminating: false });

    // b becomes ready.
    await setPodStatus(cp.client, ns, 'b', '10.0.0.2', true);
    await eventually(async () => {
      const e = byPod(endpointsOf(await slicesOf(ns, 'web')), 'b');
      assert.deepEqual(e?.conditions, { ready: true, serving: true, terminating: false });
    });

    // A pod held by a finalizer while being deleted is terminating: not ready, serving as its readiness says.
    await runPod(cp.client, ns, 'c', { app: 'web' }, '10.0.0.3', true, { finalizers: ['example.com/hold'] });
    await eventually(async () => assert.equal(endpointsOf(await slicesOf(ns, 'web')).length, 3));
    await cp.client.pods(ns).delete('c', { gracePeriodSeconds: 0 });
    await eventually(async () => {
      const e = byPod(endpointsOf(await slicesOf(ns, 'web')), 'c');
      assert.deepEqual(e?.conditions, { ready: false, serving: true, terminating: true });
    });
    await setPodStatus(cp.client, ns, 'c', '10.0.0.3', false);
    await eventually(async () => {
      const e = byPod(endpointsOf(await slicesOf(ns, 'web')), 'c');
      assert.deepEqual(e?.conditions, { ready: false, serving: false, terminating: true });
    });

    // Gone pods leave the slice; the slice is updated in place.
    await cp.client.pods(ns).delete('b', { gracePeriodSeconds: 0 });
    const c = await cp.client.pods(ns).get('c');
    c.metadata.finalizers = [];
    await cp.client.pods(ns).update(c);
    await eventually(async () => {
      const slices = await slicesOf(ns, 'web');
      assert.equal(slices.length, 1);
      assert.equal(slices[0]?.metadata.name, slice.metadata.name);
      assert.deepEqual(
        endpointsOf(slices).map((e) => e.targetRef?.name),
        ['a'],
      );
    });
  });

  it('marks not-ready pods ready when the Service publishes not-ready addresses', async () => {
    const ns = 'es-publish';
    await createNamespace(cp.client, ns);
    await createService(ns, 'peers', {
      selector: { app: 'peer' },
      ports: [{ port: 7000 }],
      publishNotReadyAddresses: true,
    });
    await runPod(cp.client, ns, 'p', { app: 'peer' }, '10.0.1.1', false);
    await eventually(async () => {
      const e = byPod(endpointsOf(await slicesOf(ns, 'peers')), 'p');
      assert.deepEqual(e?.conditions, { ready: true, serving: false, terminating: false });
    });
  });

  it('resolves named target ports per pod, so pods with different numbers get different slices', async () => {
    const ns = 'es-ports';
    await createNamespace(cp.client, ns);
    await createService(ns, 'api', { selector: { app: 'api' }, ports: [{ name: 'web', port: 80, targetPort: 'web' }] });
    await runPod(cp.client, ns, 'one', { app: 'api' }, '10.0.2.1', true, {
      ports: [{ name: 'web', containerPort: 8080 }],
    });
    await runPod(cp.client, ns, 'two', { app: 'api' }, '10.0.2.2', true, {
      ports: [{ name: 'web', containerPort: 9090 }],
    });
    await eventually(async () => {
      const slices = await slicesOf(ns, 'api');
      const got = slices
        .map((s) => ({ port: s.ports?.[0]?.port, pods: (s.endpoints ?? []).map((e) => e.targetRef?.name) }))
        .sort((x, y) => (x.port ?? 0) - (y.port ?? 0));
      assert.deepEqual(got, [
        { port: 8080, pods: ['one'] },
        { port: 9090, pods: ['two'] },
      ]);
    });
  });

  it('spreads more pods than --max-endpoints-per-slice over several slices, and shrinks back', async () => {
    const ns = 'es-many';
    await createNamespace(cp.client, ns);
    await createService(ns, 'many', { selector: { app: 'many' }, ports: [{ port: 80 }] });
    for (let i = 0; i < 8; i++) await runPod(cp.client, ns, `m${i}`, { app: 'many' }, `10.0.3.${i + 1}`, true);
    await eventually(async () => {
      const slices = await slicesOf(ns, 'many');
      assert.equal(endpointsOf(slices).length, 8);
      assert.equal(slices.length, 3);
      for (const s of slices) assert.ok((s.endpoints ?? []).length <= 3);
    });
    for (let i = 0; i < 6; i++) await cp.client.pods(ns).delete(`m${i}`, { gracePeriodSeconds: 0 });
    await eventually(async () => {
      const slices = await slicesOf(ns, 'many');
      assert.deepEqual(
        endpointsOf(slices).map((e) => e.targetRef?.name),
        ['m6', 'm7'],
      );
      for (const s of slices) assert.ok((s.endpoints ?? []).length > 0, 'an empty slice is deleted');
    });
  });

  it('labels the slices of a headless Service', async () => {
    const ns = 'es-headless';
    await createNamespace(cp.client, ns);
    await createService(ns, 'hl', { clusterIP: 'None', selector: { app: 'hl' }, ports: [{ port: 80 }] });
    await runPod(cp.client, ns, 'h', { app: 'hl' }, '10.0.4.1', true, { hostname: 'h', subdomain: 'hl' });
    await eventually(async () => {
      const slices = (await slicesOf(ns, 'hl')).filter((s) => s.addressType === 'IPv4');
      assert.equal(slices.length, 1);
      assert.equal(slices[0]?.metadata.labels?.['service.kubernetes.io/headless'], '');
      assert.equal(slices[0]?.endpoints?.[0]?.hostname, 'h');
    });
  });

  it('leaves Services without a selector alone, recreates a slice a user deletes, and writes none for a deleted Service', async () => {
    const ns = 'es-lifecycle';
    await createNamespace(cp.client, ns);
    await createService(ns, 'manual', { ports: [{ port: 80 }] });
    await createService(ns, 'svc', { selector: { app: 's' }, ports: [{ port: 80 }] });
    await runPod(cp.client, ns, 's', { app: 's' }, '10.0.5.1', true);
    const first = await eventually(async () => {
      const slices = await slicesOf(ns, 'svc');
      assert.equal(endpointsOf(slices).length, 1);
      return slices[0] as EndpointSlice;
    });
    assert.deepEqual(await slicesOf(ns, 'manual'), []);

    await cp.client.endpointSlices(ns).delete(first.metadata.name ?? '');
    await eventually(async () => {
      const slices = await slicesOf(ns, 'svc');
      assert.equal(endpointsOf(slices).length, 1);
      assert.notEqual(slices[0]?.metadata.name, first.metadata.name);
    });

    await cp.client.services(ns).delete('svc');
    for (const s of await slicesOf(ns, 'svc')) await cp.client.endpointSlices(ns).delete(s.metadata.name ?? '');
    // A pod change would queue the Service if it were still there.
    await setPodStatus(cp.client, ns, 's', '10.0.5.1', false);
    await new Promise((r) => setTimeout(r, 1500));
    assert.deepEqual(await slicesOf(ns, 'svc'), []);
  });

  it('shows the slices to kubectl get endpointslices', async () => {
    const ns = 'es-basic';
    const out = await kubectl(cp, ['get', 'endpointslices', '-n', ns]);
    assert.equal(out.code, 0, out.stderr);
    const lines = out.stdout.trim().split('\n');
    assert.match(lines[0] ?? '', /^NAME\s+ADDRESSTYPE\s+PORTS\s+ENDPOINTS\s+AGE/);
    assert.match(lines[1] ?? '', /^web-\S+\s+IPv4\s+8080\s+10\.0\.0\.1\s+/);
  });
});
