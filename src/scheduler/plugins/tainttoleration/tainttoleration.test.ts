import { describe, it } from 'node:test';
import type { Taint, Toleration } from '../../../api/taints.js';
import assert from '../../../testing/assert.js';
import { newNodeInfo } from '../../framework/node-info.js';
import { Code, CycleState, type NodeInfo, type Pod } from '../../framework/types.js';
import { TaintToleration } from './index.js';

const pod = (tolerations: Toleration[] = [], uid = 'u1'): Pod =>
  ({ metadata: { name: 'p', namespace: 'default', uid }, spec: { containers: [], tolerations } }) as Pod;
const nodeWith = (name: string, taints: Taint[]) => ({ metadata: { name }, spec: { taints } });
const ni = (name: string, taints: Taint[]): NodeInfo => newNodeInfo(nodeWith(name, taints));

function filter(tolerations: Toleration[], taints: Taint[]) {
  const s = new TaintToleration().filter(new CycleState(), pod(tolerations), ni('n', taints));
  return { code: s.code, reasons: s.reasons };
}

describe('TaintToleration filter', () => {
  it('admits a node without taints', () => {
    assert.equal(filter([], []).code, Code.Success);
  });
  it('rejects an untolerated NoSchedule taint with upstream reason', () => {
    const r = filter([], [{ key: 'dedicated', value: 'user1', effect: 'NoSchedule' }]);
    assert.equal(r.code, Code.UnschedulableAndUnresolvable);
    assert.deepEqual(r.reasons, ['node(s) had untolerated taint {dedicated: user1}']);
  });
  it('names the first untolerated taint; a valueless taint prints an empty value', () => {
    const r = filter(
      [{ key: 'a', operator: 'Exists' }],
      [
        { key: 'a', value: 'x', effect: 'NoSchedule' },
        { key: 'node.kubernetes.io/not-ready', effect: 'NoExecute' },
        { key: 'c', effect: 'NoSchedule' },
      ],
    );
    assert.deepEqual(r.reasons, ['node(s) had untolerated taint {node.kubernetes.io/not-ready: }']);
  });
  it('Equal needs the same key and value; Exists ignores the value', () => {
    const taint = { key: 'dedicated', value: 'user1', effect: 'NoSchedule' };
    assert.equal(filter([{ key: 'dedicated', value: 'user1', effect: 'NoSchedule' }], [taint]).code, Code.Success);
    assert.equal(
      filter([{ key: 'dedicated', operator: 'Equal', value: 'user2', effect: 'NoSchedule' }], [taint]).code,
      Code.UnschedulableAndUnresolvable,
    );
    assert.equal(filter([{ key: 'dedicated', operator: 'Exists', effect: 'NoSchedule' }], [taint]).code, Code.Success);
    assert.equal(filter([{ key: 'other', operator: 'Exists' }], [taint]).code, Code.UnschedulableAndUnresolvable);
  });
  it('an empty key with Exists tolerates everything', () => {
    const taints = [
      { key: 'a', value: '1', effect: 'NoSchedule' },
      { key: 'b', effect: 'NoExecute' },
    ];
    assert.equal(filter([{ operator: 'Exists' }], taints).code, Code.Success);
  });
  it('the toleration effect must match, or be empty', () => {
    const taint = { key: 'k', value: 'v', effect: 'NoExecute' };
    assert.equal(
      filter([{ key: 'k', value: 'v', effect: 'NoSchedule' }], [taint]).code,
      Code.UnschedulableAndUnresolvable,
    );
    assert.equal(filter([{ key: 'k', value: 'v' }], [taint]).code, Code.Success);
    assert.equal(
      filter([{ key: 'k', value: 'v', effect: 'NoExecute', tolerationSeconds: 30 }], [taint]).code,
      Code.Success,
    );
  });
  it('ignores PreferNoSchedule taints when filtering', () => {
    assert.equal(filter([], [{ key: 'k', value: 'v', effect: 'PreferNoSchedule' }]).code, Code.Success);
  });
  it('an unknown operator tolerates nothing', () => {
    assert.equal(
      filter([{ key: 'k', operator: 'Bogus' }], [{ key: 'k', effect: 'NoSchedule' }]).code,
      Code.UnschedulableAndUnresolvable,
    );
  });
});

