import { describe, it } from 'node:test';
import assert from '../../../testing/assert.js';
import type { KubeObject } from '../object.js';
import { poddisruptionbudgets } from './policy-poddisruptionbudgets.js';

const messages = (errs: { message: string }[] | undefined) => (errs ?? []).map((e) => e.message);

describe('policy/v1 PodDisruptionBudgets', () => {
  it('refuses both minAvailable and maxUnavailable, and checks percentages', () => {
    const pdb: KubeObject = {
      metadata: { name: 'web', namespace: 'default' },
      spec: { minAvailable: 1, maxUnavailable: '150%', selector: { matchLabels: { app: 'web' } } },
    };
    assert.deepEqual(messages(poddisruptionbudgets.def.strategy.validate?.(pdb)), [
      'spec: Invalid value: policy.PodDisruptionBudgetSpec{MinAvailable:(*intstr.IntOrString)(0xc000000000), Selector:(*v1.LabelSelector)(0xc000000000), MaxUnavailable:(*intstr.IntOrString)(0xc000000000), UnhealthyPodEvictionPolicy:(*policy.UnhealthyPodEvictionPolicyType)(nil)}: minAvailable and maxUnavailable cannot be both set',
      'spec.maxUnavailable: Invalid value: intstr.IntOrString{Type:1, IntVal:0, StrVal:"150%"}: must not be greater than 100%',
    ]);
    poddisruptionbudgets.def.strategy.prepareForCreate?.(pdb);
    assert.deepEqual(pdb.status, { disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0 });
    pdb.metadata.creationTimestamp = '2026-01-01T00:00:00Z';
    (pdb.status as Record<string, number>).disruptionsAllowed = 2;
    assert.deepEqual(poddisruptionbudgets.printer.cells(pdb, Date.parse('2026-01-01T00:00:01Z')), [
      'web',
      '1',
      '150%',
      2,
      '1s',
    ]);
    const none: KubeObject = { metadata: { name: 'x' }, spec: {} };
    assert.deepEqual(poddisruptionbudgets.printer.cells(none, 0).slice(1, 3), ['N/A', 'N/A']);
  });
});
