import { describe, it } from 'node:test';
import assert from '../../../testing/assert.js';
import { findActiveOrLatest, isSaturated, newRSNewReplicas, proportionalScale } from './scaling.js';
import type { Deployment, ReplicaSet } from './types.js';

const older = '2024-01-01T00:00:00Z';
const old = '2024-01-02T00:00:00Z';
const newer = '2024-01-03T00:00:00Z';

function deployment(replicas: number, surge = 0, unavailable = 0, statusReplicas = 0): Deployment {
  return {
    metadata: { name: 'foo' },
    spec: {
      replicas,
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: surge, maxUnavailable: unavailable } },
    },
    status: { replicas: statusReplicas },
  };
}

/** A ReplicaSet as the Deployment sized `maxReplicas` (replicas + surge) left it. */
function rs(name: string, replicas: number, created: string, maxReplicas?: number, available = 0): ReplicaSet {
  return {
    metadata: {
      name,
      uid: name,
      creationTimestamp: created,
      annotations: maxReplicas === undefined ? {} : { 'deployment.kubernetes.io/max-replicas': String(maxReplicas) },
    },
    spec: { replicas },
    status: { availableReplicas: available },
  };
}

function sizes(d: Deployment, newRS: ReplicaSet | undefined, oldRSs: ReplicaSet[]): Record<string, number> {
  const plan = proportionalScale(d, newRS, oldRSs);
  return Object.fromEntries(plan.sizes.map(({ rs, size }) => [rs.metadata.name, size]));
}

describe('proportional scaling in the middle of a rollout (upstream’s cases)', () => {
  it('5 -> 10', () => {
    assert.deepEqual(sizes(deployment(10), rs('foo-v2', 2, newer, 5), [rs('foo-v1', 3, old, 5)]), {
      'foo-v1': 6,
      'foo-v2': 4,
    });
  });

  it('5 -> 3', () => {
    assert.deepEqual(sizes(deployment(3), rs('foo-v2', 2, newer, 5), [rs('foo-v1', 3, old, 5)]), {
      'foo-v1': 2,
      'foo-v2': 1,
    });
  });

  it('9 -> 4', () => {
    assert.deepEqual(sizes(deployment(4), rs('foo-v2', 8, newer, 9), [rs('foo-v1', 1, old, 9)]), {
      'foo-v1': 0,
      'foo-v2': 4,
    });
  });

  it('7 -> 10 over three ReplicaSets', () => {
    const plan = sizes(deployment(10), rs('foo-v3', 2, newer, 7), [rs('foo-v2', 3, old, 7), rs('foo-v1', 2, older, 7)]);
    assert.deepEqual(plan, { 'foo-v1': 3, 'foo-v2': 4, 'foo-v3': 3 });
  });

  it('13 -> 8 over three ReplicaSets', () => {
    const plan = sizes(deployment(8), rs('foo-v3', 2, newer, 13), [
      rs('foo-v2', 8, old, 13),
      rs('foo-v1', 3, older, 13),
    ]);
    assert.deepEqual(plan, { 'foo-v1': 2, 'foo-v2': 5, 'foo-v3': 1 });
  });

  it('gives the leftover to the first in scaling order (newest on the way up)', () => {
    const plan = sizes(deployment(4), rs('foo-v3', 1, newer, 3), [rs('foo-v2', 1, old, 3), rs('foo-v1', 1, older, 3)]);
    assert.deepEqual(plan, { 'foo-v1': 1, 'foo-v2': 1, 'foo-v3': 2 });
  });

  it('counts surge in the allowed size, and scales everything down for 0 replicas', () => {
    // 10 + surge 2 = 12 allowed; the ReplicaSets were sized for 5 + 1 = 6: doubled.
    assert.deepEqual(sizes(deployment(10, 2), rs('foo-v2', 3, newer, 6), [rs('foo-v1', 3, old, 6)]), {
      'foo-v1': 6,
      'foo-v2': 6,
    });
    const plan = proportionalScale(deployment(0), rs('foo-v2', 3, newer, 6), [rs('foo-v1', 3, old, 6)]);
    assert.equal(plan.operation, 'down');
    assert.deepEqual(
      plan.sizes.map((s) => s.size),
      [0, 0],
    );
  });

  it('falls back to status.replicas when the max-replicas annotation is missing', () => {
    assert.deepEqual(sizes(deployment(10, 0, 0, 5), rs('foo-v2', 2, newer), [rs('foo-v1', 3, old)]), {
      'foo-v1': 6,
      'foo-v2': 4,
    });
  });
});

describe('rollout arithmetic', () => {
  it('grows the new ReplicaSet only within spec.replicas + maxSurge', () => {
    const d = deployment(4, 1, 1);
    const newRS = rs('foo-v2', 0, newer);
    assert.equal(newRSNewReplicas(d, [rs('foo-v1', 4, old), newRS], newRS), 1);
    assert.equal(newRSNewReplicas(d, [rs('foo-v1', 3, old), rs('foo-v2', 2, newer)], rs('foo-v2', 2, newer)), 2);
    assert.equal(newRSNewReplicas(d, [rs('foo-v1', 0, old), rs('foo-v2', 3, newer)], rs('foo-v2', 3, newer)), 4);
    const recreate: Deployment = { metadata: {}, spec: { replicas: 3, strategy: { type: 'Recreate' } } };
    assert.equal(newRSNewReplicas(recreate, [], newRS), 3);
  });

  it('finds the one active (or the latest) ReplicaSet, none when several are active', () => {
    const v1 = rs('foo-v1', 2, old);
    const v2 = rs('foo-v2', 0, newer);
    assert.equal(findActiveOrLatest(v2, [v1])?.metadata.name, 'foo-v1');
    assert.equal(findActiveOrLatest(v2, [rs('foo-v1', 0, old)])?.metadata.name, 'foo-v2');
    assert.equal(
      findActiveOrLatest(undefined, [rs('foo-v0', 0, older), rs('foo-v1', 0, old)])?.metadata.name,
      'foo-v1',
    );
    assert.equal(findActiveOrLatest(rs('foo-v2', 1, newer), [v1]), undefined);
  });

  it('calls a ReplicaSet saturated when it has and wants every replica, all available', () => {
    const full = rs('foo-v2', 3, newer, 3, 3);
    full.metadata.annotations!['deployment.kubernetes.io/desired-replicas'] = '3';
    assert.ok(isSaturated(deployment(3), full), 'saturated');
    assert.ok(!isSaturated(deployment(4), full), 'wants 4');
    const notAvailable = structuredClone(full);
    notAvailable.status!.availableReplicas = 2;
    assert.ok(!isSaturated(deployment(3), notAvailable), 'not all available');
  });
});
