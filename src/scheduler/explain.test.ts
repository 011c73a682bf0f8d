import { describe, it } from 'node:test';
import assert from '../testing/assert.js';
import { formatVerdicts } from './explain.js';
import { newNodeInfo } from './framework/node-info.js';
import { Code, Status } from './framework/types.js';
import { compactScores, groupRejections, type VerdictRecord, VerdictStore } from './verdicts.js';

function record(extra: Partial<VerdictRecord>): VerdictRecord {
  return {
    namespace: 'default',
    name: 'web-1',
    uid: 'u1',
    profile: 'default-scheduler',
    attempt: 2,
    timeMs: Date.UTC(2025, 0, 1),
    result: 'Unschedulable',
    numAllNodes: 3,
    preFilterPlugins: ['NodeResourcesFit'],
    skipped: [],
    filterPlugins: ['NodeUnschedulable', 'TaintToleration', 'NodeResourcesFit'],
    feasible: [],
    rejected: [],
    notEvaluatedNodes: 0,
    scorePlugins: [
      { name: 'TaintToleration', weight: 3 },
      { name: 'NodeResourcesFit', weight: 1 },
    ],
    notEvaluatedPlugins: ['VolumeBinding'],
    ...extra,
  };
}

describe('verdicts and wheelhouse explain', () => {
  it('shows per node which Filter plugin said what, and the scores of feasible nodes', () => {
    const statuses = new Map([
      [
        'node-1',
        new Status(
          Code.UnschedulableAndUnresolvable,
          ['node(s) had untolerated taint {dedicated: gpu}'],
          'TaintToleration',
        ),
      ],
      ['node-2', new Status(Code.Unschedulable, ['Insufficient cpu'], 'NodeResourcesFit')],
    ]);
    const store = new VerdictStore(2);
    store.put(
      record({
        result: 'Scheduled',
        nodeName: 'node-3',
        feasible: ['node-3', 'node-4'],
        rejected: groupRejections(statuses),
        scores: compactScores([
          {
            name: 'node-3',
            scores: [
              { name: 'TaintToleration', score: 300 },
              { name: 'NodeResourcesFit', score: 80 },
            ],
            totalScore: 380,
          },
          {
            name: 'node-4',
            scores: [
              { name: 'TaintToleration', score: 300 },
              { name: 'NodeResourcesFit', score: 40 },
            ],
            totalScore: 340,
          },
        ]),
      }),
    );
    const v = store.get('default', 'web-1');
    assert.ok(v);
    assert.deepEqual(v.nodes.find((n) => n.node === 'node-1')?.filters, {
      NodeUnschedulable: 'ok',
      TaintToleration: 'node(s) had untolerated taint {dedicated: gpu}',
      NodeResourcesFit: '-',
    });
    assert.deepEqual(v.nodes.find((n) => n.node === 'node-4')?.scores, { TaintToleration: 300, NodeResourcesFit: 40 });
    assert.equal(
      formatVerdicts(v),
      [
        'Pod default/web-1 (scheduler default-scheduler), attempt 2 at 2025-01-01T00:00:00.000Z: Scheduled on node-3',
        '',
        'NODE     NodeUnschedulable   TaintToleration                                  NodeResourcesFit',
        'node-1   ok                  node(s) had untolerated taint {dedicated: gpu}   -',
        'node-2   ok                  ok                                               Insufficient cpu',
        'node-3   ok                  ok                                               ok',
        'node-4   ok                  ok                                               ok',
        '',
        'SCORES   TaintToleration(x3)   NodeResourcesFit(x1)   TOTAL',
        'node-3   300                   80                     380',
        'node-4   300                   40                     340',
        '',
        'VolumeBinding: not evaluated until volumes exist.',
      ].join('\n'),
    );
  });

  it('shows a PreFilter rejection for every node', () => {
    const status = new Status(
      Code.UnschedulableAndUnresolvable,
      ["node(s) didn't match Pod's node affinity/selector"],
      'NodeAffinity',
    );
    const nodes = ['a', 'b'].map((name) => newNodeInfo({ metadata: { name } }));
    const store = new VerdictStore();
    store.put(
      record({
        preFilterStatus: status,
        absent: { status, nodes },
        message: "0/2 nodes are available: node(s) didn't match Pod's node affinity/selector.",
      }),
    );
    const v = store.get('default', 'web-1');
    assert.ok(v);
    assert.equal(v.preFilter.rejectedBy, 'NodeAffinity');
    assert.deepEqual(
      v.nodes.map((n) => [n.node, n.rejectedBy?.plugin, n.filters.NodeResourcesFit]),
      [
        ['a', 'NodeAffinity', '-'],
        ['b', 'NodeAffinity', '-'],
      ],
    );
    const text = formatVerdicts(v);
    assert.match(text, /PreFilter NodeAffinity rejected the pod: node\(s\) didn't match Pod's node affinity\/selector/);
    assert.match(text, /a +- +- +- +NodeAffinity: node\(s\) didn't match/);
  });

  it('keeps the last attempts of the most recent pods', () => {
    const store = new VerdictStore(2);
    for (const name of ['a', 'b', 'c']) store.put(record({ name }));
    store.put(record({ name: 'b', attempt: 9 }));
    assert.equal(store.get('default', 'a'), undefined);
    assert.equal(store.get('default', 'b')?.attempt, 9);
    assert.equal(store.size, 2);
  });
});
