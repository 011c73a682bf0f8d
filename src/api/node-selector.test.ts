import { describe, it } from 'node:test';
import assert from '../testing/assert.js';
import {
  CompiledNodeSelector,
  type NodeSelectorRequirement,
  nodeMatchesNodeSelector,
  PreferredSchedulingTerms,
  podMatchesNodeSelectorAndAffinityTerms,
} from './node-selector.js';

const node = (labels: Record<string, string>, name = 'node-1') => ({ metadata: { name, labels } });
const expr = (key: string, operator: string, values?: string[]): NodeSelectorRequirement => ({ key, operator, values });
const one = (...matchExpressions: NodeSelectorRequirement[]) => ({ nodeSelectorTerms: [{ matchExpressions }] });

describe('node selector operators', () => {
  const n = node({ zone: 'a', gen: '5', tier: 'gold' });
  const cases: [string, NodeSelectorRequirement, boolean][] = [
    ['In matches', expr('zone', 'In', ['a', 'b']), true],
    ['In misses', expr('zone', 'In', ['b']), false],
    ['In on a missing label', expr('missing', 'In', ['a']), false],
    ['NotIn matches', expr('zone', 'NotIn', ['b']), true],
    ['NotIn misses', expr('zone', 'NotIn', ['a']), false],
    ['NotIn on a missing label matches', expr('missing', 'NotIn', ['a']), true],
    ['Exists', expr('tier', 'Exists'), true],
    ['Exists on a missing label', expr('missing', 'Exists'), false],
    ['DoesNotExist', expr('missing', 'DoesNotExist'), true],
    ['DoesNotExist on a present label', expr('tier', 'DoesNotExist'), false],
    ['Gt', expr('gen', 'Gt', ['4']), true],
    ['Gt equal', expr('gen', 'Gt', ['5']), false],
    ['Lt', expr('gen', 'Lt', ['6']), true],
    ['Lt smaller', expr('gen', 'Lt', ['5']), false],
    ['Gt on a non-integer label', expr('tier', 'Gt', ['1']), false],
    ['Gt on a missing label', expr('missing', 'Gt', ['1']), false],
    ['Gt with two values never matches', expr('gen', 'Gt', ['1', '2']), false],
    ['Gt with a non-integer bound never matches', expr('gen', 'Gt', ['x']), false],
    ['Exists with values never matches', expr('tier', 'Exists', ['gold']), false],
    ['In without values never matches', expr('zone', 'In', []), false],
    ['unknown operator never matches', expr('zone', 'Equals', ['a']), false],
  ];
  for (const [name, r, want] of cases) {
    it(name, () => assert.equal(nodeMatchesNodeSelector(n, one(r)), want));
  }
  it('keeps the parse errors', () => {
    assert.match(CompiledNodeSelector.compile(one(expr('gen', 'Gt', ['x']))).errors.join(), /must be an integer/);
  });
});

describe('node selector terms', () => {
  const n = node({ zone: 'a' }, 'node-7');
  it('ANDs expressions within a term, ORs terms', () => {
    assert.equal(nodeMatchesNodeSelector(n, one(expr('zone', 'In', ['a']), expr('x', 'Exists'))), false);
    assert.equal(
      nodeMatchesNodeSelector(n, {
        nodeSelectorTerms: [
          { matchExpressions: [expr('x', 'Exists')] },
          { matchExpressions: [expr('zone', 'In', ['a'])] },
        ],
      }),
      true,
    );
  });
  it('a bad term does not spoil a good one', () => {
    const sel = {
      nodeSelectorTerms: [
        { matchExpressions: [expr('zone', 'Gt', ['a'])] },
        { matchExpressions: [expr('zone', 'In', ['a'])] },
      ],
    };
    assert.equal(nodeMatchesNodeSelector(n, sel), true);
  });
  it('empty terms and empty selectors match nothing', () => {
    assert.equal(nodeMatchesNodeSelector(n, { nodeSelectorTerms: [{}] }), false);
    assert.equal(nodeMatchesNodeSelector(n, { nodeSelectorTerms: [] }), false);
  });
  it('matchFields on metadata.name (In/NotIn with one value)', () => {
    const f = (operator: string, values: string[]) => ({
      nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator, values }] }],
    });
    assert.equal(nodeMatchesNodeSelector(n, f('In', ['node-7'])), true);
    assert.equal(nodeMatchesNodeSelector(n, f('In', ['node-8'])), false);
    assert.equal(nodeMatchesNodeSelector(n, f('NotIn', ['node-8'])), true);
    assert.equal(nodeMatchesNodeSelector(n, f('In', ['node-7', 'node-8'])), false);
    assert.equal(nodeMatchesNodeSelector(n, f('Exists', [])), false);
  });
  it('preferred terms sum the weights of the matching terms', () => {
    const terms = PreferredSchedulingTerms.compile([
      { weight: 5, preference: { matchExpressions: [expr('zone', 'In', ['a'])] } },
      { weight: 3, preference: { matchExpressions: [expr('zone', 'In', ['b'])] } },
      { weight: 2, preference: { matchFields: [{ key: 'metadata.name', operator: 'In', values: ['node-7'] }] } },
      { weight: 0, preference: { matchExpressions: [expr('zone', 'In', ['a'])] } },
      { weight: 9, preference: {} },
    ]);
    assert.equal(terms.score(n), 7);
    assert.throws(() =>
      PreferredSchedulingTerms.compile([{ weight: 1, preference: { matchExpressions: [expr('a', 'Gt', ['x'])] } }]),
    );
  });
  it('pod nodeSelector AND required affinity', () => {
    const pod = {
      spec: {
        nodeSelector: { zone: 'a' },
        affinity: {
          nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: one(expr('disk', 'In', ['ssd'])) },
        },
      },
    };
    assert.equal(podMatchesNodeSelectorAndAffinityTerms(pod, node({ zone: 'a', disk: 'ssd' })), true);
    assert.equal(podMatchesNodeSelectorAndAffinityTerms(pod, node({ zone: 'b', disk: 'ssd' })), false);
    assert.equal(podMatchesNodeSelectorAndAffinityTerms(pod, node({ zone: 'a' })), false);
    assert.equal(podMatchesNodeSelectorAndAffinityTerms({ spec: {} }, node({})), true);
  });
});
