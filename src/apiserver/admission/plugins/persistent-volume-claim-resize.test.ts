import { after, before, describe, it } from 'node:test';
import {
  type AdmissionTestCluster,
  admissionTestCluster,
  refusalMessage as refusal,
  runPlugin,
} from '../../../testing/admission-registry.js';
import assert from '../../../testing/assert.js';
import type { KubeObject } from '../../registry/object.js';
import { ClusterReader } from './cluster-reader.js';
import { persistentVolumeClaimResize } from './persistent-volume-claim-resize.js';

const claim = (storageClassName: string, storage: string, phase = 'Bound'): KubeObject => ({
  metadata: { name: 'data', namespace: 'default' },
  spec: { storageClassName, accessModes: ['ReadWriteOnce'], resources: { requests: { storage } } },
  status: { phase },
});

describe('PersistentVolumeClaimResize admission', () => {
  let cluster: AdmissionTestCluster;
  let plugin: ReturnType<typeof persistentVolumeClaimResize>;
  const update = (next: KubeObject, old: KubeObject) =>
    runPlugin(
      plugin,
      cluster.attrs('', 'v1', 'persistentvolumeclaims', { operation: 'UPDATE', object: next, oldObject: old }),
    );

  before(async () => {
    cluster = admissionTestCluster();
    const sc = (name: string, allowVolumeExpansion: boolean) =>
      cluster.put('storage.k8s.io', 'v1', 'storageclasses', {
        metadata: { name },
        provisioner: 'example.com/p',
        allowVolumeExpansion,
      });
    await sc('grows', true);
    await sc('fixed', false);
    await cluster.settle();
    plugin = persistentVolumeClaimResize(new ClusterReader(cluster.registry));
  });
  after(() => cluster.close());

  it('lets a bound claim of an expandable class grow, and any claim stay or shrink', async () => {
    await update(claim('grows', '2Gi'), claim('grows', '1Gi'));
    await update(claim('fixed', '1Gi'), claim('fixed', '2Gi'));
  });

  it('refuses growth when the class does not allow expansion, with upstream message', async () => {
    assert.equal(
      await refusal(update(claim('fixed', '2Gi'), claim('fixed', '1Gi'))),
      'persistentvolumeclaims "data" is forbidden: only dynamically provisioned pvc can be resized and the storageclass that provisions the pvc must support resize',
    );
    assert.match(
      await refusal(update(claim('missing', '2Gi'), claim('missing', '1Gi'))),
      /only dynamically provisioned/,
    );
  });

  it('refuses growth of a claim that is not bound', async () => {
    assert.equal(
      await refusal(update(claim('grows', '2Gi', 'Pending'), claim('grows', '1Gi', 'Pending'))),
      'persistentvolumeclaims "data" is forbidden: Only bound persistent volume claims can be expanded',
    );
  });
});
