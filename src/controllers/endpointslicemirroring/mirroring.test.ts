import { after, before, describe, it } from 'node:test';
import type { KubeObject } from '../../client/types.js';
import { type ControlPlane, startControlPlane } from '../../index.js';
import assert from '../../testing/assert.js';
import { eventually, runControllers } from '../../testing/controllers.js';
import { endpointsController } from '../endpoints/index.js';
import { endpointSliceController } from '../endpointslice/index.js';
import { createNamespace, createNode, runPod } from '../endpointslice/test-fixtures.js';
import type { EndpointSlice } from '../endpointslice/types.js';
import type { ControllerManager } from '../manager.js';
import { endpointSliceMirroringController } from './index.js';

const MIRRORED = 'endpointslicemirroring-controller.k8s.io';

describe('endpointslice-mirroring-controller', () => {
  let cp: ControlPlane;
  let manager: ControllerManager;

  before(async () => {
    cp = await startControlPlane({ storage: 'memory' });
    await createNode(cp.client, 'node-1');
    manager = await runControllers(cp, [
      endpointsController,
      endpointSliceController,
      endpointSliceMirroringController,
    ]);
  });
  after(async () => {
    await manager?.stop();
    await cp?.stop();
  });

  async function mirrored(ns: string, name: string): Promise<EndpointSlice[]> {
    const list = await cp.client.endpointSlices(ns).list({
      labelSelector: `kubernetes.io/service-name=${name},endpointslice.kubernetes.io/managed-by=${MIRRORED}`,
    });
    return list.items as EndpointSlice[];
  }
  const service = (name: string, spec: Record<string, unknown> = { ports: [{ port: 5432 }] }): KubeObject => ({
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name },
    spec,
  });

  it("mirrors a selector-less Service's Endpoints into EndpointSlices, and follows them", async () => {
    const ns = 'mir-basic';
    await createNamespace(cp.client, ns);
    await cp.client.services(ns).create(service('db'));
    const ep = await cp.client.endpoints(ns).create({
      apiVersion: 'v1',
      kind: 'Endpoints',
      metadata: {
        name: 'db',
        labels: { team: 'data' },
        annotations: { note: 'by hand', 'endpoints.kubernetes.io/last-change-trigger-time': '2024-01-01T00:00:00Z' },
      },
      subsets: [
        {
          addresses: [{ ip: '192.168.1.10', hostname: 'db-0' }],
          notReadyAddresses: [{ ip: '192.168.1.11' }],
          ports: [{ name: 'pg', port: 5432 }],
        },
        { addresses: [{ ip: 'fd00::10' }], ports: [{ name: 'pg', port: 5432 }] },
      ],
    });
    const slices = await eventually(async () => {
      const got = await mirrored(ns, 'db');
      assert.equal(got.length, 2);
      return got;
    });
    const v4 = slices.find((s) => s.addressType === 'IPv4') as EndpointSlice;
    const v6 = slices.find((s) => s.addressType === 'IPv6') as EndpointSlice;
    assert.equal(v4.metadata.generateName, 'db-');
    assert.deepEqual(v4.metadata.labels, {
      team: 'data',
      'kubernetes.io/service-name': 'db',
      'endpointslice.kubernetes.io/managed-by': MIRRORED,
    });
    assert.deepEqual(v4.metadata.annotations, { note: 'by hand' });
    assert.deepEqual(v4.metadata.ownerReferences, [
      {
        apiVersion: 'v1',
        kind: 'Endpoints',
        name: 'db',
        uid: ep.metadata.uid,
        controller: true,
        blockOwnerDeletion: true,
      },
    ]);
    assert.deepEqual(v4.ports, [{ name: 'pg', port: 5432, protocol: 'TCP' }]);
    assert.deepEqual(
      [...(v4.endpoints ?? [])].sort((a, b) => (a.addresses[0] ?? '').localeCompare(b.addresses[0] ?? '')),
      [
        { addresses: ['192.168.1.10'], conditions: { ready: true }, hostname: 'db-0' },
        { addresses: ['192.168.1.11'], conditions: { ready: false } },
      ],
    );
    assert.deepEqual(v6.endpoints, [{ addresses: ['fd00::10'], conditions: { ready: true } }]);

    // A change to the Endpoints updates the slice in place.
    const current = await cp.client.endpoints(ns).get('db');
    current.subsets = [{ addresses: [{ ip: '192.168.1.12' }], ports: [{ name: 'pg', port: 5432 }] }];
    await cp.client.endpoints(ns).update(current);
    await eventually(async () => {
      const got = await mirrored(ns, 'db');
      assert.equal(got.length, 1);
      assert.equal(got[0]?.metadata.name, v4.metadata.name);
      assert.deepEqual(got[0]?.endpoints, [{ addresses: ['192.168.1.12'], conditions: { ready: true } }]);
    });

    // The Endpoints gone: so are the mirrored slices.
    await cp.client.endpoints(ns).delete('db');
    await eventually(async () => assert.deepEqual(await mirrored(ns, 'db'), []));
  });

  it('does not mirror skip-mirror Endpoints, the kubernetes Endpoints, or Endpoints of a Service with a selector', async () => {
    const ns = 'mir-skip';
    await createNamespace(cp.client, ns);
    await cp.client.services(ns).create(service('skipped'));
    await cp.client.endpoints(ns).create({
      apiVersion: 'v1',
      kind: 'Endpoints',
      metadata: { name: 'skipped', labels: { 'endpointslice.kubernetes.io/skip-mirror': 'true' } },
      subsets: [{ addresses: [{ ip: '192.168.2.1' }], ports: [{ port: 5432 }] }],
    });
    // A selector Service: its Endpoints come from the endpoints controller and its slices from the endpointslice one.
    await cp.client.services(ns).create(service('web', { selector: { app: 'web' }, ports: [{ port: 80 }] }));
    await runPod(cp.client, ns, 'w', { app: 'web' }, '10.2.0.1', true);
    // A mirrored one, created last, is the barrier: once it is mirrored the others have been seen.
    await cp.client.services(ns).create(service('barrier'));
    await cp.client.endpoints(ns).create({
      apiVersion: 'v1',
      kind: 'Endpoints',
      metadata: { name: 'barrier' },
      subsets: [{ addresses: [{ ip: '192.168.2.2' }], ports: [{ port: 5432 }] }],
    });
    await eventually(async () => assert.equal((await mirrored(ns, 'barrier')).length, 1));
    await eventually(async () => {
      const ep = await cp.client.endpoints(ns).get('web');
      assert.equal(ep.subsets?.[0]?.addresses?.[0]?.ip, '10.2.0.1');
      const slices = await cp.client.endpointSlices(ns).list({ labelSelector: 'kubernetes.io/service-name=web' });
      assert.deepEqual(
        slices.items.map((s) => s.metadata.labels?.['endpointslice.kubernetes.io/managed-by']),
        ['endpointslice-controller.k8s.io'],
      );
    });
    assert.deepEqual(await mirrored(ns, 'skipped'), []);
    assert.deepEqual(await mirrored('default', 'kubernetes'), []);

    // The barrier's Service gains a selector: its mirrored slices go.
    const svc = await cp.client.services(ns).get('barrier');
    svc.spec.selector = { app: 'none' };
    await cp.client.services(ns).update(svc);
    await eventually(async () => assert.deepEqual(await mirrored(ns, 'barrier'), []));
  });
});
