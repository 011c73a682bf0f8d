import { describe, it } from 'node:test';
import assert from '../../../testing/assert.js';
import type { Pod, QueuedPodInfo } from '../../framework/types.js';
import { PrioritySort } from './index.js';

function qp(priority: number | undefined, timestamp: number): QueuedPodInfo {
  const pod = { metadata: { name: 'p' }, spec: { containers: [], priority } } as Pod;
  return {
    podInfo: { pod, cache: new Map() },
    initialAttemptTimestamp: timestamp,
    timestamp,
    attempts: 0,
    unschedulablePlugins: new Set(),
    pendingPlugins: new Set(),
    gated: false,
  };
}

describe('PrioritySort', () => {
  const pl = new PrioritySort();
  it('higher priority first', () => {
    assert.equal(pl.less(qp(100, 2), qp(50, 1)), true);
    assert.equal(pl.less(qp(50, 1), qp(100, 2)), false);
  });
  it('equal priority: earlier first', () => {
    assert.equal(pl.less(qp(10, 1), qp(10, 2)), true);
    assert.equal(pl.less(qp(10, 2), qp(10, 1)), false);
  });
  it('no priority counts as 0', () => {
    assert.equal(pl.less(qp(undefined, 5), qp(-1, 1)), true);
    assert.equal(pl.less(qp(undefined, 1), qp(0, 2)), true);
  });
});
