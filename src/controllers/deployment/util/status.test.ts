import { describe, it } from 'node:test';
import assert from '../../../testing/assert.js';
import { calculateStatus } from './status.js';
import type { Deployment, ReplicaSet } from './types.js';

const now = Date.parse('2026-01-01T00:00:00Z');

function deployment(replicas: number): Deployment {
  return {
    metadata: { name: 'web', generation: 2 },
    spec: { replicas, strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } } },
    status: {},
  };
}

function rs(replicas: number, available: number): ReplicaSet {
  return {
    metadata: { name: 'web-1', uid: 'u1' },
    spec: { replicas },
    status: { replicas, readyReplicas: available, availableReplicas: available },
  };
}

describe('Deployment status', () => {
  it('leaves out the counts that are zero, as upstream writes its omitempty fields', () => {
    const { conditions: _c, ...scaledDown } = calculateStatus([rs(0, 0)], rs(0, 0), deployment(0), now);
    assert.deepEqual(scaledDown, { observedGeneration: 2 });
    const { conditions: _d, ...running } = calculateStatus([rs(3, 3)], rs(3, 3), deployment(3), now);
    assert.deepEqual(running, {
      observedGeneration: 2,
      replicas: 3,
      updatedReplicas: 3,
      readyReplicas: 3,
      availableReplicas: 3,
    });
  });
});
