import { describe, it } from 'node:test';
import assert from '../../../testing/assert.js';
import { maxSurge, maxUnavailable, minAvailable, resolveFenceposts, valueFromIntOrPercent } from './fenceposts.js';
import type { Deployment, IntOrString } from './types.js';

function deployment(
  replicas: number,
  surge?: IntOrString,
  unavailable?: IntOrString,
  type = 'RollingUpdate',
): Deployment {
  return {
    metadata: { name: 'web' },
    spec: {
      replicas,
      strategy: {
        type,
        ...(type === 'RollingUpdate' ? { rollingUpdate: { maxSurge: surge, maxUnavailable: unavailable } } : {}),
      },
    },
  };
}

describe('maxSurge / maxUnavailable resolution', () => {
  it('scales percentages: surge rounds up, unavailable rounds down', () => {
    assert.equal(valueFromIntOrPercent('25%', 10, true), 3);
    assert.equal(valueFromIntOrPercent('25%', 10, false), 2);
    assert.equal(valueFromIntOrPercent(7, 10, false), 7);
    assert.throws(() => valueFromIntOrPercent('7', 10, false), /not a percentage/);
  });

  it('resolves both fenceposts, making one pod unavailable when both come out 0', () => {
    assert.deepEqual(resolveFenceposts('25%', '25%', 4), [1, 1]);
    assert.deepEqual(resolveFenceposts('25%', '25%', 10), [3, 2]);
    assert.deepEqual(resolveFenceposts('25%', '25%', 1), [1, 0]);
    assert.deepEqual(resolveFenceposts('0%', '1%', 2), [0, 1]);
    assert.deepEqual(resolveFenceposts(0, '10%', 5), [0, 1]);
    assert.deepEqual(resolveFenceposts(2, 0, 5), [2, 0]);
    assert.deepEqual(resolveFenceposts(undefined, undefined, 3), [0, 1]);
  });

  it('answers a Deployment’s surge, unavailable budget and minimum availability as upstream', () => {
    const d = deployment(10, '25%', '25%');
    assert.equal(maxSurge(d), 3);
    assert.equal(maxUnavailable(d), 2);
    assert.equal(minAvailable(d), 8);
    // Never more unavailable than replicas; none at all for 0 replicas.
    assert.equal(maxUnavailable(deployment(3, 0, 5)), 3);
    assert.equal(maxUnavailable(deployment(0, 1, 1)), 0);
    // Recreate has neither.
    const recreate = deployment(5, undefined, undefined, 'Recreate');
    assert.equal(maxSurge(recreate), 0);
    assert.equal(maxUnavailable(recreate), 0);
    assert.equal(minAvailable(recreate), 0);
  });
});
