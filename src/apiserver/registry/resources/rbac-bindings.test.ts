import { describe, it } from 'node:test';
import assert from '../../../testing/assert.js';
import type { KubeObject } from '../object.js';
import { clusterrolebindings, rolebindings } from './rbac-bindings.js';
import { clusterroles, roles } from './rbac-roles.js';

const messages = (errs: { message: string }[] | undefined) => (errs ?? []).map((e) => e.message);

describe('rbac.authorization.k8s.io/v1', () => {
  it('validates role rules with upstream text', () => {
    const role: KubeObject = {
      metadata: { name: 'r', namespace: 'default' },
      rules: [
        { apiGroups: [''], resources: ['pods'] },
        { verbs: ['get'], nonResourceURLs: ['/healthz'] },
      ],
    };
    assert.deepEqual(messages(roles.def.strategy.validate?.(role)), [
      'rules[0].verbs: Required value: verbs must contain at least one value',
      'rules[1].nonResourceURLs: Invalid value: []string{"/healthz"}: namespaced rules cannot apply to non-resource URLs',
    ]);
    const clusterRole: KubeObject = {
      metadata: { name: 'system:thing' },
      rules: [{ verbs: ['get'], nonResourceURLs: ['/healthz'] }],
    };
    assert.deepEqual(messages(clusterroles.def.strategy.validate?.(clusterRole)), []);
    assert.equal(roles.def.strategy.tracksGeneration, false);
  });

  it('defaults API groups of roleRef and subjects', () => {
    const binding: KubeObject = {
      metadata: { name: 'b', namespace: 'default' },
      roleRef: { kind: 'Role', name: 'r' },
      subjects: [
        { kind: 'User', name: 'alice' },
        { kind: 'ServiceAccount', name: 'default', namespace: 'default' },
      ],
    };
    rolebindings.def.strategy.default?.(binding);
    assert.deepEqual(binding.roleRef, { kind: 'Role', name: 'r', apiGroup: 'rbac.authorization.k8s.io' });
    assert.deepEqual(binding.subjects, [
      { kind: 'User', name: 'alice', apiGroup: 'rbac.authorization.k8s.io' },
      { kind: 'ServiceAccount', name: 'default', namespace: 'default', apiGroup: '' },
    ]);
    assert.deepEqual(rolebindings.def.strategy.validate?.(binding), []);
  });

  it('validates cluster bindings and refuses a roleRef change', () => {
    const binding: KubeObject = {
      metadata: { name: 'b', resourceVersion: '1' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'r' },
      subjects: [
        { kind: 'ServiceAccount', name: 'sa' },
        { kind: 'Robot', name: 'x' },
      ],
    };
    assert.deepEqual(messages(clusterrolebindings.def.strategy.validate?.(binding)), [
      'roleRef.kind: Unsupported value: "Role": supported values: "ClusterRole"',
      'subjects[0].namespace: Required value',
      'subjects[1].kind: Unsupported value: "Robot": supported values: "ServiceAccount", "User", "Group"',
    ]);
    const old: KubeObject = {
      ...structuredClone(binding),
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' },
      subjects: [],
    };
    const next: KubeObject = {
      ...structuredClone(old),
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'edit' },
    };
    assert.deepEqual(messages(clusterrolebindings.def.strategy.validateUpdate?.(next, old)), [
      'roleRef: Invalid value: rbac.RoleRef{APIGroup:"rbac.authorization.k8s.io", Kind:"ClusterRole", Name:"edit"}: cannot change roleRef',
    ]);
  });

  it('prints ROLE and the wide subject columns', () => {
    const binding: KubeObject = {
      metadata: { name: 'b', creationTimestamp: '2026-01-01T00:00:00Z' },
      roleRef: { kind: 'ClusterRole', name: 'view' },
      subjects: [
        { kind: 'User', name: 'alice' },
        { kind: 'User', name: 'bob' },
        { kind: 'Group', name: 'devs' },
        { kind: 'ServiceAccount', name: 'ci', namespace: 'tools' },
      ],
    };
    assert.deepEqual(rolebindings.printer.cells(binding, Date.parse('2026-01-01T00:00:03Z')), [
      'b',
      'ClusterRole/view',
      '3s',
      'alice, bob',
      'devs',
      'tools/ci',
    ]);
    assert.deepEqual(
      roles.printer.columns.map((c) => c.name),
      ['Name', 'Created At'],
    );
  });
});
