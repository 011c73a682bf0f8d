import { describe, it } from 'node:test';
import assert from '../../../testing/assert.js';
import type { KubeObject } from '../object.js';
import { deployments } from './apps-deployments.js';

const strategy = deployments.def.strategy;

function deployment(spec: Record<string, unknown> = {}, name = 'web'): KubeObject {
  return {
    metadata: { name, namespace: 'default', uid: 'u1', resourceVersion: '1' },
    spec: {
      selector: { matchLabels: { app: 'web' } },
      template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'nginx', image: 'nginx' }] } },
      ...spec,
    },
  };
}

function create(obj: KubeObject): string[] {
  strategy.default?.(obj);
  strategy.prepareForCreate?.(obj);
  return (strategy.validate?.(obj) ?? []).map((e) => e.message);
}

function update(next: KubeObject, old: KubeObject): string[] {
  strategy.default?.(next);
  strategy.prepareForUpdate?.(next, old);
  return (strategy.validateUpdate?.(next, old) ?? []).map((e) => e.message);
}

describe('apps/v1 Deployments', () => {
  it('gets upstream defaults and an empty status on create', () => {
    const obj = deployment();
    assert.deepEqual(create(obj), []);
    const spec = obj.spec as Record<string, unknown>;
    assert.equal(spec.replicas, 1);
    assert.deepEqual(spec.strategy, {
      type: 'RollingUpdate',
      rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' },
    });
    assert.equal(spec.revisionHistoryLimit, 10);
    assert.equal(spec.progressDeadlineSeconds, 600);
    assert.deepEqual(obj.status, {});
    const podSpec = (spec.template as { spec: Record<string, unknown> }).spec;
    assert.equal(podSpec.restartPolicy, 'Always');
    assert.equal(podSpec.schedulerName, 'default-scheduler');
  });

  it('does not add rollingUpdate to a Recreate deployment, and refuses one given', () => {
    const obj = deployment({ strategy: { type: 'Recreate' } });
    assert.deepEqual(create(obj), []);
    assert.deepEqual((obj.spec as Record<string, unknown>).strategy, { type: 'Recreate' });
    const both = deployment({ strategy: { type: 'Recreate', rollingUpdate: { maxSurge: 1 } } });
    assert.deepEqual(create(both), [
      "spec.strategy.rollingUpdate: Forbidden: may not be specified when strategy `type` is 'Recreate'",
    ]);
  });

  it('refuses a selector that does not match the template labels, with upstream text', () => {
    const obj = deployment({ selector: { matchLabels: { app: 'other' } } });
    assert.deepEqual(create(obj), [
      'spec.template.metadata.labels: Invalid value: map[string]string{"app":"web"}: `selector` does not match template `labels`',
    ]);
  });

  it('requires a selector and refuses an empty one', () => {
    const missing = deployment();
    delete (missing.spec as Record<string, unknown>).selector;
    assert.deepEqual(create(missing), [
      'spec.selector: Required value',
      'spec.template.metadata.labels: Invalid value: map[string]string{"app":"web"}: `selector` does not match template `labels`',
    ]);
    const empty = deployment({ selector: {} });
    assert.deepEqual(create(empty), [
      'spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string(nil), MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: empty selector is invalid for deployment',
    ]);
  });

  it('checks replicas and the rolling update numbers', () => {
    assert.deepEqual(create(deployment({ replicas: -1 })), [
      'spec.replicas: Invalid value: -1: must be greater than or equal to 0',
    ]);
    const zero = deployment({ strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 0, maxUnavailable: 0 } } });
    assert.deepEqual(create(zero), [
      'spec.strategy.rollingUpdate.maxUnavailable: Invalid value: intstr.IntOrString{Type:0, IntVal:0, StrVal:""}: may not be 0 when `maxSurge` is 0',
    ]);
    const percent = deployment({
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 'lots', maxUnavailable: '120%' } },
    });
    assert.deepEqual(create(percent), [
      `spec.strategy.rollingUpdate.maxSurge: Invalid value: intstr.IntOrString{Type:1, IntVal:0, StrVal:"lots"}: a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')`,
      'spec.strategy.rollingUpdate.maxUnavailable: Invalid value: intstr.IntOrString{Type:1, IntVal:0, StrVal:"120%"}: must not be greater than 100%',
    ]);
    const unknown = deployment({ strategy: { type: 'BlueGreen' } });
    assert.deepEqual(create(unknown), [
      'spec.strategy: Unsupported value: apps.DeploymentStrategy{Type:"BlueGreen", RollingUpdate:(*apps.RollingUpdateDeployment)(nil)}: supported values: "Recreate", "RollingUpdate"',
    ]);
  });

  it('validates the pod template (containers, restartPolicy)', () => {
    const obj = deployment({
      template: {
        metadata: { labels: { app: 'web' } },
        spec: { restartPolicy: 'OnFailure', containers: [{ name: 'Bad_Name' }] },
      },
    });
    assert.deepEqual(create(obj), [
      "spec.template.spec.containers[0].name: Invalid value: \"Bad_Name\": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
      'spec.template.spec.containers[0].image: Required value',
      'spec.template.spec.restartPolicy: Unsupported value: "OnFailure": supported values: "Always"',
    ]);
    const none = deployment({ template: { metadata: { labels: { app: 'web' } }, spec: {} } });
    assert.deepEqual(create(none), ['spec.template.spec.containers: Required value']);
  });

  it('keeps the selector immutable on update', () => {
    const old = deployment();
    create(old);
    const next = deployment({
      selector: { matchLabels: { app: 'web', tier: 'fe' } },
      template: {
        metadata: { labels: { app: 'web', tier: 'fe' } },
        spec: { containers: [{ name: 'nginx', image: 'nginx' }] },
      },
    });
    assert.deepEqual(update(next, old), [
      'spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string{"app":"web", "tier":"fe"}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: field is immutable',
    ]);
    const scaled = structuredClone(old);
    (scaled.spec as Record<string, unknown>).replicas = 5;
    assert.deepEqual(update(scaled, old), []);
  });

  it('validates status counters on the status subresource', () => {
    const old = deployment();
    create(old);
    const next = structuredClone(old);
    next.status = { replicas: 1, readyReplicas: 2, availableReplicas: 3, collisionCount: 1 };
    old.status = { collisionCount: 2 };
    const errors = (deployments.def.status?.validateUpdate?.(next, old) ?? []).map((e) => e.message);
    assert.deepEqual(errors, [
      'status.readyReplicas: Invalid value: 2: cannot be greater than status.replicas',
      'status.availableReplicas: Invalid value: 3: cannot be greater than status.replicas',
      'status.availableReplicas: Invalid value: 3: cannot be greater than readyReplicas',
      'status.collisionCount: Invalid value: 1: cannot be decremented',
    ]);
  });

  it('prints READY, UP-TO-DATE, AVAILABLE and the wide columns', () => {
    const obj = deployment({
      replicas: 3,
      template: {
        metadata: { labels: { app: 'web' } },
        spec: {
          containers: [
            { name: 'nginx', image: 'nginx:1.25' },
            { name: 'sidecar', image: 'busybox' },
          ],
        },
      },
    });
    obj.metadata.creationTimestamp = '2026-01-01T00:00:00Z';
    obj.status = { readyReplicas: 2, updatedReplicas: 3, availableReplicas: 1 };
    const now = Date.parse('2026-01-01T00:05:00Z');
    assert.deepEqual(
      deployments.printer.columns.map((c) => [c.name, c.priority]),
      [
        ['Name', 0],
        ['Ready', 0],
        ['Up-to-date', 0],
        ['Available', 0],
        ['Age', 0],
        ['Containers', 1],
        ['Images', 1],
        ['Selector', 1],
      ],
    );
    assert.deepEqual(deployments.printer.cells(obj, now), [
      'web',
      '2/3',
      3,
      1,
      '5m',
      'nginx,sidecar',
      'nginx:1.25,busybox',
      'app=web',
    ]);
  });
});
