import { describe, it } from 'node:test';
import assert from '../../../testing/assert.js';
import { attributesFor } from '../attributes.js';
import type { AdmissionAttributes } from '../types.js';
import { taintNodesByCondition } from './taint-nodes-by-condition.js';

const NODES = { group: '', version: 'v1', resource: 'nodes', kind: 'Node', namespaced: false };

describe('TaintNodesByCondition', () => {
  function node(taints?: unknown[]): AdmissionAttributes {
    return attributesFor(NODES, {
      operation: 'CREATE',
      object: { metadata: { name: 'node-1' }, ...(taints ? { spec: { taints } } : {}) },
      namespace: '',
      name: 'node-1',
    });
  }

  it('creates nodes with the not-ready NoSchedule taint', async () => {
    const plugin = taintNodesByCondition();
    const a = node();
    await plugin.admit?.(a);
    assert.deepEqual(a.object!.spec, { taints: [{ key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule' }] });
    const b = node([{ key: 'dedicated', value: 'gpu', effect: 'NoSchedule' }]);
    await plugin.admit?.(b);
    assert.equal((b.object!.spec as { taints: unknown[] }).taints.length, 2);
  });

  it('does not add it twice (same key and effect, whatever the value)', async () => {
    const plugin = taintNodesByCondition();
    const a = node([{ key: 'node.kubernetes.io/not-ready', value: 'x', effect: 'NoSchedule' }]);
    await plugin.admit?.(a);
    assert.equal((a.object!.spec as { taints: unknown[] }).taints.length, 1);
    assert.equal(plugin.handles?.('UPDATE'), false);
  });
});
