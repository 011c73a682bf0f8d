import { describe, it } from 'node:test';
import assert from '../../../testing/assert.js';
import type { KubeObject } from '../object.js';
import { priorityclasses, systemPriorityClasses } from './scheduling-priorityclasses.js';

const strategy = priorityclasses.def.strategy;
const validate = (obj: KubeObject) => (strategy.validate?.(obj) ?? []).map((e) => e.message);

describe('scheduling.k8s.io/v1 PriorityClasses', () => {
  it('returns the two system classes with upstream values, and they validate', () => {
    const classes = systemPriorityClasses();
    assert.deepEqual(
      classes.map((c) => [c.metadata.name, c.value]),
      [
        ['system-node-critical', 2000001000],
        ['system-cluster-critical', 2000000000],
      ],
    );
    for (const c of classes) {
      strategy.default?.(c);
      assert.equal(c.preemptionPolicy, 'PreemptLowerPriority');
      assert.deepEqual(validate(c), []);
    }
  });

  it('reserves system- names and values above one billion', () => {
    assert.deepEqual(validate({ metadata: { name: 'system-mine' }, value: 1 }), [
      "metadata.name: Forbidden: priority class names with 'system-' prefix are reserved for system use only. error: system-mine is not a known system priority class",
    ]);
    assert.deepEqual(validate({ metadata: { name: 'system-node-critical' }, value: 5 }), [
      "metadata.name: Forbidden: priority class names with 'system-' prefix are reserved for system use only. error: value of system-node-critical PriorityClass must be 2000001000",
    ]);
    assert.deepEqual(validate({ metadata: { name: 'huge' }, value: 1000000001 }), [
      'value: Forbidden: maximum allowed value of a user defined priority is 1000000000',
    ]);
    assert.deepEqual(validate({ metadata: { name: 'odd' }, value: 1, preemptionPolicy: 'Sometimes' }), [
      'preemptionPolicy: Unsupported value: "Sometimes": supported values: "PreemptLowerPriority", "Never"',
    ]);
  });

  it('keeps value and preemptionPolicy immutable', () => {
    const old: KubeObject = { metadata: { name: 'high', resourceVersion: '1' }, value: 10, preemptionPolicy: 'Never' };
    const next: KubeObject = {
      metadata: { name: 'high', resourceVersion: '1' },
      value: 11,
      preemptionPolicy: 'PreemptLowerPriority',
    };
    assert.deepEqual(
      (strategy.validateUpdate?.(next, old) ?? []).map((e) => e.message),
      [
        'value: Forbidden: may not be changed in an update.',
        'preemptionPolicy: Invalid value: "PreemptLowerPriority": field is immutable',
      ],
    );
  });

  it('prints VALUE GLOBAL-DEFAULT AGE and PREEMPTIONPOLICY', () => {
    const obj: KubeObject = {
      metadata: { name: 'high', creationTimestamp: '2026-01-01T00:00:00Z' },
      value: 1000,
      globalDefault: true,
      preemptionPolicy: 'Never',
    };
    assert.deepEqual(priorityclasses.printer.cells(obj, Date.parse('2026-01-01T00:00:10Z')), [
      'high',
      1000,
      true,
      '10s',
      'Never',
    ]);
  });
});
