import { describe, it } from 'node:test';
import assert from '../../../testing/assert.js';
import type { KubeObject } from '../object.js';
import { leases } from './coordination-leases.js';

describe('coordination.k8s.io/v1 Leases', () => {
  it('validates durations and prints the holder', () => {
    const lease: KubeObject = {
      metadata: { name: 'node-1', namespace: 'kube-node-lease', creationTimestamp: '2026-01-01T00:00:00Z' },
      spec: { holderIdentity: 'node-1', leaseDurationSeconds: 0, leaseTransitions: -1 },
    };
    assert.deepEqual(
      (leases.def.strategy.validate?.(lease) ?? []).map((e) => e.message),
      [
        'spec.leaseDurationSeconds: Invalid value: 0: must be greater than 0',
        'spec.leaseTransitions: Invalid value: -1: must be greater than or equal to 0',
      ],
    );
    assert.deepEqual(leases.printer.cells(lease, Date.parse('2026-01-01T00:00:40Z')), ['node-1', 'node-1', '40s']);
    assert.equal(leases.def.strategy.tracksGeneration, false);
  });
});
