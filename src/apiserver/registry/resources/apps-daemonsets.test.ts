import { describe, it } from 'node:test';
import assert from '../../../testing/assert.js';
import type { KubeObject } from '../object.js';
import { daemonsets, TEMPLATE_GENERATION_ANNOTATION } from './apps-daemonsets.js';

const strategy = daemonsets.def.strategy;

function ds(spec: Record<string, unknown> = {}): KubeObject {
  return {
    metadata: { name: 'agent', namespace: 'kube-system', uid: 'u1', resourceVersion: '1' },
    spec: {
      selector: { matchLabels: { app: 'agent' } },
      template: { metadata: { labels: { app: 'agent' } }, spec: { containers: [{ name: 'agent', image: 'agent:1' }] } },
      ...spec,
    },
  };
}

function create(obj: KubeObject): string[] {
  strategy.default?.(obj);
  strategy.prepareForCreate?.(obj);
  return (strategy.validate?.(obj) ?? []).map((e) => e.message);
}

describe('apps/v1 DaemonSets', () => {
  it('gets upstream defaults, the first template generation and zeroed status', () => {
    const obj = ds();
    assert.deepEqual(create(obj), []);
    const spec = obj.spec as Record<string, unknown>;
    assert.deepEqual(spec.updateStrategy, { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1, maxSurge: 0 } });
    assert.equal(spec.revisionHistoryLimit, 10);
    assert.equal(obj.metadata.annotations?.[TEMPLATE_GENERATION_ANNOTATION], '1');
    assert.deepEqual(obj.status, {
      currentNumberScheduled: 0,
      numberMisscheduled: 0,
      desiredNumberScheduled: 0,
      numberReady: 0,
    });
  });

  it('bumps the template generation only when the template changes', () => {
    const old = ds();
    create(old);
    const scaled = structuredClone(old);
    (scaled.spec as Record<string, unknown>).minReadySeconds = 5;
    strategy.prepareForUpdate?.(scaled, old);
    assert.equal(scaled.metadata.annotations?.[TEMPLATE_GENERATION_ANNOTATION], '1');
    const changed = structuredClone(old);
    const template = (changed.spec as { template: { spec: { containers: Array<{ image: string }> } } }).template;
    (template.spec.containers[0] as { image: string }).image = 'agent:2';
    strategy.prepareForUpdate?.(changed, old);
    assert.equal(changed.metadata.annotations?.[TEMPLATE_GENERATION_ANNOTATION], '2');
    assert.deepEqual(strategy.validateUpdate?.(changed, old), []);
  });

  it('needs exactly one of maxSurge and maxUnavailable', () => {
    const both = ds({
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1, maxSurge: '10%' } },
    });
    assert.deepEqual(create(both), [
      'spec.updateStrategy.rollingUpdate.maxSurge: Invalid value: intstr.IntOrString{Type:1, IntVal:0, StrVal:"10%"}: may not be set when maxUnavailable is non-zero',
    ]);
    const none = ds({ updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 0, maxSurge: 0 } } });
    assert.deepEqual(create(none), [
      'spec.updateStrategy.rollingUpdate.maxUnavailable: Required value: cannot be 0 when maxSurge is 0',
    ]);
  });

  it('prints the node selector and counts', () => {
    const obj = ds({
      template: {
        metadata: { labels: { app: 'agent' } },
        spec: { nodeSelector: { 'kubernetes.io/os': 'linux' }, containers: [{ name: 'agent', image: 'agent:1' }] },
      },
    });
    obj.metadata.creationTimestamp = '2026-01-01T00:00:00Z';
    obj.status = {
      desiredNumberScheduled: 3,
      currentNumberScheduled: 3,
      numberReady: 2,
      updatedNumberScheduled: 3,
      numberAvailable: 2,
    };
    assert.deepEqual(daemonsets.printer.cells(obj, Date.parse('2026-01-03T00:00:00Z')), [
      'agent',
      3,
      3,
      2,
      3,
      2,
      'kubernetes.io/os=linux',
      '2d',
      'agent',
      'agent:1',
      'app=agent',
    ]);
  });
});
