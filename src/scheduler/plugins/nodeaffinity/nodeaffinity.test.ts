import { describe, it } from 'node:test';
import assert from '../../../testing/assert.js';
import { newNodeInfo } from '../../framework/node-info.js';
import { Code, CycleState, type Pod } from '../../framework/types.js';
import { NodeAffinity } from './index.js';

const node = (name: string, labels: Record<string, string> = {}) => ({ metadata: { name, labels } });
function pod(spec: Record<string, unknown>): Pod {
  return { metadata: { name: 'p', namespace: 'default', uid: 'u' }, spec: { containers: [], ...spec } } as Pod;
}
const required = (...nodeSelectorTerms: unknown[]) => ({
  affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms } } },
});
const REASON = "node(s) didn't match Pod's node affinity/selector";

function run(pl: NodeAffinity, p: Pod, n: ReturnType<typeof node>) {
  const state = new CycleState();
  const pre = pl.preFilter(state, p);
  if (pre.status.code === Code.Skip) return { code: Code.Success, reasons: [] as readonly string[], skipped: true };
  const s = pl.filter(state, p, newNodeInfo(n));
  return { code: s.code, reasons: s.reasons, skipped: false };
}

describe('NodeAffinity filter', () => {
  const pl = new NodeAffinity();
  it('skips pods without node selector or affinity', () => {
    assert.equal(run(pl, pod({}), node('n')).skipped, true);
  });
  it('nodeSelector', () => {
    assert.equal(run(pl, pod({ nodeSelector: { foo: 'bar' } }), node('n', { foo: 'bar' })).code, Code.Success);
    const r = run(pl, pod({ nodeSelector: { foo: 'bar' } }), node('n', { foo: 'baz' }));
    assert.equal(r.code, Code.UnschedulableAndUnresolvable);
    assert.deepEqual(r.reasons, [REASON]);
  });
  it('required terms with every operator', () => {
    const n = node('n', { foo: 'bar', kernel: '6' });
    const ok = (...matchExpressions: unknown[]) =>
      run(pl, pod(required({ matchExpressions })), n).code === Code.Success;
    assert.equal(ok({ key: 'foo', operator: 'In', values: ['bar', 'x'] }), true);
    assert.equal(ok({ key: 'foo', operator: 'NotIn', values: ['bar'] }), false);
    assert.equal(ok({ key: 'foo', operator: 'Exists' }), true);
    assert.equal(ok({ key: 'foo', operator: 'DoesNotExist' }), false);
    assert.equal(ok({ key: 'kernel', operator: 'Gt', values: ['5'] }), true);
    assert.equal(ok({ key: 'kernel', operator: 'Lt', values: ['5'] }), false);
    assert.equal(ok({ key: 'kernel', operator: 'Lt', values: ['7'] }, { key: 'foo', operator: 'Exists' }), true);
  });
  it('nodeSelector and affinity must both match', () => {
    const p = pod({ nodeSelector: { a: '1' }, ...required({ matchExpressions: [{ key: 'b', operator: 'Exists' }] }) });
    assert.equal(run(pl, p, node('n', { a: '1', b: '' })).code, Code.Success);
    assert.equal(run(pl, p, node('n', { b: '' })).code, Code.UnschedulableAndUnresolvable);
  });
  it('addedAffinity is enforced first with its own reason', () => {
    const enforced = new NodeAffinity({
      addedAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: {
          nodeSelectorTerms: [{ matchExpressions: [{ key: 'pool', operator: 'In', values: ['batch'] }] }],
        },
      },
    });
    const r = run(enforced, pod({}), node('n', {}));
    assert.deepEqual(r.reasons, ["node(s) didn't match scheduler-enforced node affinity"]);
    assert.equal(run(enforced, pod({}), node('n', { pool: 'batch' })).code, Code.Success);
  });
  it('refuses a bad addedAffinity', () => {
    assert.throws(
      () =>
        new NodeAffinity({
          addedAffinity: {
            requiredDuringSchedulingIgnoredDuringExecution: {
              nodeSelectorTerms: [{ matchExpressions: [{ key: 'a', operator: 'Gt', values: ['x'] }] }],
            },
          },
        }),
    );
  });
});

