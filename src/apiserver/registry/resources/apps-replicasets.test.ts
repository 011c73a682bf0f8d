import { describe, it } from 'node:test';
import assert from '../../../testing/assert.js';
import type { KubeObject } from '../object.js';
import { controllerrevisions } from './apps-controllerrevisions.js';
import { replicasets } from './apps-replicasets.js';

describe('apps/v1 ReplicaSets and ControllerRevisions', () => {
  it('defaults a ReplicaSet and says "deployment" for an empty selector, as upstream does', () => {
    const rs: KubeObject = {
      metadata: { name: 'web-1', namespace: 'default' },
      spec: {
        selector: {},
        template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'i' }] } },
      },
    };
    const s = replicasets.def.strategy;
    s.default?.(rs);
    s.prepareForCreate?.(rs);
    assert.equal((rs.spec as Record<string, unknown>).replicas, 1);
    assert.deepEqual(rs.status, { replicas: 0 });
    assert.deepEqual(
      (s.validate?.(rs) ?? []).map((e) => e.message),
      [
        'spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string(nil), MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: empty selector is invalid for deployment',
      ],
    );
  });

  it('prints DESIRED CURRENT READY', () => {
    const rs: KubeObject = {
      metadata: { name: 'web-1', creationTimestamp: '2026-01-01T00:00:00Z' },
      spec: {
        replicas: 2,
        selector: { matchLabels: { app: 'web' } },
        template: { spec: { containers: [{ name: 'c', image: 'i' }] } },
      },
      status: { replicas: 2, readyReplicas: 1 },
    };
    assert.deepEqual(replicasets.printer.cells(rs, Date.parse('2026-01-01T01:00:00Z')), [
      'web-1',
      2,
      2,
      1,
      '60m',
      'c',
      'i',
      'app=web',
    ]);
  });

  it('requires revision data, keeps it immutable and prints the controller', () => {
    const s = controllerrevisions.def.strategy;
    const cr: KubeObject = {
      metadata: {
        name: 'web-7d4b9',
        namespace: 'default',
        resourceVersion: '1',
        ownerReferences: [{ apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'web', uid: 'x', controller: true }],
      },
      revision: 2,
    };
    assert.deepEqual(
      (s.validate?.(cr) ?? []).map((e) => e.message),
      ['data: Required value: data is mandatory'],
    );
    cr.data = { a: 1 };
    const next = structuredClone(cr);
    next.data = { a: 2 };
    const errors = (s.validateUpdate?.(next, cr) ?? []).map((e) => e.message);
    assert.equal(errors.length, 1);
    assert.match(errors[0] ?? '', /^data: Invalid value: runtime\.Unknown\{.*\}: field is immutable$/);
    cr.metadata.creationTimestamp = '2026-01-01T00:00:00Z';
    assert.deepEqual(controllerrevisions.printer.cells(cr, Date.parse('2026-01-01T00:00:09Z')), [
      'web-7d4b9',
      'statefulset.apps/web',
      2,
      '9s',
    ]);
  });
});
