import { after, before, describe, it } from 'node:test';
import { isNotFound, type KubeObject } from '../../client/types.js';
import { type ControlPlane, startControlPlane } from '../../index.js';
import assert from '../../testing/assert.js';
import { eventually, runControllers } from '../../testing/controllers.js';
import { FakeClock } from '../../util/clock.js';
import type { ControllerManager } from '../manager.js';
import { pvcProtectionController } from '../pvcprotection/index.js';
import { pvProtectionController } from '../pvprotection/index.js';
import { persistentVolumeBinderController } from './index.js';

const NS = 'default';
const PVS = { group: '', version: 'v1', resource: 'persistentvolumes' };
const PVCS = { group: '', version: 'v1', resource: 'persistentvolumeclaims' };
const CLASSES = { group: 'storage.k8s.io', version: 'v1', resource: 'storageclasses' };

describe('persistentvolume-binder-controller', () => {
  let cp: ControlPlane;
  let manager: ControllerManager;
  const pvs = () => cp.client.resource(PVS);
  const pvcs = () => cp.client.resource(PVCS).namespace(NS);

  before(async () => {
    cp = await startControlPlane({ storage: 'memory' });
    // With the protection controllers, as in a cluster: StorageObjectInUseProtection's finalizers hold deletes.
    manager = await runControllers(
      cp,
      [persistentVolumeBinderController, pvcProtectionController, pvProtectionController],
      {
        clock: new FakeClock(Date.now()),
      },
    );
  });
  after(async () => {
    await manager?.stop();
    await cp?.stop();
  });

  function volume(name: string, size: string, extra: Record<string, unknown> = {}): KubeObject {
    return {
      apiVersion: 'v1',
      kind: 'PersistentVolume',
      metadata: { name },
      spec: {
        capacity: { storage: size },
        accessModes: ['ReadWriteOnce'],
        storageClassName: 'manual',
        persistentVolumeReclaimPolicy: 'Retain',
        hostPath: { path: `/data/${name}` },
        ...extra,
      },
    };
  }
  function claim(name: string, spec: Record<string, unknown> = {}, annotations?: Record<string, string>): KubeObject {
    return {
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { name, ...(annotations ? { annotations } : {}) },
      spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, ...spec },
    };
  }
  async function eventsOf(name: string) {
    return (await cp.client.events(NS).list()).items.filter((e) => e.involvedObject?.name === name);
  }
  async function getOrUndefined(get: () => Promise<KubeObject>): Promise<KubeObject | undefined> {
    try {
      return await get();
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  it('binds a claim to the smallest matching Available volume, both ways, with upstream annotations', async () => {
    await pvs().create(volume('pv-small', '500Mi'));
    await pvs().create(volume('pv-big', '10Gi'));
    await pvs().create(volume('pv-fit', '2Gi'));
    await eventually(async () => {
      const pv = await pvs().get('pv-fit');
      assert.equal(pv.status?.phase, 'Available', 'a volume without claimRef is Available');
    });
    await pvcs().create(claim('static', { storageClassName: 'manual' }));
    const bound = await eventually(async () => {
      const pvc = await pvcs().get('static');
      assert.equal(pvc.status?.phase, 'Bound', 'claim Bound');
      return pvc;
    });
    assert.equal(bound.spec.volumeName, 'pv-fit');
    assert.equal(bound.metadata.annotations?.['pv.kubernetes.io/bind-completed'], 'yes');
    assert.equal(bound.metadata.annotations?.['pv.kubernetes.io/bound-by-controller'], 'yes');
    assert.deepEqual(bound.status.capacity, { storage: '2Gi' });
    assert.deepEqual(bound.status.accessModes, ['ReadWriteOnce']);
    const pv = await eventually(async () => {
      const v = await pvs().get('pv-fit');
      assert.equal(v.status?.phase, 'Bound', 'volume Bound');
      return v;
    });
    assert.equal(pv.spec.claimRef.name, 'static');
    assert.equal(pv.spec.claimRef.uid, bound.metadata.uid);
    assert.equal(pv.metadata.annotations?.['pv.kubernetes.io/bound-by-controller'], 'yes');

    // Retain: the volume is Released when its claim goes, and stays.
    await pvcs().delete('static');
    await eventually(async () => {
      const v = await pvs().get('pv-fit');
      assert.equal(v.status?.phase, 'Released', 'volume Released after its claim was deleted');
    });
  });

  it('a bound claim whose volume is deleted is Lost', async () => {
    await pvs().create(volume('pv-gone', '1Gi', { storageClassName: 'lost' }));
    await pvcs().create(claim('orphan', { storageClassName: 'lost' }));
    await eventually(async () => assert.equal((await pvcs().get('orphan')).status?.phase, 'Bound', 'bound first'));
    await pvs().delete('pv-gone');
    // pv-protection keeps a Bound volume; an admin forcing it away removes the finalizer.
    const held = await pvs().get('pv-gone');
    assert.ok(held.metadata.deletionTimestamp);
    assert.deepEqual(held.metadata.finalizers, ['kubernetes.io/pv-protection']);
    await pvs().update({ ...held, metadata: { ...held.metadata, finalizers: [] } });
    await eventually(async () => {
      assert.equal((await pvcs().get('orphan')).status?.phase, 'Lost', 'claim Lost');
      const e = (await eventsOf('orphan')).find((x) => x.reason === 'ClaimLost');
      assert.equal(
        e?.message,
        'Bound claim has lost its PersistentVolume. Data on the volume is lost!',
        'ClaimLost event',
      );
    });
  });

  it('a WaitForFirstConsumer claim waits, then is handed to the external provisioner once a node is selected', async () => {
    await cp.client.resource(CLASSES).create({
      apiVersion: 'storage.k8s.io/v1',
      kind: 'StorageClass',
      metadata: { name: 'wffc' },
      provisioner: 'example.com/local',
      volumeBindingMode: 'WaitForFirstConsumer',
      reclaimPolicy: 'Delete',
    });
    await pvcs().create(claim('late', { storageClassName: 'wffc' }));
    await eventually(async () => {
      const e = (await eventsOf('late')).find((x) => x.reason === 'WaitForFirstConsumer');
      assert.equal(e?.message, 'waiting for first consumer to be created before binding', 'WaitForFirstConsumer event');
      assert.equal(e?.source?.component, 'persistentvolume-controller');
      assert.equal((await pvcs().get('late')).status?.phase, 'Pending', 'claim Pending');
    });
    // The scheduler picks a node.
    const pending = await pvcs().get('late');
    pending.metadata.annotations = { ...pending.metadata.annotations, 'volume.kubernetes.io/selected-node': 'node-1' };
    await pvcs().update(pending);
    const handed = await eventually(async () => {
      const pvc = await pvcs().get('late');
      assert.equal(
        pvc.metadata.annotations?.['volume.kubernetes.io/storage-provisioner'],
        'example.com/local',
        'provisioner',
      );
      const e = (await eventsOf('late')).find((x) => x.reason === 'ExternalProvisioning');
      assert.match(e?.message ?? '', /external provisioner 'example.com\/local'/, 'ExternalProvisioning event');
      return pvc;
    });
    assert.equal(handed.metadata.annotations?.['volume.beta.kubernetes.io/storage-provisioner'], 'example.com/local');
    // The provisioner creates a volume pre-bound to the claim; the binder finishes the binding.
    await pvs().create(
      volume(`pvc-${handed.metadata.uid}`, '1Gi', {
        storageClassName: 'wffc',
        persistentVolumeReclaimPolicy: 'Delete',
        claimRef: {
          kind: 'PersistentVolumeClaim',
          apiVersion: 'v1',
          namespace: NS,
          name: 'late',
          uid: handed.metadata.uid,
        },
      }),
    );
    const pv = await eventually(async () => {
      const pvc = await pvcs().get('late');
      assert.equal(pvc.status?.phase, 'Bound', 'provisioned claim Bound');
      const v = await pvs().get(`pvc-${handed.metadata.uid}`);
      assert.equal(v.status?.phase, 'Bound', 'provisioned volume Bound');
      return v;
    });
    assert.equal(
      pv.metadata.annotations?.['pv.kubernetes.io/bound-by-controller'],
      undefined,
      'pre-bound by its maker',
    );
  });

  it('assigns a default StorageClass that appears later to claims without a class', async () => {
    await pvcs().create(claim('classless'));
    await cp.client.resource(CLASSES).create({
      apiVersion: 'storage.k8s.io/v1',
      kind: 'StorageClass',
      metadata: { name: 'late-default', annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' } },
      provisioner: 'example.com/other',
    });
    await eventually(async () => {
      const pvc = await pvcs().get('classless');
      assert.equal(pvc.spec.storageClassName, 'late-default', 'default class assigned');
    });
    await cp.client.resource(CLASSES).delete('late-default');
  });

  it('a volume with the Delete policy that no provisioner made fails to be deleted', async () => {
    await pvs().create(
      volume('pv-manual-delete', '1Gi', { storageClassName: 'md', persistentVolumeReclaimPolicy: 'Delete' }),
    );
    await pvcs().create(claim('md', { storageClassName: 'md' }));
    await eventually(async () => assert.equal((await pvcs().get('md')).status?.phase, 'Bound', 'bound first'));
    await pvcs().delete('md');
    await eventually(async () => {
      const v = await getOrUndefined(() => pvs().get('pv-manual-delete'));
      assert.equal(v?.status?.phase, 'Failed', 'volume Failed');
      assert.match(v?.status?.message ?? '', /no deletable volume plugin matched/, 'failure message');
    });
  });
});
