import { describe, it } from 'node:test';
import { formatMicroTime, formatTime } from '../../client/events/event.js';
import type { KubeObject } from '../../client/types.js';
import assert from '../../testing/assert.js';
import { getNodeCondition, judgeNodeHealth, zoneKeyOf } from './node-health.js';
import { computeZoneState } from './zones.js';

const GRACE = { monitorGracePeriodMs: 50_000, startupGracePeriodMs: 60_000 };
const T0 = Date.parse('2025-05-01T10:00:00Z');

function node(ready?: { status: string; heartbeat: number }): KubeObject {
  return {
    metadata: { name: 'n', creationTimestamp: formatTime(T0) },
    status: ready
      ? {
          conditions: [
            {
              type: 'Ready',
              status: ready.status,
              lastHeartbeatTime: formatTime(ready.heartbeat),
              lastTransitionTime: formatTime(T0),
            },
          ],
        }
      : {},
  };
}

const lease = (renew: number): KubeObject => ({ metadata: { name: 'n' }, spec: { renewTime: formatMicroTime(renew) } });

describe('judgeNodeHealth', () => {
  it('turns Ready and the pressure conditions Unknown after the grace period without a heartbeat', () => {
    const first = judgeNodeHealth(node({ status: 'True', heartbeat: T0 }), undefined, undefined, T0, GRACE);
    assert.equal(first.needsWrite, false);
    const later = node({ status: 'True', heartbeat: T0 });
    const v = judgeNodeHealth(later, first.health, undefined, T0 + 50_001, GRACE);
    assert.equal(v.needsWrite, true);
    assert.equal(v.observedReady.status, 'True');
    assert.equal(v.currentReady?.status, 'Unknown');
    assert.equal(v.currentReady?.reason, 'NodeStatusUnknown');
    assert.equal(v.currentReady?.message, 'Kubelet stopped posting node status.');
    const memory = getNodeCondition(later.status, 'MemoryPressure');
    assert.equal(memory?.reason, 'NodeStatusNeverUpdated');
    assert.equal(memory?.message, 'Kubelet never posted node status.');
  });

  it('counts a renewed lease as a heartbeat', () => {
    const first = judgeNodeHealth(node({ status: 'True', heartbeat: T0 }), undefined, lease(T0), T0, GRACE);
    const renewed = judgeNodeHealth(
      node({ status: 'True', heartbeat: T0 }),
      first.health,
      lease(T0 + 40_000),
      T0 + 40_000,
      GRACE,
    );
    assert.equal(renewed.health.probeTimestamp, T0 + 40_000);
    const v = judgeNodeHealth(
      node({ status: 'True', heartbeat: T0 }),
      renewed.health,
      lease(T0 + 40_000),
      T0 + 80_000,
      GRACE,
    );
    assert.equal(v.needsWrite, false);
  });

  it('gives a node that never reported the startup grace period from its creation', () => {
    const early = judgeNodeHealth(node(), undefined, undefined, T0 + 59_000, GRACE);
    assert.equal(early.needsWrite, false);
    assert.equal(early.gracePeriodMs, 60_000);
    const late = node();
    const v = judgeNodeHealth(late, early.health, undefined, T0 + 61_000, GRACE);
    assert.equal(v.needsWrite, true);
    assert.equal(v.currentReady?.reason, 'NodeStatusNeverUpdated');
  });
});

describe('computeZoneState', () => {
  const c = (status: string) => ({ type: 'Ready', status });
  it('is FullDisruption without ready nodes, PartialDisruption over the threshold with 3+ not ready', () => {
    assert.equal(computeZoneState([c('False'), undefined], 0.55).state, 'FullDisruption');
    assert.equal(computeZoneState([c('False'), c('Unknown'), c('True')], 0.55).state, 'Normal');
    assert.equal(computeZoneState([c('False'), c('Unknown'), c('False'), c('True')], 0.55).state, 'PartialDisruption');
    assert.equal(
      computeZoneState([c('False'), c('Unknown'), c('False'), c('True'), c('True'), c('True')], 0.55).state,
      'Normal',
    );
  });
});

describe('zoneKeyOf', () => {
  it('joins region and zone, and is empty without either', () => {
    assert.equal(zoneKeyOf({ metadata: {} }), '');
    assert.equal(
      zoneKeyOf({ metadata: { labels: { 'topology.kubernetes.io/region': 'r', 'topology.kubernetes.io/zone': 'z' } } }),
      'r:\u0000:z',
    );
  });
});
