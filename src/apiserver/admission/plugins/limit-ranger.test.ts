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
import { limitRanger } from './limit-ranger.js';

type Rec = Record<string, unknown>;
const pod = (namespace: string, containers: Rec[], extra: Rec = {}): KubeObject => ({
  metadata: { name: 'x', namespace },
  spec: { containers, ...extra },
});

describe('LimitRanger admission', () => {
  let cluster: AdmissionTestCluster;
  let plugin: ReturnType<typeof limitRanger>;
  const create = (obj: KubeObject, resource = 'pods') =>
    runPlugin(plugin, cluster.attrs('', 'v1', resource, { operation: 'CREATE', object: obj }));

  before(async () => {
    cluster = admissionTestCluster();
    for (const name of ['lr', 'plain', 'pvc']) await cluster.put('', 'v1', 'namespaces', { metadata: { name } });
    await cluster.put('', 'v1', 'limitranges', {
      metadata: { name: 'limits', namespace: 'lr' },
      spec: {
        limits: [
          {
            type: 'Container',
            max: { cpu: '1' },
            min: { memory: '64Mi' },
            defaultRequest: { cpu: '100m', memory: '128Mi' },
            default: { cpu: '500m', memory: '256Mi' },
            maxLimitRequestRatio: { cpu: '5' },
          },
          { type: 'Pod', max: { memory: '1Gi' } },
        ],
      },
    });
    await cluster.put('', 'v1', 'limitranges', {
      metadata: { name: 'storage', namespace: 'pvc' },
      spec: { limits: [{ type: 'PersistentVolumeClaim', min: { storage: '1Gi' }, max: { storage: '10Gi' } }] },
    });
    await cluster.settle();
    plugin = limitRanger(new ClusterReader(cluster.registry));
  });
  after(() => cluster.close());

  it('sets container defaults and says so in the kubernetes.io/limit-ranger annotation', async () => {
    const p = pod('lr', [{ name: 'app', image: 'i' }], {
      initContainers: [{ name: 'init', image: 'i', resources: { limits: { cpu: '200m' }, requests: { cpu: '200m' } } }],
    });
    await create(p);
    const spec = p.spec as { containers: Rec[]; initContainers: Rec[] };
    assert.deepEqual(spec.containers[0]?.resources, {
      limits: { cpu: '500m', memory: '256Mi' },
      requests: { cpu: '100m', memory: '128Mi' },
    });
    assert.deepEqual(spec.initContainers[0]?.resources, {
      limits: { cpu: '200m', memory: '256Mi' },
      requests: { cpu: '200m', memory: '128Mi' },
    });
    assert.equal(
      p.metadata.annotations?.['kubernetes.io/limit-ranger'],
      'LimitRanger plugin set: cpu, memory request for container app; cpu, memory limit for container app; memory request for init container init; memory limit for init container init',
    );
  });

  it('refuses a container over the maximum with upstream message', async () => {
    const p = pod('lr', [{ name: 'app', image: 'i', resources: { limits: { cpu: '2' }, requests: { cpu: '1' } } }]);
    assert.equal(
      await refusal(create(p)),
      'pods "x" is forbidden: maximum cpu usage per Container is 1, but limit is 2',
    );
  });

  it('checks minimum, limit-to-request ratio and the pod total, several failures in brackets', async () => {
    const ratio = pod('lr', [
      { name: 'app', image: 'i', resources: { limits: { cpu: '1' }, requests: { cpu: '100m' } } },
    ]);
    assert.equal(
      await refusal(create(ratio)),
      'pods "x" is forbidden: cpu max limit to request ratio per Container is 5, but provided ratio is 10.000000',
    );
    const small = pod('lr', [
      {
        name: 'app',
        image: 'i',
        resources: { limits: { cpu: '2', memory: '32Mi' }, requests: { cpu: '1', memory: '32Mi' } },
      },
    ]);
    assert.equal(
      await refusal(create(small)),
      'pods "x" is forbidden: [minimum memory usage per Container is 64Mi, but request is 32Mi, maximum cpu usage per Container is 1, but limit is 2]',
    );
    const big = pod(
      'lr',
      ['a', 'b', 'c', 'd', 'e'].map((name) => ({
        name,
        image: 'i',
        resources: { limits: { memory: '256Mi' }, requests: { memory: '256Mi' } },
      })),
    );
    assert.equal(
      await refusal(create(big)),
      'pods "x" is forbidden: maximum memory usage per Pod is 1Gi, but limit is 1280Mi',
    );
  });

  it('leaves pods alone in a namespace without LimitRanges, and pod updates everywhere', async () => {
    const p = pod('plain', [{ name: 'app', image: 'i' }]);
    await create(p);
    assert.equal((p.spec as { containers: Rec[] }).containers[0]?.resources, undefined);
    const big = pod('lr', [{ name: 'app', image: 'i', resources: { limits: { cpu: '8' } } }]);
    await runPlugin(plugin, cluster.attrs('', 'v1', 'pods', { operation: 'UPDATE', object: big, oldObject: big }));
  });

  it('bounds a claim’s storage request', async () => {
    const claim = (storage: string): KubeObject => ({
      metadata: { name: 'data', namespace: 'pvc' },
      spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage } } },
    });
    assert.equal(
      await refusal(create(claim('20Gi'), 'persistentvolumeclaims')),
      'persistentvolumeclaims "data" is forbidden: maximum storage usage per PersistentVolumeClaim is 10Gi, but request is 20Gi',
    );
    assert.equal(
      await refusal(create(claim('500Mi'), 'persistentvolumeclaims')),
      'persistentvolumeclaims "data" is forbidden: minimum storage usage per PersistentVolumeClaim is 1Gi, but request is 500Mi',
    );
    await create(claim('5Gi'), 'persistentvolumeclaims');
  });
});
