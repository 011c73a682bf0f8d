import { describe, it } from 'node:test';
import assert from '../../testing/assert.js';
import type { Node, Pod } from '../framework/types.js';
import { matchClusterEvent, nodeSchedulingPropertiesChange, podSchedulingPropertiesChange } from './events.js';

describe('cluster events', () => {
  it('matches as upstream MatchClusterEvents', () => {
    const taint = { resource: 'Node' as const, action: 'UpdateNodeTaint' as const };
    assert.equal(matchClusterEvent({ resource: 'Node', actions: ['Update'] }, taint), true);
    assert.equal(matchClusterEvent({ resource: 'Node', actions: ['UpdateNodeTaint'] }, taint), true);
    assert.equal(matchClusterEvent({ resource: 'Node', actions: ['UpdateNodeLabel'] }, taint), false);
    assert.equal(matchClusterEvent({ resource: 'Node', actions: ['All'] }, taint), true);
    assert.equal(matchClusterEvent({ resource: '*', actions: ['All'] }, taint), true);
    assert.equal(matchClusterEvent({ resource: 'Pod', actions: ['Add'] }, taint), false);
    // A general update is matched only by Update (or All).
    const general = { resource: 'Node' as const, action: 'Update' as const };
    assert.equal(matchClusterEvent({ resource: 'Node', actions: ['UpdateNodeLabel'] }, general), false);
    assert.equal(matchClusterEvent({ resource: 'Node', actions: ['Update'] }, general), true);
    // Pod matches assigned and unscheduled pods.
    const assigned = { resource: 'AssignedPod' as const, action: 'Delete' as const };
    assert.equal(matchClusterEvent({ resource: 'Pod', actions: ['Delete'] }, assigned), true);
  });

  it('interprets pod and node updates', () => {
    const p = (labels: Record<string, string>, gates: number, nodeName?: string): Pod => ({
      metadata: { name: 'p', labels },
      spec: { nodeName, schedulingGates: Array.from({ length: gates }, (_, i) => ({ name: `g${i}` })), containers: [] },
    });
    assert.deepEqual(podSchedulingPropertiesChange(p({ a: '1' }, 0), p({ a: '2' }, 1)), [
      { resource: 'UnschedulablePod', action: 'UpdatePodLabel' },
      { resource: 'UnschedulablePod', action: 'UpdatePodSchedulingGatesEliminated' },
    ]);
    assert.deepEqual(podSchedulingPropertiesChange(p({}, 0, 'n'), p({}, 0, 'n')), [
      { resource: 'AssignedPod', action: 'Update' },
    ]);
    const n = (extra: Partial<Node>): Node => ({ metadata: { name: 'n', labels: {} }, spec: {}, status: {}, ...extra });
    assert.deepEqual(
      nodeSchedulingPropertiesChange(n({ spec: { unschedulable: false } }), n({ spec: { unschedulable: true } })).map(
        (e) => e.action,
      ),
      ['UpdateNodeTaint'],
    );
    assert.deepEqual(
      nodeSchedulingPropertiesChange(
        n({ status: { allocatable: { cpu: '2' }, conditions: [{ type: 'Ready', status: 'True' }] } }),
        n({ status: { allocatable: { cpu: '1' }, conditions: [{ type: 'Ready', status: 'False' }] } }),
      ).map((e) => e.action),
      ['UpdateNodeAllocatable', 'UpdateNodeCondition'],
    );
    assert.deepEqual(nodeSchedulingPropertiesChange(n({}), n({})), []);
  });
});
