import { describe, it } from 'node:test';
import { StatusError } from '../../../api/status-error.js';
import assert from '../../../testing/assert.js';
import type { KubeObject } from '../object.js';
import { bindPod, validateBinding } from './core-pod-binding.js';

const pod = (
  spec: Record<string, unknown> = {},
  status: Record<string, unknown> = { phase: 'Pending' },
): KubeObject => ({
  metadata: { name: 'web' },
  spec: { containers: [{ name: 'c', image: 'x' }], ...spec },
  status,
});
const binding = (target: Record<string, unknown>, annotations?: Record<string, string>): KubeObject => ({
  metadata: { name: 'web', ...(annotations ? { annotations } : {}) },
  target,
});

function thrown(fn: () => unknown): StatusError {
  try {
    fn();
  } catch (err) {
    if (err instanceof StatusError) return err;
  }
  assert.fail('expected a StatusError');
}

describe('pod binding', () => {
  it('sets the node, the annotations and PodScheduled', () => {
    const p = pod(
      {},
      { phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable' }] },
    );
    bindPod(
      p,
      binding({ kind: 'Node', name: 'node-1' }, { 'example.com/by': 'scheduler' }),
      Date.parse('2025-01-01T00:00:00Z'),
    );
    assert.equal((p.spec as Record<string, unknown>).nodeName, 'node-1');
    assert.deepEqual(p.metadata.annotations, { 'example.com/by': 'scheduler' });
    assert.deepEqual((p.status as Record<string, unknown>).conditions, [
      { type: 'PodScheduled', status: 'True', lastTransitionTime: '2025-01-01T00:00:00Z' },
    ]);
  });

  it('refuses bound, gated and deleted pods with Conflicts', () => {
    const bound = thrown(() => bindPod(pod({ nodeName: 'node-2' }), binding({ name: 'node-1' })));
    assert.equal(bound.code, 409);
    assert.equal(
      bound.message,
      'Operation cannot be fulfilled on pods/binding "web": pod web is already assigned to node "node-2"',
    );
    const gated = thrown(() => bindPod(pod({ schedulingGates: [{ name: 'g' }] }), binding({ name: 'node-1' })));
    assert.equal(
      gated.message,
      'Operation cannot be fulfilled on pods/binding "web": pod web has non-empty .spec.schedulingGates',
    );
    const deleting = pod();
    deleting.metadata.deletionTimestamp = '2025-01-01T00:00:00Z';
    assert.match(
      thrown(() => bindPod(deleting, binding({ name: 'n' }))).message,
      /pod web is being deleted, cannot be assigned to a host$/,
    );
  });

  it('needs a node target', () => {
    assert.equal(
      thrown(() => validateBinding(binding({ kind: 'Pod' }))).message,
      '[target.kind: Unsupported value: "Pod": supported values: "Node", "<empty>", target.name: Required value]',
    );
    validateBinding(binding({ name: 'node-1' }));
  });
});
