import { after, before, describe, it } from 'node:test';
import { isNotFound, type KubeObject } from '../client/types.js';
import { nodeLifecycleController } from '../controllers/nodelifecycle/index.js';
import { persistentVolumeBinderController } from '../controllers/persistentvolume/index.js';
import { pvcProtectionController } from '../controllers/pvcprotection/index.js';
import { pvProtectionController } from '../controllers/pvprotection/index.js';
import { type ControlPlane, startControlPlane } from '../index.js';
import assert from '../testing/assert.js';
import { eventually, runControllers } from '../testing/controllers.js';

/**
 * Volumes end to end in one process: the persistentvolume-binder, the scheduler's VolumeBinding, and the simulated
 * nodes with their provisioner and the default `standard` class.
 */
const NS = 'default';
const PVS = { group: '', version: 'v1', resource: 'persistentvolumes' };
const PVCS = { group: '', version: 'v1', resource: 'persistentvolumeclaims' };

describe('Scheduler with volumes', () => {
  let cp: ControlPlane;
  let stopControllers: () => Promise<void>;
  const pvs = () => cp.client.resource(PVS);
  const pvcs = () => cp.client.resource(PVCS).namespace(NS);

  before(async () => {
    cp = await startControlPlane({ storage: 'memory', scheduler: true, nodes: 3 });
    const manager = await runControllers(cp, [
      nodeLifecycleController,
      persistentVolumeBinderController,
      pvcProtectionController,
      pvProtectionController,
    ]);
    stopControllers = () => manager.stop();
  });
  after(async () => {
    await stopControllers?.();
    await cp?.stop();
  });

  const claim = (name: string, spec: Record<string, unknown> = {}): KubeObject => ({
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name },
    spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, ...spec },
  });
  const pod = (name: string, claimName: string): KubeObject => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name },
    spec: {
      containers: [{ name: 'app', image: 'nginx:1.27', volumeMounts: [{ name: 'data', mountPath: '/data' }] }],
      volumes: [{ name: 'data', persistentVolumeClaim: { claimName } }],
    },
  });
  const scheduledCondition = async (name: string) =>
    (await cp.client.pods(NS).get(name)).status?.conditions?.find((c: { type: string }) => c.type === 'PodScheduled');
  async function gone(get: () => Promise<unknown>): Promise<boolean> {
    try {
      await get();
      return false;
    } catch (err) {
      if (isNotFound(err)) return true;
      throw err;
    }
  }

  it('provisions a WaitForFirstConsumer claim on the node the pod is scheduled to', async () => {
    const sc = await cp.client
      .resource({ group: 'storage.k8s.io', version: 'v1', resource: 'storageclasses' })
      .get('standard');
    assert.equal(sc.metadata.annotations?.['storageclass.kubernetes.io/is-default-class'], 'true');
    await pvcs().create(claim('data'));
    const created = await pvcs().get('data');
    assert.equal(created.spec.storageClassName, 'standard', 'DefaultStorageClass admission set the class');
    await eventually(async () => {
      const events = (await cp.client.events(NS).list()).items.filter((e) => e.involvedObject?.name === 'data');
      assert.ok(
        events.some((e) => e.reason === 'WaitForFirstConsumer'),
        'WaitForFirstConsumer event',
      );
    });
    assert.equal((await pvcs().get('data')).status?.phase, 'Pending');

    await cp.client.pods(NS).create(pod('db', 'data'));
    const running = await eventually(
      async () => {
        const p = await cp.client.pods(NS).get('db');
        assert.equal(p.status?.phase, 'Running', 'pod Running');
        return p;
      },
      { timeoutMs: 30_000 },
    );
    const bound = await pvcs().get('data');
    assert.equal(bound.status?.phase, 'Bound');
    assert.equal(bound.metadata.annotations?.['volume.kubernetes.io/selected-node'], running.spec.nodeName);
    assert.equal(bound.spec.volumeName, `pvc-${bound.metadata.uid}`);
    const pv = await pvs().get(bound.spec.volumeName);
    assert.equal(pv.metadata.annotations?.['pv.kubernetes.io/provisioned-by'], 'wheelhouse.dev/sim-local');
    assert.deepEqual(pv.spec.nodeAffinity.required.nodeSelectorTerms[0].matchExpressions[0].values, [
      running.spec.nodeName,
    ]);
    assert.equal(pv.spec.persistentVolumeReclaimPolicy, 'Delete');
    assert.deepEqual(pv.spec.capacity, { storage: '1Gi' });

    // A second pod using the claim goes to the volume's node.
    await cp.client.pods(NS).create(pod('db-reader', 'data'));
    await eventually(async () => {
      const p = await cp.client.pods(NS).get('db-reader');
      assert.equal(p.spec.nodeName, running.spec.nodeName, 'pinned to the volume node');
    });

    // Deleting the pods and the claim deletes the provisioned volume.
    await cp.client.pods(NS).delete('db', { gracePeriodSeconds: 0 });
    await cp.client.pods(NS).delete('db-reader', { gracePeriodSeconds: 0 });
    await pvcs().delete('data');
    await eventually(
      async () => assert.ok(await gone(() => pvs().get(pv.metadata.name ?? '')), 'provisioned PV deleted'),
      {
        timeoutMs: 30_000,
      },
    );
  });

  it('a pod whose claim does not exist is unschedulable with upstream message', async () => {
    await cp.client.pods(NS).create(pod('orphan', 'missing'));
    await eventually(async () => {
      const c = await scheduledCondition('orphan');
      assert.equal(c?.status, 'False', 'not scheduled');
      assert.match(c?.message ?? '', /persistentvolumeclaim "missing" not found/, 'message');
    });
    // Once the claim appears, the pod is retried and runs.
    await pvcs().create(claim('missing'));
    await eventually(
      async () =>
        assert.ok((await cp.client.pods(NS).get('orphan')).spec.nodeName, 'scheduled after the claim appeared'),
      { timeoutMs: 30_000 },
    );
  });

  it('an unbound Immediate claim keeps the pod pending; a static PV with node affinity decides its node', async () => {
    await pvcs().create(claim('manual', { storageClassName: 'manual' }));
    await cp.client.pods(NS).create(pod('static', 'manual'));
    await eventually(async () => {
      const c = await scheduledCondition('static');
      assert.match(c?.message ?? '', /pod has unbound immediate PersistentVolumeClaims/, 'unbound immediate message');
    });
    const nodes = (await cp.client.nodes().list()).items.map((n) => n.metadata.name as string).sort();
    const target = nodes.at(-1) ?? '';
    await pvs().create({
      apiVersion: 'v1',
      kind: 'PersistentVolume',
      metadata: { name: 'local-manual' },
      spec: {
        capacity: { storage: '5Gi' },
        accessModes: ['ReadWriteOnce'],
        storageClassName: 'manual',
        persistentVolumeReclaimPolicy: 'Retain',
        local: { path: '/mnt/disk1' },
        nodeAffinity: {
          required: {
            nodeSelectorTerms: [
              { matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: [target] }] },
            ],
          },
        },
      },
    });
    await eventually(
      async () => {
        const p = await cp.client.pods(NS).get('static');
        assert.equal(p.spec.nodeName, target, 'scheduled to the node of its volume');
      },
      { timeoutMs: 30_000 },
    );
  });
});
