/**
 * RBAC escalation prevention (upstream's pkg/registry/rbac/{role,clusterrole,rolebinding,clusterrolebinding}/
 * policybased and escalation_check.go), impersonation by a user RBAC allows to impersonate, and the bootstrap policy
 * reconciled again when an apiserver restarts on the same data.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type ControlPlane, startControlPlane } from '../../src/index.js';
import { type ApiResponse, apiRequest } from '../../src/testing/api-client.js';
import assert from '../../src/testing/assert.js';
import { eventually } from '../../src/testing/controllers.js';
import {
  adminOk as admin,
  requestAs as as,
  type Identity,
  mintIdentity,
  writeIdentityKubeconfig,
} from '../../src/testing/identity-request.js';
import { kubectlFor } from '../../src/testing/kubectl.js';

const RBAC = '/apis/rbac.authorization.k8s.io/v1';
const rbacGroup = 'rbac.authorization.k8s.io';
const SSR = '/apis/authentication.k8s.io/v1/selfsubjectreviews';
const selfSubjectReview = { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' };

/** Upstream's ConfirmNoEscalation refusal, for a user in system:authenticated only, with its missing rules. */
function notHeld(resource: string, name: string, user: string, ...missing: string[]): string {
  return `${resource}.rbac.authorization.k8s.io "${name}" is forbidden: user "${user}" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n${missing.join('\n')}`;
}

/** Binds a ClusterRole with the rules to the user, cluster-wide. */
async function grantCluster(cp: ControlPlane, name: string, user: string, rules: unknown[]): Promise<void> {
  await admin(cp, 'POST', `${RBAC}/clusterroles`, { metadata: { name }, rules });
  await admin(cp, 'POST', `${RBAC}/clusterrolebindings`, {
    metadata: { name },
    roleRef: { apiGroup: rbacGroup, kind: 'ClusterRole', name },
    subjects: [{ kind: 'User', name: user }],
  });
}

/** Binds a Role with the rules to the user in the namespace. */
async function grantIn(cp: ControlPlane, ns: string, name: string, user: string, rules: unknown[]): Promise<void> {
  await admin(cp, 'POST', `${RBAC}/namespaces/${ns}/roles`, { metadata: { name }, rules });
  await admin(cp, 'POST', `${RBAC}/namespaces/${ns}/rolebindings`, {
    metadata: { name },
    roleRef: { apiGroup: rbacGroup, kind: 'Role', name },
    subjects: [{ kind: 'User', name: user }],
  });
}

/** Waits until the apiserver's RBAC answers that the user may do it (grants reach the authorizer through a watch). */
async function untilAllowed(cp: ControlPlane, user: string, attrs: Record<string, string>): Promise<void> {
  await eventually(async () => {
    const res = await admin(cp, 'POST', '/apis/authorization.k8s.io/v1/subjectaccessreviews', {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SubjectAccessReview',
      spec: { user, groups: ['system:authenticated'], resourceAttributes: attrs },
    });
    assert.equal(res.body.status.allowed, true, `${user} ${JSON.stringify(attrs)}`);
  });
}

function assertForbidden(res: ApiResponse, message: string): void {
  assert.equal(res.status, 403, res.text);
  assert.equal(res.body.reason, 'Forbidden');
  assert.equal(res.body.message, message);
}

