import { describe, it } from 'node:test';
import assert from '../testing/assert.js';
import { Diagnosis, fitErrorMessage } from './fit-error.js';
import { Code, Status } from './framework/types.js';
import { numFeasibleNodesToFind } from './schedule-one.js';

const status = (code: Code, plugin: string, ...reasons: string[]) => new Status(code, reasons, plugin);

describe('FitError message', () => {
  it('is upstream\'s "0/N nodes are available" line: the sorted reasons histogram, then PostFilter\'s message', () => {
    const d = new Diagnosis();
    d.nodeToStatus.set(
      'control-plane',
      status(
        Code.UnschedulableAndUnresolvable,
        'TaintToleration',
        'node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }',
      ),
    );
    d.nodeToStatus.set('node-1', status(Code.Unschedulable, 'NodeResourcesFit', 'Insufficient cpu'));
    d.nodeToStatus.set('node-2', status(Code.Unschedulable, 'NodeResourcesFit', 'Insufficient cpu'));
    d.postFilterMsg = 'preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod.';
    assert.equal(
      fitErrorMessage(3, d),
      '0/3 nodes are available: 1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }, 2 Insufficient cpu. preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod.',
    );
  });

  it('counts every reason of a node, and sorts "<count> <reason>" as strings', () => {
    const d = new Diagnosis();
    d.nodeToStatus.set('a', status(Code.Unschedulable, 'NodeResourcesFit', 'Insufficient cpu', 'Insufficient memory'));
    d.nodeToStatus.set('b', status(Code.Unschedulable, 'NodeResourcesFit', 'Insufficient memory'));
    d.nodeToStatus.set(
      'c',
      status(Code.UnschedulableAndUnresolvable, 'NodeAffinity', "node(s) didn't match Pod's node affinity/selector"),
    );
    assert.equal(
      fitErrorMessage(3, d),
      "0/3 nodes are available: 1 Insufficient cpu, 1 node(s) didn't match Pod's node affinity/selector, 2 Insufficient memory.",
    );
  });

  it('uses the PreFilter message alone when PreFilter rejected the pod', () => {
    const d = new Diagnosis();
    d.preFilterMsg = 'persistentvolumeclaim "data" not found';
    d.absentNodesStatus = status(Code.UnschedulableAndUnresolvable, 'VolumeBinding', d.preFilterMsg);
    d.postFilterMsg = 'preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.';
    assert.equal(
      fitErrorMessage(3, d),
      '0/3 nodes are available: persistentvolumeclaim "data" not found. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.',
    );
  });

  it('counts nodes a PreFilter result left out with the absent status', () => {
    const d = new Diagnosis();
    d.absentNodesStatus = status(
      Code.UnschedulableAndUnresolvable,
      '',
      "node(s) didn't satisfy plugin(s) [NodeAffinity]",
    );
    d.nodeToStatus.set('n1', status(Code.Unschedulable, 'NodeResourcesFit', 'Insufficient cpu'));
    assert.equal(
      fitErrorMessage(5, d),
      "0/5 nodes are available: 1 Insufficient cpu, 4 node(s) didn't satisfy plugin(s) [NodeAffinity].",
    );
  });

  it('records the plugins that rejected the pod', () => {
    const d = new Diagnosis();
    d.addPluginStatus(status(Code.Unschedulable, 'NodeResourcesFit', 'Insufficient cpu'));
    d.addPluginStatus(status(Code.Pending, 'Waiter', 'waiting'));
    d.addPluginStatus(status(Code.Unschedulable, '', 'anonymous'));
    assert.deepEqual([...d.unschedulablePlugins].sort(), ['NodeResourcesFit', 'Waiter']);
    assert.deepEqual([...d.pendingPlugins], ['Waiter']);
  });
});

describe('numFeasibleNodesToFind', () => {
  it('follows upstream: all below 100 nodes, else adaptive (50% - nodes/125, min 5%) and at least 100', () => {
    const cases: [number, number, number][] = [
      // [percentageOfNodesToScore, nodes, expected]
      [0, 10, 10],
      [40, 10, 10],
      [0, 99, 99],
      [0, 100, 100],
      [10, 100, 100],
      [0, 1000, 420],
      [40, 1000, 400],
      [0, 5000, 500],
      [0, 6000, 300],
      [40, 6000, 2400],
      [0, 20_000, 1000],
      [1, 1000, 100],
      [100, 5000, 5000],
    ];
    for (const [pct, nodes, expected] of cases) {
      assert.equal(numFeasibleNodesToFind(pct, nodes), expected, `${pct}% of ${nodes}`);
    }
  });
});