describe('TaintToleration score', () => {
  function run(p: Pod, nodes: NodeInfo[]): number[] {
    const pl = new TaintToleration();
    const state = new CycleState();
    assert.equal(pl.preScore(state, p, nodes).code, Code.Success);
    const scores = nodes.map((n) => ({ name: n.node.metadata.name ?? '', score: pl.score(state, p, n).score }));
    pl.normalizeScore(state, p, scores);
    return scores.map((s) => s.score);
  }
  it('favours nodes with fewer intolerable PreferNoSchedule taints (upstream case)', () => {
    const p = pod([
      { key: 'cpu-type', operator: 'Equal', value: 'arm64', effect: 'PreferNoSchedule' },
      { key: 'disk-type', operator: 'Equal', value: 'ssd', effect: 'PreferNoSchedule' },
    ]);
    const nodes = [
      ni('nodeA', []),
      ni('nodeB', [{ key: 'cpu-type', value: 'arm64', effect: 'PreferNoSchedule' }]),
      ni('nodeC', [
        { key: 'cpu-type', value: 'arm64', effect: 'PreferNoSchedule' },
        { key: 'disk-type', value: 'ssd', effect: 'PreferNoSchedule' },
      ]),
    ];
    assert.deepEqual(run(p, nodes), [100, 100, 100]);
  });
  it('counts untolerated taints, normalised in reverse', () => {
    const nodes = [
      ni('a', []),
      ni('b', [{ key: 'x', value: '1', effect: 'PreferNoSchedule' }]),
      ni('c', [
        { key: 'x', value: '1', effect: 'PreferNoSchedule' },
        { key: 'y', value: '2', effect: 'PreferNoSchedule' },
      ]),
    ];
    assert.deepEqual(run(pod(), nodes), [100, 50, 0]);
  });
  it('only tolerations with effect PreferNoSchedule or none count', () => {
    const nodes = [ni('a', []), ni('b', [{ key: 'x', value: '1', effect: 'PreferNoSchedule' }])];
    assert.deepEqual(run(pod([{ key: 'x', value: '1', effect: 'NoSchedule' }]), nodes), [100, 0]);
    assert.deepEqual(run(pod([{ key: 'x', value: '1' }]), nodes), [100, 100]);
  });
  it('NoSchedule taints do not affect the score', () => {
    const nodes = [ni('a', []), ni('b', [{ key: 'x', value: '1', effect: 'NoSchedule' }])];
    assert.deepEqual(run(pod(), nodes), [100, 100]);
  });
});

describe('TaintToleration events', () => {
  const [nodeEvent, podEvent] = new TaintToleration().eventsToRegister();
  it('registers node add/taint and pod toleration updates', () => {
    assert.deepEqual(nodeEvent?.event, { resource: 'Node', actions: ['Add', 'UpdateNodeTaint'] });
    assert.deepEqual(podEvent?.event, { resource: 'Pod', actions: ['UpdatePodTolerations'] });
  });
  it('queues when the node stops having an untolerated taint', () => {
    const hint = nodeEvent?.hint;
    assert.ok(hint);
    const tainted = nodeWith('n', [{ key: 'k', effect: 'NoSchedule' }]);
    const clean = nodeWith('n', []);
    assert.equal(hint(pod(), tainted, clean), 1);
    assert.equal(hint(pod(), undefined, clean), 1);
    assert.equal(hint(pod(), undefined, tainted), 0);
    assert.equal(hint(pod(), clean, clean), 0);
  });
  it('queues when this pod gets more tolerations', () => {
    const hint = podEvent?.hint;
    assert.ok(hint);
    assert.equal(hint(pod(), pod(), pod([{ operator: 'Exists' }])), 1);
    assert.equal(hint(pod(), pod(), pod([{ operator: 'Exists' }], 'other')), 0);
  });
});