describe('RBAC escalation prevention and impersonation (--authorization-mode=RBAC)', () => {
  let cp: ControlPlane;
  const ids: Record<string, Identity> = {};

  before(async () => {
    cp = await startControlPlane({ authorization: { modes: ['RBAC'] } });
    for (const name of ['rita', 'carl', 'bea', 'agnes', 'ada', 'jane']) ids[name] = await mintIdentity(cp, name);
    for (const ns of ['esc', 'other']) await admin(cp, 'POST', '/api/v1/namespaces', { metadata: { name: ns } });
  });
  after(async () => {
    await cp?.stop();
  });

  it('refuses a Role with permissions the user lacks; escalate on roles allows it, by name only on update', async () => {
    const rita = ids.rita as Identity;
    await grantIn(cp, 'esc', 'role-writer', 'rita', [
      { apiGroups: [rbacGroup], resources: ['roles'], verbs: ['create', 'get', 'update'] },
    ]);
    const secretReader = {
      metadata: { name: 'secret-reader' },
      rules: [{ apiGroups: [''], resources: ['secrets'], verbs: ['get', 'list'] }],
    };
    const missingSecrets = '{APIGroups:[""], Resources:["secrets"], Verbs:["get" "list"]}';
    await untilAllowed(cp, 'rita', { verb: 'create', group: rbacGroup, resource: 'roles', namespace: 'esc' });
    assertForbidden(
      await as(cp, rita, 'POST', `${RBAC}/namespaces/esc/roles`, secretReader),
      notHeld('roles', 'secret-reader', 'rita', missingSecrets),
    );
    // A role with only what she holds (the bootstrap policy's basic-user rules) is fine.
    const own = await as(cp, rita, 'POST', `${RBAC}/namespaces/esc/roles`, {
      metadata: { name: 'self-review' },
      rules: [{ apiGroups: ['authorization.k8s.io'], resources: ['selfsubjectaccessreviews'], verbs: ['create'] }],
    });
    assert.equal(own.status, 201, own.text);

    // escalate restricted to one name: upstream asks about the request's name, which a create does not have.
    await admin(cp, 'POST', `${RBAC}/namespaces/esc/roles`, { metadata: { name: 'secret-reader' }, rules: [] });
    await grantIn(cp, 'esc', 'escalate-secret-reader', 'rita', [
      { apiGroups: [rbacGroup], resources: ['roles'], resourceNames: ['secret-reader'], verbs: ['escalate'] },
    ]);
    await untilAllowed(cp, 'rita', {
      verb: 'escalate',
      group: rbacGroup,
      resource: 'roles',
      namespace: 'esc',
      name: 'secret-reader',
    });
    const current = (await as(cp, rita, 'GET', `${RBAC}/namespaces/esc/roles/secret-reader`)).body;
    const updated = await as(cp, rita, 'PUT', `${RBAC}/namespaces/esc/roles/secret-reader`, {
      ...current,
      rules: secretReader.rules,
    });
    assert.equal(updated.status, 200, updated.text);
    assert.deepEqual(updated.body.rules, secretReader.rules);
    assertForbidden(
      await as(cp, rita, 'POST', `${RBAC}/namespaces/esc/roles`, { ...secretReader, metadata: { name: 'copy' } }),
      notHeld('roles', 'copy', 'rita', missingSecrets),
    );

    // escalate on roles (any name) in the namespace: she may create it; not in another namespace.
    await grantIn(cp, 'esc', 'escalate-roles', 'rita', [
      { apiGroups: [rbacGroup], resources: ['roles'], verbs: ['escalate'] },
    ]);
    await eventually(async () => {
      const res = await as(cp, rita, 'POST', `${RBAC}/namespaces/esc/roles`, {
        ...secretReader,
        metadata: { name: 'copy' },
      });
      assert.equal(res.status, 201, res.text);
    });
    // She still cannot use the permissions she granted: escalate is not get.
    const secrets = await as(cp, rita, 'GET', '/api/v1/namespaces/esc/secrets');
    assertForbidden(
      secrets,
      'secrets is forbidden: User "rita" cannot list resource "secrets" in API group "" in the namespace "esc"',
    );
  });

  it('refuses a ClusterRole with permissions the user lacks; escalate on clusterroles allows it', async () => {
    const carl = ids.carl as Identity;
    await grantCluster(cp, 'clusterrole-writer', 'carl', [
      { apiGroups: [rbacGroup], resources: ['clusterroles'], verbs: ['create', 'get', 'update'] },
    ]);
    const wide = {
      metadata: { name: 'node-and-ns-admin' },
      rules: [
        { apiGroups: [''], resources: ['nodes', 'namespaces'], verbs: ['delete', 'patch'] },
        { nonResourceURLs: ['/metrics'], verbs: ['get'] },
      ],
    };
    await untilAllowed(cp, 'carl', { verb: 'create', group: rbacGroup, resource: 'clusterroles' });
    // The missing rules compacted per resource, sorted, each in upstream's compact form.
    assertForbidden(
      await as(cp, carl, 'POST', `${RBAC}/clusterroles`, wide),
      notHeld(
        'clusterroles',
        'node-and-ns-admin',
        'carl',
        '{APIGroups:[""], Resources:["namespaces"], Verbs:["delete" "patch"]}',
        '{APIGroups:[""], Resources:["nodes"], Verbs:["delete" "patch"]}',
        '{NonResourceURLs:["/metrics"], Verbs:["get"]}',
      ),
    );
    // escalate on roles does not help with clusterroles.
    await grantCluster(cp, 'escalate-roles-only', 'carl', [
      { apiGroups: [rbacGroup], resources: ['roles'], verbs: ['escalate'] },
    ]);
    await untilAllowed(cp, 'carl', { verb: 'escalate', group: rbacGroup, resource: 'roles', namespace: 'esc' });
    assert.equal((await as(cp, carl, 'POST', `${RBAC}/clusterroles`, wide)).status, 403);
    await grantCluster(cp, 'escalate-clusterroles', 'carl', [
      { apiGroups: [rbacGroup], resources: ['clusterroles'], verbs: ['escalate'] },
    ]);
    await eventually(async () => {
      const res = await as(cp, carl, 'POST', `${RBAC}/clusterroles`, wide);
      assert.equal(res.status, 201, res.text);
    });
  });

  it('refuses bindings of roles the user lacks; bind on that role name allows them, bind on another does not', async () => {
    const bea = ids.bea as Identity;
    await grantCluster(cp, 'binding-writer', 'bea', [
      { apiGroups: [rbacGroup], resources: ['rolebindings', 'clusterrolebindings'], verbs: ['create', 'get'] },
    ]);
    await admin(cp, 'POST', `${RBAC}/clusterroles`, {
      metadata: { name: 'secret-watcher' },
      rules: [{ apiGroups: [''], resources: ['secrets'], verbs: ['get', 'list', 'watch'] }],
    });
    await admin(cp, 'POST', `${RBAC}/namespaces/esc/roles`, {
      metadata: { name: 'pod-exec' },
      rules: [{ apiGroups: [''], resources: ['pods/exec'], verbs: ['create'] }],
    });
    const crb = (name: string, role: string) => ({
      metadata: { name },
      roleRef: { apiGroup: rbacGroup, kind: 'ClusterRole', name: role },
      subjects: [{ kind: 'User', name: 'bea' }],
    });
    const rb = (name: string, kind: string, role: string) => ({
      ...crb(name, role),
      roleRef: { ...crb(name, role).roleRef, kind },
    });
    const missingSecrets = '{APIGroups:[""], Resources:["secrets"], Verbs:["get" "list" "watch"]}';
    await untilAllowed(cp, 'bea', { verb: 'create', group: rbacGroup, resource: 'clusterrolebindings' });
    assertForbidden(
      await as(cp, bea, 'POST', `${RBAC}/clusterrolebindings`, crb('bea-secrets', 'secret-watcher')),
      notHeld('clusterrolebindings', 'bea-secrets', 'bea', missingSecrets),
    );
    assertForbidden(
      await as(
        cp,
        bea,
        'POST',
        `${RBAC}/namespaces/esc/rolebindings`,
        rb('bea-secrets', 'ClusterRole', 'secret-watcher'),
      ),
      notHeld('rolebindings', 'bea-secrets', 'bea', missingSecrets),
    );
    assertForbidden(
      await as(cp, bea, 'POST', `${RBAC}/namespaces/esc/rolebindings`, rb('bea-exec', 'Role', 'pod-exec')),
      notHeld('rolebindings', 'bea-exec', 'bea', '{APIGroups:[""], Resources:["pods/exec"], Verbs:["create"]}'),
    );
    // A role that does not exist: upstream reads it through the clusterroles storage, whose NotFound names it.
    const missing = await as(cp, bea, 'POST', `${RBAC}/clusterrolebindings`, crb('bea-nothing', 'no-such-role'));
    assert.equal(missing.status, 404, missing.text);
    assert.equal(missing.body.message, 'clusterroles.rbac.authorization.k8s.io "no-such-role" not found');

    // bind on another role's name does not help.
    await grantCluster(cp, 'bind-other', 'bea', [
      { apiGroups: [rbacGroup], resources: ['clusterroles'], resourceNames: ['view'], verbs: ['bind'] },
    ]);
    await untilAllowed(cp, 'bea', { verb: 'bind', group: rbacGroup, resource: 'clusterroles', name: 'view' });
    assert.equal(
      (await as(cp, bea, 'POST', `${RBAC}/clusterrolebindings`, crb('bea-secrets', 'secret-watcher'))).status,
      403,
    );

    // bind on secret-watcher granted in namespace esc: RoleBindings there, not elsewhere nor cluster-wide.
    await grantIn(cp, 'esc', 'bind-secret-watcher', 'bea', [
      { apiGroups: [rbacGroup], resources: ['clusterroles'], resourceNames: ['secret-watcher'], verbs: ['bind'] },
      { apiGroups: [rbacGroup], resources: ['roles'], resourceNames: ['pod-exec'], verbs: ['bind'] },
    ]);
    await eventually(async () => {
      const res = await as(
        cp,
        bea,
        'POST',
        `${RBAC}/namespaces/esc/rolebindings`,
        rb('bea-secrets', 'ClusterRole', 'secret-watcher'),
      );
      assert.equal(res.status, 201, res.text);
    });
    const exec = await as(cp, bea, 'POST', `${RBAC}/namespaces/esc/rolebindings`, rb('bea-exec', 'Role', 'pod-exec'));
    assert.equal(exec.status, 201, exec.text);
    assertForbidden(
      await as(
        cp,
        bea,
        'POST',
        `${RBAC}/namespaces/other/rolebindings`,
        rb('bea-secrets', 'ClusterRole', 'secret-watcher'),
      ),
      notHeld('rolebindings', 'bea-secrets', 'bea', missingSecrets),
    );
    assert.equal(
      (await as(cp, bea, 'POST', `${RBAC}/clusterrolebindings`, crb('bea-secrets', 'secret-watcher'))).status,
      403,
    );

    // Granted cluster-wide, it binds in a ClusterRoleBinding too.
    await grantCluster(cp, 'bind-secret-watcher', 'bea', [
      { apiGroups: [rbacGroup], resources: ['clusterroles'], resourceNames: ['secret-watcher'], verbs: ['bind'] },
    ]);
    await eventually(async () => {
      const res = await as(cp, bea, 'POST', `${RBAC}/clusterrolebindings`, crb('bea-secrets', 'secret-watcher'));
      assert.equal(res.status, 201, res.text);
    });
  });

  it('needs full authority (or escalate) to set or drop a ClusterRole aggregationRule', async () => {
    const agnes = ids.agnes as Identity;
    const ada = ids.ada as Identity;
    const writer = [{ apiGroups: [rbacGroup], resources: ['clusterroles'], verbs: ['create', 'get', 'update'] }];
    await grantCluster(cp, 'aggregator-writer', 'agnes', writer);
    const aggregated = (name: string) => ({
      metadata: { name },
      aggregationRule: { clusterRoleSelectors: [{ matchLabels: { 'example.com/aggregate-to-agg': 'true' } }] },
      rules: [],
    });
    const mustBeAdmin = (name: string) =>
      `clusterroles.rbac.authorization.k8s.io "${name}" is forbidden: must have cluster-admin privileges to use the aggregationRule`;
    await untilAllowed(cp, 'agnes', { verb: 'create', group: rbacGroup, resource: 'clusterroles' });
    assertForbidden(await as(cp, agnes, 'POST', `${RBAC}/clusterroles`, aggregated('agg')), mustBeAdmin('agg'));
    // No selectors is no aggregation: the check passes and validation answers.
    const empty = await as(cp, agnes, 'POST', `${RBAC}/clusterroles`, {
      ...aggregated('agg-empty'),
      aggregationRule: { clusterRoleSelectors: [] },
    });
    assert.equal(empty.status, 422, empty.text);
    assert.match(empty.body.message, /at least one clusterRoleSelector required if aggregationRule is non-nil/);

    // Dropping an existing aggregationRule is checked against the old object.
    const created = (await admin(cp, 'POST', `${RBAC}/clusterroles`, aggregated('agg'))).body;
    const { aggregationRule: _dropped, ...plain } = created;
    assertForbidden(
      await as(cp, agnes, 'PUT', `${RBAC}/clusterroles/agg`, { ...plain, rules: [] }),
      mustBeAdmin('agg'),
    );

    // A user bound to cluster-admin (not system:masters) holds full authority.
    await admin(cp, 'POST', `${RBAC}/clusterrolebindings`, {
      metadata: { name: 'ada-admin' },
      roleRef: { apiGroup: rbacGroup, kind: 'ClusterRole', name: 'cluster-admin' },
      subjects: [{ kind: 'User', name: 'ada' }],
    });
    await eventually(async () => {
      const res = await as(cp, ada, 'POST', `${RBAC}/clusterroles`, aggregated('agg-by-admin'));
      assert.equal(res.status, 201, res.text);
    });
    // escalate on clusterroles skips the checks, the aggregationRule's included (as the aggregation controller's).
    await grantCluster(cp, 'aggregator-escalate', 'agnes', [
      { apiGroups: [rbacGroup], resources: ['clusterroles'], verbs: ['escalate'] },
    ]);
    await eventually(async () => {
      const res = await as(cp, agnes, 'POST', `${RBAC}/clusterroles`, aggregated('agg-escalated'));
      assert.equal(res.status, 201, res.text);
    });
  });

  it('lets a user impersonate only what RBAC grants it, with upstream messages', async () => {
    const jane = ids.jane as Identity;
    const review = (headers: Record<string, string | string[]>) =>
      as(cp, jane, 'POST', SSR, selfSubjectReview, headers);
    const usersForbidden = (name: string) =>
      `users "${name}" is forbidden: User "jane" cannot impersonate resource "users" in API group "" at the cluster scope`;
    const before = await review({ 'Impersonate-User': 'bob' });
    assertForbidden(before, usersForbidden('bob'));
    assert.deepEqual(before.body.details, { name: 'bob', kind: 'users' });

    await grantCluster(cp, 'impersonator', 'jane', [
      { apiGroups: [''], resources: ['users'], resourceNames: ['bob'], verbs: ['impersonate'] },
      { apiGroups: [''], resources: ['groups'], verbs: ['impersonate'] },
      { apiGroups: ['authentication.k8s.io'], resources: ['uids'], verbs: ['impersonate'] },
      { apiGroups: ['authentication.k8s.io'], resources: ['userextras/scopes'], verbs: ['impersonate'] },
    ]);
    await grantIn(cp, 'esc', 'sa-impersonator', 'jane', [
      { apiGroups: [''], resources: ['serviceaccounts'], verbs: ['impersonate'] },
    ]);
    const asBob = await eventually(async () => {
      const res = await review({ 'Impersonate-User': 'bob' });
      assert.equal(res.status, 201, res.text);
      return res;
    });
    assert.deepEqual(asBob.body.status.userInfo, { username: 'bob', groups: ['system:authenticated'] });
    const full = await review({
      'Impersonate-User': 'bob',
      'Impersonate-Group': ['devs', 'qa'],
      'Impersonate-Uid': 'uid-1234',
      'Impersonate-Extra-Scopes': ['view', 'edit'],
    });
    assert.equal(full.status, 201, full.text);
    assert.deepEqual(full.body.status.userInfo, {
      username: 'bob',
      uid: 'uid-1234',
      groups: ['devs', 'qa', 'system:authenticated'],
      extra: { scopes: ['view', 'edit'] },
    });
    // The request runs as bob, with bob's permissions.
    assertForbidden(
      await as(cp, jane, 'GET', '/api/v1/namespaces/esc/pods', undefined, { 'Impersonate-User': 'bob' }),
      'pods is forbidden: User "bob" cannot list resource "pods" in API group "" in the namespace "esc"',
    );

    // resourceNames restrict users; an extra key not granted is refused by its key (the subresource).
    assertForbidden(await review({ 'Impersonate-User': 'alice' }), usersForbidden('alice'));
    assertForbidden(
      await review({ 'Impersonate-User': 'bob', 'Impersonate-Extra-Reason': 'audit' }),
      'userextras.authentication.k8s.io "audit" is forbidden: User "jane" cannot impersonate resource "userextras/reason" in API group "authentication.k8s.io" at the cluster scope',
    );

    // A ServiceAccount needs impersonate on serviceaccounts in its namespace, and gets its groups.
    const sa = await review({ 'Impersonate-User': 'system:serviceaccount:esc:builder' });
    assert.equal(sa.status, 201, sa.text);
    assert.deepEqual(sa.body.status.userInfo, {
      username: 'system:serviceaccount:esc:builder',
      groups: ['system:serviceaccounts', 'system:serviceaccounts:esc', 'system:authenticated'],
    });
    const otherSa = await review({ 'Impersonate-User': 'system:serviceaccount:other:builder' });
    assertForbidden(
      otherSa,
      'serviceaccounts "builder" is forbidden: User "jane" cannot impersonate resource "serviceaccounts" in API group "" in the namespace "other"',
    );

    // A user without any impersonate permission, for groups, uids and extras alike.
    const carl = ids.carl as Identity;
    assertForbidden(
      await as(cp, carl, 'POST', SSR, selfSubjectReview, { 'Impersonate-User': 'carl', 'Impersonate-Uid': 'u' }),
      'users "carl" is forbidden: User "carl" cannot impersonate resource "users" in API group "" at the cluster scope',
    );
  });

  it('runs `kubectl --as=bob auth whoami` for the user allowed to impersonate bob', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'wheelhouse-whoami-'));
    try {
      const kubeconfig = await writeIdentityKubeconfig(cp, ids.jane as Identity, join(dir, 'jane.kubeconfig'), 'jane');
      const { kubectl } = kubectlFor({ kubeconfig, workDir: dir });
      await eventually(async () => {
        const me = JSON.parse(await kubectl('auth', 'whoami', '-o', 'json'));
        assert.equal(me.status.userInfo.username, 'jane');
      });
      const table = await kubectl('--as=bob', 'auth', 'whoami');
      assert.match(table, /^ATTRIBUTE\s+VALUE\nUsername\s+bob\nGroups\s+\[system:authenticated\]\n$/);
      const json = JSON.parse(
        await kubectl('--as=bob', '--as-group=devs', '--as-uid=uid-9', 'auth', 'whoami', '-o', 'json'),
      );
      assert.deepEqual(json.status.userInfo, {
        username: 'bob',
        uid: 'uid-9',
        groups: ['devs', 'system:authenticated'],
      });
      const stderrOf = (...args: string[]) =>
        kubectl(...args).then(
          (out) => assert.fail(`kubectl ${args.join(' ')} succeeded: ${out}`),
          (err: { stderr?: string }) => (err.stderr ?? '').trim(),
        );
      // kubectl auth whoami words a 403 of its SelfSubjectReview itself (and discovery hides a 403's text as "unknown");
      // a raw GET shows the server's.
      assert.equal(
        await stderrOf('--as=alice', 'auth', 'whoami'),
        'error: the selfsubjectreviews API is not enabled in the cluster or you do not have permission to call it',
      );
      assert.equal(
        await stderrOf('--as=alice', 'get', '--raw', '/api/v1/namespaces/esc/pods'),
        'Error from server (Forbidden): users "alice" is forbidden: User "jane" cannot impersonate resource "users" in API group "" at the cluster scope',
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('bootstrap RBAC policy reconciled when the apiserver restarts on the same data', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'wheelhouse-rbac-restart-'));
  let cp: ControlPlane | undefined;
  after(async () => {
    await cp?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('puts back removed rules, deleted bindings and removed subjects, but not on autoupdate "false"', async () => {
    const start = () => startControlPlane({ storage: 'sqlite', dataDir, authorization: { modes: ['RBAC'] } });
    cp = await start();
    const jane = await mintIdentity(cp, 'jane');
    const get = async (c: ControlPlane, path: string) => (await admin(c, 'GET', `${RBAC}/${path}`)).body;
    assert.equal((await as(cp, jane, 'GET', '/apis')).status, 200);

    // system:basic-user loses its authorization.k8s.io rule and gains one of the user's own.
    const basic = await get(cp, 'clusterroles/system:basic-user');
    const kept = { apiGroups: ['authentication.k8s.io'], resources: ['selfsubjectreviews'], verbs: ['create'] };
    const added = { apiGroups: [''], resources: ['configmaps'], verbs: ['get'] };
    assert.deepEqual(basic.rules, [
      {
        apiGroups: ['authorization.k8s.io'],
        resources: ['selfsubjectaccessreviews', 'selfsubjectrulesreviews'],
        verbs: ['create'],
      },
      kept,
    ]);
    await admin(cp, 'PUT', `${RBAC}/clusterroles/system:basic-user`, { ...basic, rules: [kept, added] });
    // system:discovery's binding goes; system:public-info-viewer's loses the unauthenticated group.
    await admin(cp, 'DELETE', `${RBAC}/clusterrolebindings/system:discovery`);
    const viewer = await get(cp, 'clusterrolebindings/system:public-info-viewer');
    await admin(cp, 'PUT', `${RBAC}/clusterrolebindings/system:public-info-viewer`, {
      ...viewer,
      subjects: [{ apiGroup: rbacGroup, kind: 'Group', name: 'system:authenticated' }],
    });
    // Opted out of reconciliation: a ClusterRole that loses a URL, a ClusterRoleBinding that loses its subject.
    const issuer = await get(cp, 'clusterroles/system:service-account-issuer-discovery');
    const protectedMeta = (m: { annotations?: Record<string, string> }) => ({
      ...m,
      annotations: { ...m.annotations, 'rbac.authorization.kubernetes.io/autoupdate': 'false' },
    });
    const issuerRules = [{ nonResourceURLs: ['/openid/v1/jwks'], verbs: ['get'] }];
    await admin(cp, 'PUT', `${RBAC}/clusterroles/system:service-account-issuer-discovery`, {
      ...issuer,
      metadata: protectedMeta(issuer.metadata),
      rules: issuerRules,
    });
    const monitoring = await get(cp, 'clusterrolebindings/system:monitoring');
    const { subjects: _gone, ...noSubjects } = monitoring;
    await admin(cp, 'PUT', `${RBAC}/clusterrolebindings/system:monitoring`, {
      ...noSubjects,
      metadata: protectedMeta(monitoring.metadata),
    });
    await eventually(async () => {
      assertForbidden(
        await as(cp as ControlPlane, jane, 'GET', '/apis'),
        'forbidden: User "jane" cannot get path "/apis"',
      );
      assert.equal((await apiRequest(cp as ControlPlane, 'GET', '/version', { anonymous: true })).status, 403);
    });
    await cp.stop();
    cp = undefined;

    cp = await start();
    // Missing rules come back as upstream's Covers reports them: one group, resource and verb a rule, appended.
    assert.deepEqual((await get(cp, 'clusterroles/system:basic-user')).rules, [
      kept,
      added,
      { apiGroups: ['authorization.k8s.io'], resources: ['selfsubjectaccessreviews'], verbs: ['create'] },
      { apiGroups: ['authorization.k8s.io'], resources: ['selfsubjectrulesreviews'], verbs: ['create'] },
    ]);
    const discovery = await get(cp, 'clusterrolebindings/system:discovery');
    assert.deepEqual(discovery.roleRef, { apiGroup: rbacGroup, kind: 'ClusterRole', name: 'system:discovery' });
    assert.deepEqual(discovery.subjects, [{ apiGroup: rbacGroup, kind: 'Group', name: 'system:authenticated' }]);
    assert.deepEqual(discovery.metadata.labels, { 'kubernetes.io/bootstrapping': 'rbac-defaults' });
    assert.deepEqual(discovery.metadata.annotations, { 'rbac.authorization.kubernetes.io/autoupdate': 'true' });
    assert.deepEqual((await get(cp, 'clusterrolebindings/system:public-info-viewer')).subjects, [
      { apiGroup: rbacGroup, kind: 'Group', name: 'system:authenticated' },
      { apiGroup: rbacGroup, kind: 'Group', name: 'system:unauthenticated' },
    ]);
    const issuerAfter = await get(cp, 'clusterroles/system:service-account-issuer-discovery');
    assert.deepEqual(issuerAfter.rules, issuerRules);
    assert.equal(issuerAfter.metadata.annotations['rbac.authorization.kubernetes.io/autoupdate'], 'false');
    assert.equal((await get(cp, 'clusterrolebindings/system:monitoring')).subjects, undefined);
    // jane is back in system:discovery.
    await eventually(async () => {
      assert.equal((await as(cp as ControlPlane, jane, 'GET', '/apis')).status, 200);
    });
    const anonymousVersion = await apiRequest(cp, 'GET', '/version', { anonymous: true });
    assert.equal(anonymousVersion.status, 200, anonymousVersion.text);
  });
});
