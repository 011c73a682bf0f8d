import { describe, it } from 'node:test';
import { MemoryStore } from '../../storage/memory.js';
import assert from '../../testing/assert.js';
import { silentLogger } from '../../util/logger.js';
import { Cacher } from '../cacher/cacher.js';
import { decodeFromStorage } from '../registry/codec.js';
import type { AuthorizationAttributes } from './attributes.js';
import { RBACAuthorizer } from './rbac-authorizer.js';
import { RBACIndex } from './rbac-index.js';

const PREFIXES = {
  roles: '/registry/roles/',
  clusterRoles: '/registry/clusterroles/',
  roleBindings: '/registry/rolebindings/',
  clusterRoleBindings: '/registry/clusterrolebindings/',
} as const;

async function rbacOverStore() {
  const store = new MemoryStore();
  const source = async (prefix: string) => {
    const cacher = new Cacher(store, prefix, decodeFromStorage, silentLogger);
    await cacher.start();
    return { cacher, prefix };
  };
  const index = new RBACIndex({
    roles: await source(PREFIXES.roles),
    clusterRoles: await source(PREFIXES.clusterRoles),
    roleBindings: await source(PREFIXES.roleBindings),
    clusterRoleBindings: await source(PREFIXES.clusterRoleBindings),
  });
  await index.start();
  /** Lets the caches and the index see what the store holds now. */
  const settle = () => new Promise((r) => setImmediate(r));
  return { store, index, settle };
}

const listPods = (user: string, groups: string[], namespace = 'team'): AuthorizationAttributes => ({
  user: { name: user, groups },
  verb: 'list',
  isResourceRequest: true,
  path: `/api/v1/namespaces/${namespace}/pods`,
  apiGroup: '',
  apiVersion: 'v1',
  namespace,
  resource: 'pods',
  subresource: '',
  name: '',
});

const binding = (kind: string, name: string, subjects: Array<{ kind: string; name: string }>, namespace = '') =>
  JSON.stringify({
    metadata: { name, ...(namespace ? { namespace } : {}) },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'pod-reader' },
    subjects: subjects.map((s) => ({
      ...s,
      ...(s.kind === 'ServiceAccount' ? {} : { apiGroup: 'rbac.authorization.k8s.io' }),
    })),
    kind,
  });

describe('RBACIndex', () => {
  it('answers from the bindings as they are now, however often the same user asked before', async () => {
    const { store, index, settle } = await rbacOverStore();
    const rbac = new RBACAuthorizer(index);
    await store.create(
      `${PREFIXES.clusterRoles}pod-reader`,
      JSON.stringify({
        metadata: { name: 'pod-reader' },
        rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['list'] }],
      }),
    );
    await settle();
    const jane = listPods('jane', ['devs', 'system:authenticated']);
    for (let i = 0; i < 3; i++) assert.equal(rbac.authorize(jane).decision, 'no-opinion');

    // A binding of her group, made after she was refused: the next request sees it.
    const made = await store.create(
      `${PREFIXES.roleBindings}team/devs-read`,
      binding('RoleBinding', 'devs-read', [{ kind: 'Group', name: 'devs' }], 'team'),
    );
    await settle();
    assert.deepEqual(rbac.authorize(jane), {
      decision: 'allow',
      reason: 'RBAC: allowed by RoleBinding "devs-read/team" of ClusterRole "pod-reader" to Group "devs"',
    });
    assert.equal(rbac.authorize(listPods('jane', ['devs'], 'other')).decision, 'no-opinion', 'only in its namespace');

    // A cluster-wide binding naming her comes first, as upstream visits ClusterRoleBindings first.
    await store.create(
      `${PREFIXES.clusterRoleBindings}jane-read`,
      binding('ClusterRoleBinding', 'jane-read', [{ kind: 'User', name: 'jane' }]),
    );
    await settle();
    assert.equal(
      rbac.authorize(jane).reason,
      'RBAC: allowed by ClusterRoleBinding "jane-read" of ClusterRole "pod-reader" to User "jane"',
    );

    // Both gone: refused again.
    await store.delete(`${PREFIXES.roleBindings}team/devs-read`, made.revision);
    const crb = await store.get(`${PREFIXES.clusterRoleBindings}jane-read`);
    await store.delete(`${PREFIXES.clusterRoleBindings}jane-read`, crb?.modRevision ?? 0);
    await settle();
    assert.equal(rbac.authorize(jane).decision, 'no-opinion');
    index.stop();
  });
  it('keeps answers per name when a rule names resourceNames, and forgets them when a role changes', async () => {
    const { store, index, settle } = await rbacOverStore();
    const rbac = new RBACAuthorizer(index);
    const role = (rules: unknown[]) => JSON.stringify({ metadata: { name: 'pod-reader' }, rules });
    const made = await store.create(
      `${PREFIXES.clusterRoles}pod-reader`,
      role([{ apiGroups: [''], resources: ['pods'], resourceNames: ['a'], verbs: ['get'] }]),
    );
    await store.create(
      `${PREFIXES.roleBindings}team/jane-read`,
      binding('RoleBinding', 'jane-read', [{ kind: 'User', name: 'jane' }], 'team'),
    );
    await settle();
    const getPod = (user: string, groups: string[], name: string) => ({ ...listPods(user, groups), verb: 'get', name });
    for (let i = 0; i < 2; i++) {
      assert.equal(rbac.authorize(getPod('jane', [], 'a')).decision, 'allow');
      assert.equal(rbac.authorize(getPod('jane', [], 'b')).decision, 'no-opinion');
    }
    // Another user whose name and groups spell the same characters in another split gets an answer of their own.
    assert.equal(rbac.authorize(getPod('jan', ['e'], 'a')).decision, 'no-opinion');

    // The role now allows every pod: the answers kept for the old rules are not given any more.
    await store.update(
      `${PREFIXES.clusterRoles}pod-reader`,
      role([{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }]),
      made.revision,
    );
    await settle();
    assert.equal(rbac.authorize(getPod('jane', [], 'b')).decision, 'allow');
    assert.equal(rbac.authorize(getPod('jane', [], 'c')).decision, 'allow');
    index.stop();
  });
});
