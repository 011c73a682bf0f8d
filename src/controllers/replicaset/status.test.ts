import { describe, it } from 'node:test';
import type { KubeObject } from '../../client/types.js';
import assert from '../../testing/assert.js';
import { formatTime } from '../../util/time.js';
import { calculateStatus, nextAvailableAfter } from './status.js';

const NOW = Date.parse('2025-06-01T12:00:00Z');

function rs(extra: object = {}, status?: object): KubeObject {
  return {
    metadata: { name: 'web', namespace: 'ns', generation: 2 },
    spec: { replicas: 3, template: { metadata: { labels: { app: 'web', tier: 'front' } } }, ...extra },
    ...(status ? { status } : {}),
  };
}

function pod(labels: Record<string, string>, readyAgoSeconds?: number): KubeObject {
  return {
    metadata: { name: 'p', namespace: 'ns', labels },
    status: {
      phase: 'Running',
      conditions:
        readyAgoSeconds === undefined
          ? []
          : [{ type: 'Ready', status: 'True', lastTransitionTime: formatTime(NOW - readyAgoSeconds * 1000) }],
    },
  };
}

const full = { app: 'web', tier: 'front' };

describe('replica set status', () => {
  it('counts replicas, fully labeled, ready and available pods', () => {
    const pods = [pod(full, 100), pod(full, 2), pod({ app: 'web' }, 100), pod(full)];
    const status = calculateStatus(rs({ minReadySeconds: 10 }), pods, undefined, NOW);
    assert.deepEqual(status, { replicas: 4, fullyLabeledReplicas: 3, readyReplicas: 3, availableReplicas: 2 });
    // Without minReadySeconds, ready is available.
    assert.equal(calculateStatus(rs(), pods, undefined, NOW).availableReplicas, 3);
  });

  it('says when the next ready pod becomes available', () => {
    const pods = [pod(full, 100), pod(full, 2), pod(full, 7), pod(full)];
    assert.equal(nextAvailableAfter(rs({ minReadySeconds: 10 }), pods, NOW), 3001);
    assert.equal(nextAvailableAfter(rs({ minReadySeconds: 1 }), pods, NOW), undefined);
    assert.equal(nextAvailableAfter(rs(), pods, NOW), undefined);
  });

  it('sets ReplicaFailure on a failed create or delete, keeps it while failing, and removes it on success', () => {
    const failed = calculateStatus(rs(), [pod(full)], new Error('pods "x" is forbidden: quota'), NOW);
    assert.deepEqual(failed.conditions, [
      {
        type: 'ReplicaFailure',
        status: 'True',
        lastTransitionTime: '2025-06-01T12:00:00Z',
        reason: 'FailedCreate',
        message: 'pods "x" is forbidden: quota',
      },
    ]);
    const tooMany = calculateStatus(rs({ replicas: 0 }), [pod(full)], new Error('unable to delete pods: x'), NOW);
    assert.equal(tooMany.conditions?.[0]?.reason, 'FailedDelete');
    // An existing condition is kept as it is (its time and message) while errors go on.
    const again = calculateStatus(rs({}, failed), [pod(full)], new Error('another'), NOW + 60_000);
    assert.deepEqual(again.conditions, failed.conditions);
    const healed = calculateStatus(rs({}, { ...failed, observedGeneration: 2 }), [pod(full)], undefined, NOW);
    assert.equal(healed.conditions, undefined);
    assert.equal(healed.observedGeneration, 2);
  });
});
