import { describe, it } from 'node:test';
import assert from '../../../testing/assert.js';
import type { KubeObject } from '../object.js';
import { statefulsets } from './apps-statefulsets.js';

const strategy = statefulsets.def.strategy;

function sts(spec: Record<string, unknown> = {}): KubeObject {
  return {
    metadata: { name: 'db', namespace: 'default', uid: 'u1', resourceVersion: '1' },
    spec: {
      selector: { matchLabels: { app: 'db' } },
      serviceName: 'db',
      template: { metadata: { labels: { app: 'db' } }, spec: { containers: [{ name: 'db', image: 'postgres' }] } },
      ...spec,
    },
  };
}

function create(obj: KubeObject): string[] {
  strategy.default?.(obj);
  strategy.prepareForCreate?.(obj);
  return (strategy.validate?.(obj) ?? []).map((e) => e.message);
}

describe('apps/v1 StatefulSets', () => {
  it('gets upstream defaults', () => {
    const obj = sts({
      volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: { resources: { requests: { storage: '1Gi' } } } }],
    });
    assert.deepEqual(create(obj), []);
    const spec = obj.spec as Record<string, unknown>;
    assert.equal(spec.podManagementPolicy, 'OrderedReady');
    assert.deepEqual(spec.updateStrategy, { type: 'RollingUpdate', rollingUpdate: { partition: 0 } });
    assert.deepEqual(spec.persistentVolumeClaimRetentionPolicy, { whenDeleted: 'Retain', whenScaled: 'Retain' });
    assert.equal(spec.replicas, 1);
    assert.equal(spec.revisionHistoryLimit, 10);
    assert.deepEqual(spec.volumeClaimTemplates, [
      {
        apiVersion: 'v1',
        kind: 'PersistentVolumeClaim',
        metadata: { name: 'data', creationTimestamp: null },
        spec: { resources: { requests: { storage: '1Gi' } }, volumeMode: 'Filesystem' },
        status: { phase: 'Pending' },
      },
    ]);
    assert.deepEqual(obj.status, { replicas: 0 });
  });

  it('validates policies and the selector with upstream text', () => {
    const obj = sts({
      podManagementPolicy: 'Random',
      updateStrategy: { type: 'OnDelete', rollingUpdate: { partition: 1 } },
      selector: {},
    });
    assert.deepEqual(create(obj), [
      `spec.podManagementPolicy: Invalid value: "Random": must be 'OrderedReady' or 'Parallel'`,
      "spec.updateStrategy.rollingUpdate: Invalid value: apps.RollingUpdateStatefulSetStrategy{Partition:1, MaxUnavailable:(*intstr.IntOrString)(nil)}: only allowed for updateStrategy 'RollingUpdate'",
      'spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string(nil), MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: empty selector is invalid for statefulset',
    ]);
  });

  it('refuses a new StatefulSet whose serviceName is not a DNS-1123 label, and tolerates an old one on update', () => {
    const bad = sts({ serviceName: 'A.b' });
    assert.deepEqual(create(bad), [
      `spec.serviceName: Invalid value: "A.b": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`,
    ]);
    const next = structuredClone(bad);
    (next.spec as Record<string, unknown>).replicas = 3;
    assert.deepEqual(strategy.validateUpdate?.(next, bad) ?? [], []);
  });

  it("warns of fractional storage in claim templates and a negative revisionHistoryLimit, in upstream's words", () => {
    const obj = sts({
      revisionHistoryLimit: -1,
      volumeClaimTemplates: [
        { metadata: { name: 'ok' }, spec: { resources: { requests: { storage: '1Gi' } } } },
        {
          metadata: { name: 'data' },
          spec: { resources: { requests: { storage: '1500m' }, limits: { storage: '2.5' } } },
        },
      ],
    });
    assert.deepEqual(create(obj), []);
    const negative =
      'spec.revisionHistoryLimit: a negative value retains all historical revisions; a value >= 0 is recommended';
    assert.deepEqual(strategy.warningsOnCreate?.(obj), [
      'spec.volumeClaimTemplates[1].resources.requests[storage]: fractional byte value "1500m" is invalid, must be an integer',
      'spec.volumeClaimTemplates[1].resources.limits[storage]: fractional byte value "2500m" is invalid, must be an integer',
      negative,
    ]);
    // On update (whatever changed) upstream names the claim template's spec "Spec".
    assert.deepEqual(strategy.warningsOnUpdate?.(obj, structuredClone(obj)), [
      'spec.volumeClaimTemplates[1].Spec.resources.requests[storage]: fractional byte value "1500m" is invalid, must be an integer',
      'spec.volumeClaimTemplates[1].Spec.resources.limits[storage]: fractional byte value "2500m" is invalid, must be an integer',
      negative,
    ]);
  });

  it('forbids changing spec fields other than the mutable ones', () => {
    const old = sts();
    create(old);
    const next = structuredClone(old);
    (next.spec as Record<string, unknown>).serviceName = 'other';
    (next.spec as Record<string, unknown>).replicas = 3;
    const errors = (strategy.validateUpdate?.(next, old) ?? []).map((e) => e.message);
    assert.deepEqual(errors, [
      "spec: Forbidden: updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden",
    ]);
  });

  it('drops rollingUpdate.maxUnavailable while the MaxUnavailableStatefulSet gate is off (v1.33 default)', () => {
    const obj = sts({ updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 1, maxUnavailable: 2 } } });
    assert.deepEqual(create(obj), []);
    assert.deepEqual((obj.spec as Record<string, unknown>).updateStrategy, {
      type: 'RollingUpdate',
      rollingUpdate: { partition: 1 },
    });
    // An update may not add it either.
    const next = structuredClone(obj);
    (
      next.spec as { updateStrategy: { rollingUpdate: Record<string, unknown> } }
    ).updateStrategy.rollingUpdate.maxUnavailable = '50%';
    strategy.prepareForUpdate?.(next, obj);
    assert.deepEqual((next.spec as Record<string, unknown>).updateStrategy, {
      type: 'RollingUpdate',
      rollingUpdate: { partition: 1 },
    });
    // A set stored with the field (the gate was on once) keeps it.
    const stored = structuredClone(obj);
    (
      stored.spec as { updateStrategy: { rollingUpdate: Record<string, unknown> } }
    ).updateStrategy.rollingUpdate.maxUnavailable = 2;
    const kept = structuredClone(stored);
    strategy.prepareForUpdate?.(kept, stored);
    assert.equal(
      (kept.spec as { updateStrategy: { rollingUpdate: Record<string, unknown> } }).updateStrategy.rollingUpdate
        .maxUnavailable,
      2,
    );
  });

  it('prints READY as ready/desired', () => {
    const obj = sts({ replicas: 3 });
    obj.metadata.creationTimestamp = '2026-01-01T00:00:00Z';
    obj.status = { replicas: 3, readyReplicas: 1 };
    assert.deepEqual(statefulsets.printer.cells(obj, Date.parse('2026-01-01T00:00:30Z')), [
      'db',
      '1/3',
      '30s',
      'db',
      'postgres',
    ]);
  });
});
