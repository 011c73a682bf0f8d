import { describe, it } from 'node:test';
import assert from '../../../testing/assert.js';
import type { KubeObject } from '../object.js';
import {
  defaultPersistentVolumeClaim,
  persistentVolumeClaimPrinter,
  validatePersistentVolumeClaim,
  validatePersistentVolumeClaimUpdate,
} from './core-persistentvolumeclaims.js';
import {
  defaultPersistentVolume,
  persistentVolumePrinter,
  validatePersistentVolume,
} from './core-persistentvolumes.js';

const NOW = Date.parse('2025-01-01T00:00:30Z');

describe('persistent volumes', () => {
  it('default reclaim policy and volume mode, and print their columns', () => {
    const pv: KubeObject = {
      metadata: { name: 'pv1', creationTimestamp: '2025-01-01T00:00:00Z' },
      spec: {
        capacity: { storage: '1024Mi' },
        accessModes: ['ReadWriteOnce', 'ReadOnlyMany'],
        hostPath: { path: '/data' },
        claimRef: { namespace: 'default', name: 'data' },
      },
      status: { phase: 'Bound' },
    };
    defaultPersistentVolume(pv);
    assert.deepEqual(validatePersistentVolume(pv), []);
    assert.deepEqual(persistentVolumePrinter.cells(pv, NOW), [
      'pv1',
      '1Gi',
      'RWO,ROX',
      'Retain',
      'Bound',
      'default/data',
      '',
      '<unset>',
      '',
      '30s',
      'Filesystem',
    ]);
  });

  it('need access modes, a storage capacity and one volume source', () => {
    const pv: KubeObject = { metadata: { name: 'pv1' }, spec: {} };
    defaultPersistentVolume(pv);
    assert.deepEqual(
      validatePersistentVolume(pv).map((e) => e.message),
      [
        'spec.accessModes: Required value',
        'spec.capacity: Required value',
        'spec.capacity: Unsupported value: core.ResourceList(nil): supported values: "storage"',
        'spec: Required value: must specify a volume type',
      ],
    );
  });
});

describe('persistent volume claims', () => {
  const claim = (): KubeObject => {
    const pvc: KubeObject = {
      metadata: { name: 'data', creationTimestamp: '2025-01-01T00:00:00Z' },
      spec: {
        accessModes: ['ReadWriteOnce'],
        resources: { requests: { storage: '1Gi' } },
        storageClassName: 'standard',
      },
      status: { phase: 'Pending' },
    };
    defaultPersistentVolumeClaim(pvc);
    return pvc;
  };

  it('validate access modes and the storage request', () => {
    assert.deepEqual(validatePersistentVolumeClaim(claim()), []);
    const bad: KubeObject = { metadata: { name: 'x' }, spec: {} };
    assert.deepEqual(
      validatePersistentVolumeClaim(bad).map((e) => e.message),
      [
        'spec.accessModes: Required value: at least 1 access mode is required',
        'spec.resources[storage]: Required value',
      ],
    );
  });

  it('keep the spec, except the storage request of a bound claim and the volume name once', () => {
    const old = claim();
    const bind = structuredClone(old);
    (bind.spec as Record<string, unknown>).volumeName = 'pv1';
    assert.deepEqual(validatePersistentVolumeClaimUpdate(bind, old), []);
    const change = structuredClone(old);
    (change.spec as Record<string, unknown>).storageClassName = 'fast';
    const [err] = validatePersistentVolumeClaimUpdate(change, old);
    assert.ok(
      err?.message.startsWith(
        'spec: Forbidden: spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims\n',
      ),
    );
  });

  it('print capacity and access modes once bound', () => {
    const pvc = claim();
    assert.deepEqual(persistentVolumeClaimPrinter.cells(pvc, NOW), [
      'data',
      'Pending',
      '',
      '',
      '',
      'standard',
      '<unset>',
      '30s',
      'Filesystem',
    ]);
    (pvc.spec as Record<string, unknown>).volumeName = 'pv1';
    pvc.status = { phase: 'Bound', capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'] };
    assert.deepEqual(persistentVolumeClaimPrinter.cells(pvc, NOW).slice(1, 5), ['Bound', 'pv1', '1Gi', 'RWO']);
  });
});
