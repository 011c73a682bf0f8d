import { describe, it } from 'node:test';
import assert from '../../../testing/assert.js';
import { newNodeInfo } from '../../framework/node-info.js';
import { Code, CycleState, type Pod } from '../../framework/types.js';
import { NodeUnschedulable } from './index.js';

const pod = (tolerations?: unknown[]): Pod =>
  ({ metadata: { name: 'p', uid: 'u' }, spec: { containers: [], tolerations } }) as Pod;
const node = (unschedulable?: boolean) => ({ metadata: { name: 'n' }, spec: { unschedulable } });
const filter = (p: Pod, unschedulable?: boolean) =>
  new NodeUnschedulable().filter(new CycleState(), p, newNodeInfo(node(unschedulable)));

describe('NodeUnschedulable', () => {
  it('admits schedulable nodes', () => {
    assert.equal(filter(pod(), false).code, Code.Success);
    assert.equal(filter(pod()).code, Code.Success);
  });
  it('rejects cordoned nodes with upstream reason', () => {
    const s = filter(pod(), true);
    assert.equal(s.code, Code.UnschedulableAndUnresolvable);
    assert.deepEqual(s.reasons, ['node(s) were unschedulable']);
  });
  it('admits pods tolerating the unschedulable taint', () => {
    assert.equal(
      filter(pod([{ key: 'node.kubernetes.io/unschedulable', operator: 'Exists', effect: 'NoSchedule' }]), true).code,
      Code.Success,
    );
    assert.equal(filter(pod([{ operator: 'Exists' }]), true).code, Code.Success);
    assert.equal(
      filter(pod([{ key: 'node.kubernetes.io/unschedulable', operator: 'Exists', effect: 'NoExecute' }]), true).code,
      Code.UnschedulableAndUnresolvable,
    );
  });
  it('queues on uncordon and on new schedulable nodes', () => {
    const [e] = new NodeUnschedulable().eventsToRegister();
    assert.deepEqual(e?.event, { resource: 'Node', actions: ['Add', 'UpdateNodeTaint'] });
    assert.equal(e?.hint?.(pod(), node(true), node(false)), 1);
    assert.equal(e?.hint?.(pod(), undefined, node(false)), 1);
    assert.equal(e?.hint?.(pod(), undefined, node(true)), 0);
    assert.equal(e?.hint?.(pod(), node(false), node(false)), 0);
  });
});
