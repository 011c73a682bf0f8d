import { describe, it } from 'node:test';
import type { KubeObject } from '../../../client/types.js';
import assert from '../../../testing/assert.js';
import { Lifecycles } from './lifecycle-config.js';

const pod = (
  labels: Record<string, string>,
  restartPolicy = 'Always',
  annotations: Record<string, string> = {},
): KubeObject => ({
  metadata: { name: 'p', namespace: 'default', labels, annotations },
  spec: { restartPolicy, containers: [{ name: 'c', image: 'x' }] },
});

describe('lifecycle config', () => {
  it('defaults by restart policy: run for Always, complete with 0 for Never and OnFailure', () => {
    const l = new Lifecycles();
    assert.deepEqual(l.resolve(pod({})), {
      lifecycle: 'run',
      exitCode: 0,
      runSeconds: 1,
      startSeconds: 1,
      initSeconds: 1,
      stopSeconds: undefined,
      logs: [],
      imagePull: 'succeed',
    });
    assert.equal(l.resolve(pod({}, 'Never')).lifecycle, 'complete');
    assert.equal(l.resolve(pod({}, 'OnFailure')).lifecycle, 'complete');
  });

  it('takes the first matching rule, then the annotations', () => {
    const l = Lifecycles.parse(`
defaults:
  startSeconds: 2
rules:
  - selector: app=flaky
    lifecycle: crashloop
    runSeconds: 5
  - selector: { matchLabels: { app: flaky } }
    lifecycle: never-ready
  - namespace: batch
    lifecycle: fail
    exitCode: 7
    logs: [starting, crashing]
    imagePull: fail
`);
    const flaky = l.resolve(pod({ app: 'flaky' }));
    assert.equal(flaky.lifecycle, 'crashloop');
    assert.equal(flaky.exitCode, 1);
    assert.equal(flaky.runSeconds, 5);
    assert.equal(flaky.startSeconds, 2);
    const batch = l.resolve({ ...pod({}), metadata: { name: 'b', namespace: 'batch' } });
    assert.deepEqual(
      [batch.lifecycle, batch.exitCode, batch.logs, batch.imagePull],
      ['fail', 7, ['starting', 'crashing'], 'fail'],
    );
    assert.equal(flaky.imagePull, 'succeed');
    assert.equal(l.resolve(pod({}, 'Always', { 'sim.wheelhouse.dev/image-pull': 'fail' })).imagePull, 'fail');
    const annotated = l.resolve(
      pod({ app: 'flaky' }, 'Always', {
        'sim.wheelhouse.dev/lifecycle': 'complete',
        'sim.wheelhouse.dev/exit-code': '4',
        'sim.wheelhouse.dev/run-seconds': '0.5',
        'sim.wheelhouse.dev/stop-seconds': '2',
      }),
    );
    assert.deepEqual(
      [annotated.lifecycle, annotated.exitCode, annotated.runSeconds, annotated.stopSeconds],
      ['complete', 4, 0.5, 2],
    );
    const bad = l.resolve(
      pod({}, 'Always', { 'sim.wheelhouse.dev/lifecycle': 'explode', 'sim.wheelhouse.dev/exit-code': 'x' }),
    );
    assert.equal(bad.lifecycle, 'run');
  });

  it('refuses configs it does not understand', () => {
    assert.throws(() => Lifecycles.parse('rules: [{ lifecycle: explode }]'), /rules\[0\]\.lifecycle: must be one of/);
    assert.throws(() => Lifecycles.parse('rules: [{ runSeconds: -1 }]'), /rules\[0\]\.runSeconds/);
    assert.throws(
      () => Lifecycles.parse('defaults: { imagePull: sometimes }'),
      /defaults\.imagePull: must be one of succeed, fail, not "sometimes"/,
    );
    assert.throws(() => Lifecycles.parse('rules: [{ selector: "a in (" }]'), /rules\[0\]\.selector/);
    assert.throws(() => Lifecycles.parse('stages: []'), /unknown field/);
    assert.throws(() => Lifecycles.parse('defaults: { colour: red }'), /defaults: unknown field "colour"/);
  });
});
