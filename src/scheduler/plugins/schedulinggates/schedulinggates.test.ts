import { describe, it } from 'node:test';
import assert from '../../../testing/assert.js';
import { Code, type Pod } from '../../framework/types.js';
import { SchedulingGates } from './index.js';

const pod = (gates?: string[], uid = 'u'): Pod =>
  ({
    metadata: { name: 'p', uid },
    spec: { containers: [], schedulingGates: gates?.map((name) => ({ name })) },
  }) as Pod;

describe('SchedulingGates', () => {
  const pl = new SchedulingGates();
  it('lets ungated pods through', () => {
    assert.equal(pl.preEnqueue(pod()).code, Code.Success);
    assert.equal(pl.preEnqueue(pod([])).code, Code.Success);
  });
  it('holds gated pods with upstream message', () => {
    const s = pl.preEnqueue(pod(['example.com/foo', 'example.com/bar']));
    assert.equal(s.code, Code.UnschedulableAndUnresolvable);
    assert.equal(s.message(), 'waiting for scheduling gates: [example.com/foo example.com/bar]');
  });
  it('queues the pod whose gates were removed', () => {
    const [e] = pl.eventsToRegister();
    assert.deepEqual(e?.event, { resource: 'Pod', actions: ['UpdatePodSchedulingGatesEliminated'] });
    assert.equal(e?.hint?.(pod(['a']), pod(['a']), pod()), 1);
    assert.equal(e?.hint?.(pod(['a']), pod(['a'], 'x'), pod(undefined, 'x')), 0);
  });
});
