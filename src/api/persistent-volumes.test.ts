import { describe, it } from 'node:test';
import assert from '../testing/assert.js';
import { checkNodeAffinity, claimClass, findMatchingVolume, podClaimNames } from './persistent-volumes.js';

function pv(name: string, size: string, extra: Record<string, unknown> = {}, phase = 'Available') {
  return {
    metadata: { name, labels: { tier: name.startsWith('fast') ? 'fast' : 'slow' } },
    spec: {
      capacity: { storage: size },
      accessModes: ['ReadWriteOnce'],
      storageClassName: 'manual',
      ...extra,
    },
    status: { phase },
  };
}

const claim = (spec: Record<string, unknown> = {}) => ({
  metadata: { name: 'data', namespace: 'default', uid: 'u1' },
  spec: {
    accessModes: ['ReadWriteOnce'],
    resources: { requests: { storage: '1Gi' } },
    storageClassName: 'manual',
    ...spec,
  },
});

const node = (name: string) => ({ metadata: { name, labels: { 'kubernetes.io/hostname': name } } });
const onNode = (n: string) => ({
  nodeAffinity: {
    required: {
      nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: [n] }] }],
    },
  },
});

describe('findMatchingVolume', () => {
  it('chooses the smallest Available volume that is big enough', () => {
    const vols = [
      pv('small', '500Mi'),
      pv('big', '10Gi'),
      pv('fit', '2Gi'),
      pv('bound', '1Gi', { claimRef: { name: 'x', namespace: 'default' } }),
    ];
    assert.equal(findMatchingVolume(claim(), vols)?.metadata.name, 'fit');
  });

  it('respects class, access modes, volume mode, selector and phase', () => {
    assert.equal(findMatchingVolume(claim(), [pv('other', '1Gi', { storageClassName: 'fast' })]), undefined);
    assert.equal(findMatchingVolume(claim({ accessModes: ['ReadWriteMany'] }), [pv('a', '1Gi')]), undefined);
    assert.equal(findMatchingVolume(claim({ volumeMode: 'Block' }), [pv('a', '1Gi')]), undefined);
    assert.equal(findMatchingVolume(claim(), [pv('a', '1Gi', {}, 'Released')]), undefined);
    const selected = findMatchingVolume(claim({ selector: { matchLabels: { tier: 'fast' } } }), [
      pv('slow-1', '1Gi'),
      pv('fast-1', '5Gi'),
    ]);
    assert.equal(selected?.metadata.name, 'fast-1');
  });

  it('prefers the volume pre-bound to the claim, and only it for WaitForFirstConsumer without a node', () => {
    const prebound = pv('pre', '5Gi', { claimRef: { name: 'data', namespace: 'default' } });
    assert.equal(findMatchingVolume(claim(), [pv('a', '1Gi'), prebound])?.metadata.name, 'pre');
    assert.equal(findMatchingVolume(claim(), [pv('a', '1Gi')], { delayBinding: true }), undefined);
    assert.equal(findMatchingVolume(claim(), [prebound], { delayBinding: true })?.metadata.name, 'pre');
  });

  it('checks node affinity for the scheduler', () => {
    const vols = [pv('n1', '1Gi', onNode('node-1')), pv('n2', '2Gi', onNode('node-2'))];
    assert.equal(findMatchingVolume(claim(), vols, { node: node('node-2') })?.metadata.name, 'n2');
    assert.equal(findMatchingVolume(claim(), vols, { node: node('node-3') }), undefined);
    assert.equal(checkNodeAffinity(vols[0] as never, node('node-2')), 'no matching NodeSelectorTerms');
    assert.equal(checkNodeAffinity(vols[0] as never, node('node-1')), undefined);
  });
});

describe('claims', () => {
  it('reads the class from the beta annotation first', () => {
    assert.equal(
      claimClass({
        metadata: { annotations: { 'volume.beta.kubernetes.io/storage-class': 'old' } },
        spec: { storageClassName: 'new' },
      }),
      'old',
    );
    assert.equal(claimClass({ metadata: {}, spec: {} }), '');
  });
  it('names the claims of a pod, ephemeral ones as <pod>-<volume>', () => {
    const pod = {
      metadata: { name: 'web' },
      spec: {
        volumes: [
          { name: 'a', persistentVolumeClaim: { claimName: 'data' } },
          { name: 'tmp', emptyDir: {} },
          { name: 'scratch', ephemeral: {} },
        ],
      },
    };
    assert.deepEqual(podClaimNames(pod), [
      { name: 'data', ephemeral: false },
      { name: 'web-scratch', ephemeral: true },
    ]);
  });
});
