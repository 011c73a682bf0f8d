import { describe, it } from 'node:test';
import type { KubeObject } from '../../client/types.js';
import assert from '../../testing/assert.js';
import { nodeSpecFor, podCIDRFor } from './node-config.js';
import { desiredNodeStatus, newRuntimeInfo, nodeStatusChanged, registrationNode } from './node-status.js';

describe('simulated node status', () => {
  it('hands out pod CIDRs and zones in order, and capacity by node group', () => {
    assert.equal(podCIDRFor(1), '10.244.1.0/24');
    assert.equal(podCIDRFor(256), '10.245.0.0/24');
    assert.equal(podCIDRFor(3071), '10.255.255.0/24');
    assert.equal(podCIDRFor(3072), '172.16.0.0/24');
    const config = { zones: ['a', 'b'], groups: [{ count: 2, capacity: { cpu: '64' }, labels: { pool: 'big' } }] };
    const first = nodeSpecFor('node-1', 1, config);
    const third = nodeSpecFor('node-3', 3, config);
    assert.deepEqual([first.zone, first.capacity.cpu, first.labels.pool], ['a', '64', 'big']);
    assert.deepEqual([third.zone, third.capacity.cpu, third.labels.pool], ['a', '8', undefined]);
  });

  it('reports only when something other than the heartbeat changed', () => {
    const spec = nodeSpecFor('node-1', 1);
    const rt = newRuntimeInfo(10250);
    const registered = registrationNode(spec, rt, 1_000_000);
    const later = desiredNodeStatus(spec, rt, registered, 2_000_000);
    assert.equal(nodeStatusChanged(later, registered), false);
    const conditions = (later.conditions as Record<string, string>[]).map((c) => c.lastTransitionTime);
    assert.deepEqual(new Set(conditions).size, 1);
    assert.equal(conditions[0], '1970-01-01T00:16:40Z');
    const unknown: KubeObject = structuredClone(registered);
    const ready = unknown.status.conditions.find((c: { type: string }) => c.type === 'Ready');
    Object.assign(ready, {
      status: 'Unknown',
      reason: 'NodeStatusUnknown',
      message: 'Kubelet stopped posting node status.',
    });
    const back = desiredNodeStatus(spec, rt, unknown, 3_000_000);
    assert.equal(nodeStatusChanged(back, unknown), true);
    const backReady = (back.conditions as Record<string, string>[]).find((c) => c.type === 'Ready');
    assert.equal(backReady?.lastTransitionTime, '1970-01-01T00:50:00Z');
    rt.images.push('nginx');
    assert.equal(nodeStatusChanged(desiredNodeStatus(spec, rt, registered, 4_000_000), registered), true);
  });
});
