import { describe, it } from 'node:test';
import assert from '../../../testing/assert.js';
import type { KubeObject } from '../object.js';
import { persistentvolumeclaims } from './core-persistentvolumeclaims.js';

const strategy = persistentvolumeclaims().def.strategy;

describe('v1 PersistentVolumeClaims: warnings', () => {
  it('warns of the beta storage-class annotation and of fractional storage, on create and update', () => {
    const pvc = {
      metadata: {
        name: 'data',
        namespace: 'default',
        annotations: { 'volume.beta.kubernetes.io/storage-class': 'standard' },
      },
      spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1500m' } } },
    } as unknown as KubeObject;
    const expected = [
      'metadata.annotations[volume.beta.kubernetes.io/storage-class]: deprecated since v1.8; use "storageClassName" attribute instead',
      'spec.resources.requests[storage]: fractional byte value "1500m" is invalid, must be an integer',
    ];
    assert.deepEqual(strategy.warningsOnCreate?.(pvc), expected);
    assert.deepEqual(strategy.warningsOnUpdate?.(pvc, pvc), expected);
    const plain = { metadata: { name: 'd' }, spec: { resources: { requests: { storage: '1Gi' } } } } as KubeObject;
    assert.deepEqual(strategy.warningsOnCreate?.(plain), []);
  });
});