describe('NodeAffinity PreFilter narrowing', () => {
  const pl = new NodeAffinity();
  const field = (operator: string, values: string[]) => ({ key: 'metadata.name', operator, values });
  it('narrows to the named nodes when every term pins the name', () => {
    const p = pod(required({ matchFields: [field('In', ['a', 'b'])] }, { matchFields: [field('In', ['c'])] }));
    const out = pl.preFilter(new CycleState(), p);
    assert.equal(out.status.code, Code.Success);
    assert.deepEqual([...(out.result?.nodeNames ?? [])].sort(), ['a', 'b', 'c']);
  });
  it('intersects within a term', () => {
    const p = pod(required({ matchFields: [field('In', ['a', 'b']), field('In', ['b', 'c'])] }));
    assert.deepEqual([...(pl.preFilter(new CycleState(), p).result?.nodeNames ?? [])], ['b']);
  });
  it('does not narrow when a term does not pin the name', () => {
    const p = pod(
      required({ matchFields: [field('In', ['a'])] }, { matchExpressions: [{ key: 'x', operator: 'Exists' }] }),
    );
    assert.equal(pl.preFilter(new CycleState(), p).result, undefined);
  });
  it('conflicting terms are unresolvable', () => {
    const p = pod(required({ matchFields: [field('In', ['a']), field('In', ['b'])] }));
    const out = pl.preFilter(new CycleState(), p);
    assert.equal(out.status.code, Code.UnschedulableAndUnresolvable);
    assert.deepEqual(out.status.reasons, ['pod affinity terms conflict']);
  });
});

describe('NodeAffinity score', () => {
  const preferred = (terms: unknown[]) => ({
    affinity: { nodeAffinity: { preferredDuringSchedulingIgnoredDuringExecution: terms } },
  });
  function scores(pl: NodeAffinity, p: Pod, nodes: ReturnType<typeof node>[]) {
    const state = new CycleState();
    const infos = nodes.map((n) => newNodeInfo(n));
    const pre = pl.preScore(state, p, infos);
    if (pre.code === Code.Skip) return 'skip';
    const list = infos.map((ni) => ({ name: ni.node.metadata.name ?? '', score: pl.score(state, p, ni).score }));
    pl.normalizeScore(state, p, list);
    return list.map((s) => s.score);
  }
  it('skips pods without preferred terms', () => {
    assert.equal(scores(new NodeAffinity(), pod({}), [node('a')]), 'skip');
  });
  it('sums and normalises the weights (upstream case)', () => {
    const p = pod(
      preferred([
        { weight: 2, preference: { matchExpressions: [{ key: 'foo', operator: 'In', values: ['bar'] }] } },
        { weight: 4, preference: { matchExpressions: [{ key: 'key', operator: 'In', values: ['value'] }] } },
        {
          weight: 5,
          preference: {
            matchExpressions: [
              { key: 'foo', operator: 'In', values: ['bar'] },
              { key: 'key', operator: 'In', values: ['value'] },
              { key: 'az', operator: 'In', values: ['az1'] },
            ],
          },
        },
      ]),
    );
    const nodes = [
      node('node1', { foo: 'bar' }),
      node('node5', { foo: 'bar', key: 'value', az: 'az1' }),
      node('node2', { key: 'value' }),
    ];
    // raw: 2, 11, 4 → ×100/11: 18, 100, 36
    assert.deepEqual(scores(new NodeAffinity(), p, nodes), [18, 100, 36]);
  });
  it('addedAffinity preferred terms count too', () => {
    const pl = new NodeAffinity({
      addedAffinity: {
        preferredDuringSchedulingIgnoredDuringExecution: [
          { weight: 5, preference: { matchExpressions: [{ key: 'foo', operator: 'Exists' }] } },
        ],
      },
    });
    assert.deepEqual(scores(pl, pod({}), [node('a', { foo: '' }), node('b')]), [100, 0]);
  });
});

describe('NodeAffinity events', () => {
  const [e] = new NodeAffinity().eventsToRegister();
  it('queues when a node starts matching', () => {
    assert.deepEqual(e?.event, { resource: 'Node', actions: ['Add', 'UpdateNodeLabel'] });
    const p = pod({ nodeSelector: { a: '1' } });
    assert.equal(e?.hint?.(p, undefined, node('n', { a: '1' })), 1);
    assert.equal(e?.hint?.(p, undefined, node('n', { a: '2' })), 0);
    assert.equal(e?.hint?.(p, node('n', { a: '2' }), node('n', { a: '1' })), 1);
    assert.equal(e?.hint?.(p, node('n', { a: '1' }), node('n', { a: '1', b: '' })), 0);
  });
});
