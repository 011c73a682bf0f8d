import { after, before, describe, it } from 'node:test';
import { isNotFound, type KubeObject } from '../../client/types.js';
import { type ControlPlane, startControlPlane } from '../../index.js';
import assert from '../../testing/assert.js';
import { eventually, runControllers } from '../../testing/controllers.js';
import type { ControllerManager } from '../manager.js';
import { pvProtectionController } from '../pvprotection/index.js';
import { pvcProtectionController } from './index.js';

const PVS = { group: '', version: 'v1', resource: 'persistentvolumes' };
const PVCS = { group: '', version: 'v1', resource: 'persistentvolumeclaims' };

describe('storage object in-use protection: the admission plugin and the pvc-protection / pv-protection controllers', () => {
  let cp: ControlPlane;
  let manager: ControllerManager;
  const pvcs = () => cp.client.resource(PVCS).namespace('default');
  const gone = async (get: () => Promise<KubeObject>) => {
    try {
      await get();
      return false;
    } catch (err) {
      if (isNotFound(err)) return true;
      throw err;
    }
  };

  before(async () => {
    cp = await startControlPlane();
    manager = await runControllers(cp, [pvcProtectionController, pvProtectionController]);
  });
  after(async () => {
    await manager?.stop();
    await cp?.stop();
  });

  const claim = (name: string): KubeObject => ({
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name },
    spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
  });

  it('keeps a claim a scheduled pod mounts until the pod is gone', async () => {
    const created = await pvcs().create(claim('data'));
    assert.deepEqual(created.metadata.finalizers, ['kubernetes.io/pvc-protection']);
    await cp.client.pods('default').create({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'user' },
      spec: {
        nodeName: 'node-a',
        containers: [{ name: 'c', image: 'i' }],
        volumes: [{ name: 'v', persistentVolumeClaim: { claimName: 'data' } }],
      },
    });
    await pvcs().delete('data');
    const held = await pvcs().get('data');
    assert.ok(held.metadata.deletionTimestamp, 'marked for deletion');
    assert.equal(await gone(() => pvcs().get('data')), false);
    await cp.client.pods('default').delete('user', { gracePeriodSeconds: 0 });
    await eventually(async () => assert.ok(await gone(() => pvcs().get('data')), 'claim deleted once unused'));
  });

  it('lets an unused claim go at once', async () => {
    await pvcs().create(claim('idle'));
    await pvcs().delete('idle');
    await eventually(async () => assert.ok(await gone(() => pvcs().get('idle'))));
  });

  it('keeps a Bound volume and deletes an unbound one', async () => {
    const pv = await cp.client.resource(PVS).create({
      apiVersion: 'v1',
      kind: 'PersistentVolume',
      metadata: { name: 'vol' },
      spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/tmp/vol' } },
    });
    assert.deepEqual(pv.metadata.finalizers, ['kubernetes.io/pv-protection']);
    const bound = await cp.client.resource(PVS).updateStatus({ ...pv, status: { phase: 'Bound' } });
    await cp.client.resource(PVS).delete('vol');
    const held = await cp.client.resource(PVS).get('vol');
    assert.ok(held.metadata.deletionTimestamp);
    await cp.client.resource(PVS).updateStatus({ ...held, status: { ...bound.status, phase: 'Released' } });
    await eventually(async () => assert.ok(await gone(() => cp.client.resource(PVS).get('vol'))));
  });
});
