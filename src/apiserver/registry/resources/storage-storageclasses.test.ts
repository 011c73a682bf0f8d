import { describe, it } from 'node:test';
import assert from '../../../testing/assert.js';
import type { KubeObject } from '../object.js';
import { storageclasses } from './storage-storageclasses.js';

const strategy = storageclasses.def.strategy;

describe('storage.k8s.io/v1 StorageClasses', () => {
  it('defaults reclaimPolicy and volumeBindingMode, and returns the deleted object', () => {
    const obj: KubeObject = { metadata: { name: 'fast' }, provisioner: 'example.com/ssd' };
    strategy.default?.(obj);
    assert.equal(obj.reclaimPolicy, 'Delete');
    assert.equal(obj.volumeBindingMode, 'Immediate');
    assert.deepEqual(strategy.validate?.(obj), []);
    assert.equal(strategy.returnDeletedObject, true);
    assert.equal(strategy.tracksGeneration, false);
  });

  it('validates provisioner and policies with upstream text', () => {
    const obj: KubeObject = { metadata: { name: 'x' }, reclaimPolicy: 'Recycle', volumeBindingMode: 'Later' };
    assert.deepEqual(
      (strategy.validate?.(obj) ?? []).map((e) => e.message),
      [
        'provisioner: Required value',
        'reclaimPolicy: Unsupported value: "Recycle": supported values: "Delete", "Retain"',
        'volumeBindingMode: Unsupported value: "Later": supported values: "Immediate", "WaitForFirstConsumer"',
      ],
    );
  });

  it('forbids changing parameters, provisioner and reclaimPolicy', () => {
    const old: KubeObject = {
      metadata: { name: 'fast', resourceVersion: '1' },
      provisioner: 'a.io/x',
      parameters: { type: 'ssd' },
      reclaimPolicy: 'Delete',
      volumeBindingMode: 'Immediate',
    };
    const next: KubeObject = {
      ...structuredClone(old),
      provisioner: 'b.io/x',
      parameters: { type: 'hdd' },
      reclaimPolicy: 'Retain',
    };
    assert.deepEqual(
      (strategy.validateUpdate?.(next, old) ?? []).map((e) => e.message),
      [
        'parameters: Forbidden: updates to parameters are forbidden.',
        'provisioner: Forbidden: updates to provisioner are forbidden.',
        'reclaimPolicy: Forbidden: updates to reclaimPolicy are forbidden.',
      ],
    );
  });

  it('marks the default class in the NAME column', () => {
    const obj: KubeObject = {
      metadata: {
        name: 'standard',
        creationTimestamp: '2026-01-01T00:00:00Z',
        annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' },
      },
      provisioner: 'rancher.io/local-path',
      volumeBindingMode: 'WaitForFirstConsumer',
    };
    assert.deepEqual(storageclasses.printer.cells(obj, Date.parse('2026-01-01T00:00:05Z')), [
      'standard (default)',
      'rancher.io/local-path',
      'Delete',
      'WaitForFirstConsumer',
      false,
      '5s',
    ]);
  });
});
