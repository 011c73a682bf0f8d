import { after, before, describe, it } from 'node:test';
import { type ControlPlane, startControlPlane } from '../../src/index.js';
import { apiRequest } from '../../src/testing/api-client.js';
import assert from '../../src/testing/assert.js';
import { eventually } from '../../src/testing/controllers.js';
import { adminOk as admin, requestAs as as, type Identity, mintIdentity } from '../../src/testing/identity-request.js';

const RBAC = '/apis/rbac.authorization.k8s.io/v1';
const rbacGroup = 'rbac.authorization.k8s.io';

/** Asks the apiserver, as a SubjectAccessReview, whether user (with groups) may do it. */
async function sar(
  cp: ControlPlane,
  user: string,
  groups: string[],
  attrs: Record<string, string>,
): Promise<{ allowed: boolean; reason?: string }> {
  const spec: Record<string, unknown> = { user, groups };
  if (attrs.path) spec.nonResourceAttributes = { path: attrs.path, verb: attrs.verb };
  else spec.resourceAttributes = attrs;
  const res = await admin(cp, 'POST', '/apis/authorization.k8s.io/v1/subjectaccessreviews', {
    apiVersion: 'authorization.k8s.io/v1',
    kind: 'SubjectAccessReview',
    spec,
  });
  assert.equal(res.status, 201);
  return res.body.status;
}

describe('RBAC authorization (--authorization-mode=RBAC)', () => {
  let cp: ControlPlane;
  let jane: Identity;
  let builder: Identity;

  before(async () => {
    cp = await startControlPlane({ authorization: { modes: ['RBAC'] } });
    jane = await mintIdentity(cp, 'jane');
    builder = await mintIdentity(cp, 'system:serviceaccount:dev:builder', [
      'system:serviceaccounts',
      'system:serviceaccounts:dev',
    ]);
    await admin(cp, 'POST', '/api/v1/namespaces', { metadata: { name: 'dev' } });
    await admin(cp, 'POST', `${RBAC}/namespaces/dev/roles`, {
      metadata: { name: 'pod-reader' },
      rules: [{ apiGroups: [''], resources: ['pods', 'pods/log'], verbs: ['get', 'list', 'watch'] }],
    });
    await admin(cp, 'POST', `${RBAC}/namespaces/dev/rolebindings`, {
      metadata: { name: 'jane-reads-pods' },
      roleRef: { apiGroup: rbacGroup, kind: 'Role', name: 'pod-reader' },
      subjects: [
        { kind: 'User', name: 'jane' },
        // No namespace: the binding's own.
        { kind: 'ServiceAccount', name: 'builder' },
      ],
    });
    await admin(cp, 'POST', `${RBAC}/clusterroles`, {
      metadata: { name: 'ns-and-config' },
      rules: [
        { apiGroups: [''], resources: ['namespaces'], verbs: ['list'] },
        { apiGroups: [''], resources: ['configmaps'], resourceNames: ['app-config'], verbs: ['get'] },
      ],
    });
    await admin(cp, 'POST', `${RBAC}/clusterrolebindings`, {
      metadata: { name: 'devs-ns-and-config' },
      roleRef: { apiGroup: rbacGroup, kind: 'ClusterRole', name: 'ns-and-config' },
      subjects: [{ kind: 'Group', name: 'devs' }],
    });
    await admin(cp, 'POST', `${RBAC}/clusterroles`, {
      metadata: { name: 'scaler' },
      rules: [
        { apiGroups: ['*'], resources: ['*/scale'], verbs: ['get'] },
        { apiGroups: ['apps'], resources: ['deployments/scale'], verbs: ['update'] },
      ],
    });
    await admin(cp, 'POST', `${RBAC}/clusterrolebindings`, {
      metadata: { name: 'scaler' },
      roleRef: { apiGroup: rbacGroup, kind: 'ClusterRole', name: 'scaler' },
      subjects: [{ kind: 'User', name: 'sam' }],
    });
  });
  after(async () => {
    await cp?.stop();
  });

  it("lists system:masters' rules once: from RBAC's cluster-admin binding, not also from the group's own allowance", async () => {
    const res = await admin(cp, 'POST', '/apis/authorization.k8s.io/v1/selfsubjectrulesreviews', {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SelfSubjectRulesReview',
      spec: { namespace: 'default' },
    });
    assert.equal(res.status, 201, res.text);
    const { resourceRules, nonResourceRules } = res.body.status as {
      resourceRules: { resources?: string[]; verbs: string[] }[];
      nonResourceRules: { nonResourceURLs: string[]; verbs: string[] }[];
    };
    const all = (r: { verbs: string[] }, names?: string[]) => r.verbs.join() === '*' && names?.join() === '*';
    assert.equal(resourceRules.filter((r) => all(r, r.resources)).length, 1, JSON.stringify(resourceRules));
    assert.equal(nonResourceRules.filter((r) => all(r, r.nonResourceURLs)).length, 1, JSON.stringify(nonResourceRules));
  });

  it('answers a users × verbs × resources × namespaces matrix as upstream RBAC', async () => {
    const A = 'system:authenticated';
    const rows: [string, string[], Record<string, string>, boolean][] = [
      ['jane', [A], { verb: 'list', group: '', resource: 'pods', namespace: 'dev' }, true],
      ['jane', [A], { verb: 'get', group: '', resource: 'pods', namespace: 'dev', name: 'p' }, true],
      ['jane', [A], { verb: 'list', group: '', resource: 'pods', namespace: 'default' }, false],
      ['jane', [A], { verb: 'list', group: '', resource: 'pods', namespace: '' }, false],
      ['jane', [A], { verb: 'delete', group: '', resource: 'pods', namespace: 'dev', name: 'p' }, false],
      [
        'jane',
        [A],
        { verb: 'get', group: '', resource: 'pods', subresource: 'log', namespace: 'dev', name: 'p' },
        true,
      ],
      [
        'jane',
        [A],
        { verb: 'create', group: '', resource: 'pods', subresource: 'exec', namespace: 'dev', name: 'p' },
        false,
      ],
      ['jane', [A], { verb: 'list', group: 'apps', resource: 'pods', namespace: 'dev' }, false],
      ['bob', [A, 'devs'], { verb: 'list', group: '', resource: 'namespaces' }, true],
      [
        'bob',
        [A, 'devs'],
        { verb: 'get', group: '', resource: 'configmaps', namespace: 'x', name: 'app-config' },
        true,
      ],
      ['bob', [A, 'devs'], { verb: 'get', group: '', resource: 'configmaps', namespace: 'x', name: 'other' }, false],
      ['bob', [A, 'devs'], { verb: 'list', group: '', resource: 'configmaps', namespace: 'x' }, false],
      ['carol', [A], { verb: 'list', group: '', resource: 'namespaces' }, false],
      ['system:serviceaccount:dev:builder', [A], { verb: 'list', group: '', resource: 'pods', namespace: 'dev' }, true],
      [
        'system:serviceaccount:dev:builder',
        [A],
        { verb: 'list', group: '', resource: 'pods', namespace: 'default' },
        false,
      ],
      [
        'system:serviceaccount:other:builder',
        [A],
        { verb: 'list', group: '', resource: 'pods', namespace: 'dev' },
        false,
      ],
      [
        'sam',
        [A],
        { verb: 'get', group: 'apps', resource: 'deployments', subresource: 'scale', namespace: 'a', name: 'd' },
        true,
      ],
      [
        'sam',
        [A],
        { verb: 'get', group: 'apps', resource: 'statefulsets', subresource: 'scale', namespace: 'a', name: 's' },
        true,
      ],
      [
        'sam',
        [A],
        { verb: 'update', group: 'apps', resource: 'deployments', subresource: 'scale', namespace: 'a', name: 'd' },
        true,
      ],
      [
        'sam',
        [A],
        { verb: 'update', group: 'apps', resource: 'statefulsets', subresource: 'scale', namespace: 'a', name: 's' },
        false,
      ],
      ['sam', [A], { verb: 'get', group: 'apps', resource: 'deployments', namespace: 'a', name: 'd' }, false],
      [
        'root',
        ['system:masters'],
        { verb: 'delete', group: 'apps', resource: 'deployments', namespace: 'a', name: 'd' },
        true,
      ],
      // The bootstrap policy: system:basic-user, system:discovery, system:public-info-viewer.
      ['jane', [A], { verb: 'create', group: 'authorization.k8s.io', resource: 'selfsubjectaccessreviews' }, true],
      ['jane', [A], { verb: 'get', path: '/healthz' }, true],
      ['jane', [A], { verb: 'get', path: '/apis/apps/v1' }, true],
      ['jane', [A], { verb: 'get', path: '/metrics' }, false],
      ['system:anonymous', ['system:unauthenticated'], { verb: 'get', path: '/version' }, true],
      ['system:anonymous', ['system:unauthenticated'], { verb: 'get', path: '/api' }, false],
      ['monitor', ['system:monitoring'], { verb: 'get', path: '/metrics' }, true],
    ];
    for (const [user, groups, attrs, expected] of rows) {
      const status = await sar(cp, user, groups, attrs);
      assert.equal(status.allowed, expected, `${user} ${JSON.stringify(attrs)}: ${JSON.stringify(status)}`);
    }
    const why = await sar(cp, 'jane', [A], { verb: 'list', group: '', resource: 'pods', namespace: 'dev' });
    assert.equal(why.reason, 'RBAC: allowed by RoleBinding "jane-reads-pods/dev" of Role "pod-reader" to User "jane"');
    // Both kinds of attributes: refused, the non-resource ones printed as Go prints the internal struct.
    const both = await apiRequest(cp, 'POST', '/apis/authorization.k8s.io/v1/subjectaccessreviews', {
      body: {
        apiVersion: 'authorization.k8s.io/v1',
        kind: 'SubjectAccessReview',
        spec: {
          user: 'a',
          resourceAttributes: { verb: 'get', resource: 'pods' },
          nonResourceAttributes: { path: '/x', verb: 'get' },
        },
      },
    });
    assert.equal(both.status, 422, both.text);
    assert.match(
      both.body.message,
      /spec.nonResourceAttributes: Invalid value: authorization.NonResourceAttributes\{Path:"\/x", Verb:"get"\}: cannot be specified in combination with resourceAttributes/,
    );
  });

  it('forbids jane with upstream message, then allows her once bound', async () => {
    const denied = await as(cp, jane, 'GET', '/api/v1/namespaces/default/pods');
    assert.equal(denied.status, 403);
    assert.equal(
      denied.body.message,
      'pods is forbidden: User "jane" cannot list resource "pods" in API group "" in the namespace "default"',
    );
    assert.equal((await as(cp, jane, 'GET', '/api/v1/namespaces/dev/pods')).status, 200);
    assert.equal((await as(cp, builder, 'GET', '/api/v1/namespaces/dev/pods')).status, 200);
    await admin(cp, 'POST', `${RBAC}/namespaces/default/rolebindings`, {
      metadata: { name: 'jane-view' },
      roleRef: { apiGroup: rbacGroup, kind: 'Role', name: 'pod-reader' },
      subjects: [{ kind: 'User', name: 'jane' }],
    });
    // The Role is in dev, not default: the binding names a missing Role, and the reason says so.
    const missing = await as(cp, jane, 'GET', '/api/v1/namespaces/default/pods');
    await eventually(async () => {
      const res = await as(cp, jane, 'GET', '/api/v1/namespaces/default/pods');
      assert.match(
        res.body.message,
        /: RBAC: role.rbac.authorization.k8s.io "pod-reader" not found$/,
        'missing role named',
      );
    });
    assert.equal(missing.status, 403);
    await admin(cp, 'POST', `${RBAC}/namespaces/default/roles`, {
      metadata: { name: 'pod-reader' },
      rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['list'] }],
    });
    await eventually(async () => {
      assert.equal((await as(cp, jane, 'GET', '/api/v1/namespaces/default/pods')).status, 200, 'jane lists pods');
    });
  });

  it('accepts a rule naming resourceNames for several resources, as upstream, and grants each named object', async () => {
    // kubectl create role pod-logs --verb=get --resource=pods,pods/log --resource-name=p1: upstream's rule
    // validation has no check tying resourceNames to a single resource.
    const made = await admin(cp, 'POST', `${RBAC}/namespaces/dev/roles`, {
      metadata: { name: 'pod-logs' },
      rules: [{ apiGroups: [''], resources: ['pods', 'pods/log'], resourceNames: ['p1'], verbs: ['get'] }],
    });
    assert.equal(made.status, 201, made.text);
    await admin(cp, 'POST', `${RBAC}/namespaces/dev/rolebindings`, {
      metadata: { name: 'dora-pod-logs' },
      roleRef: { apiGroup: rbacGroup, kind: 'Role', name: 'pod-logs' },
      subjects: [{ kind: 'User', name: 'dora' }],
    });
    const attrs = (resource: string, subresource: string, name: string) => ({
      namespace: 'dev',
      verb: 'get',
      resource,
      subresource,
      name,
    });
    await eventually(async () => assert.equal((await sar(cp, 'dora', [], attrs('pods', '', 'p1'))).allowed, true));
    assert.equal((await sar(cp, 'dora', [], attrs('pods', 'log', 'p1'))).allowed, true);
    assert.equal((await sar(cp, 'dora', [], attrs('pods', 'log', 'p2'))).allowed, false);
    assert.equal((await sar(cp, 'dora', [], attrs('pods', 'exec', 'p1'))).allowed, false);
  });

  it('lets a resourceNames rule list and watch its object by a metadata.name field selector, as upstream', async () => {
    const carl = await mintIdentity(cp, 'carl');
    await admin(cp, 'POST', `${RBAC}/namespaces/dev/roles`, {
      metadata: { name: 'one-secret' },
      rules: [{ apiGroups: [''], resources: ['secrets'], resourceNames: ['s1'], verbs: ['get', 'list', 'watch'] }],
    });
    await admin(cp, 'POST', `${RBAC}/namespaces/dev/rolebindings`, {
      metadata: { name: 'carl-one-secret' },
      roleRef: { apiGroup: rbacGroup, kind: 'Role', name: 'one-secret' },
      subjects: [{ kind: 'User', name: 'carl' }],
    });
    for (const name of ['s1', 's2']) await admin(cp, 'POST', '/api/v1/namespaces/dev/secrets', { metadata: { name } });
    const secrets = '/api/v1/namespaces/dev/secrets';
    const watchedNames = (text: string) =>
      text
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line))
        .map((e: { type: string; object: { metadata: { name: string } } }) => `${e.type} ${e.object.metadata.name}`);
    // The request names s1 through its field selector, so the rule for s1 allows the list (kubectl get secrets
    // --field-selector metadata.name=s1) and the watch (kubectl get secret s1 -w).
    await eventually(async () => {
      const listed = await as(cp, carl, 'GET', `${secrets}?fieldSelector=metadata.name%3Ds1`);
      assert.equal(listed.status, 200, listed.text);
      assert.deepEqual(
        listed.body.items.map((i: { metadata: { name: string } }) => i.metadata.name),
        ['s1'],
      );
    });
    const watched = await as(
      cp,
      carl,
      'GET',
      `${secrets}?fieldSelector=metadata.name%3D%3Ds1&watch=1&timeoutSeconds=1`,
    );
    assert.equal(watched.status, 200, watched.text);
    assert.deepEqual(watchedNames(watched.text), ['ADDED s1']);
    // Another name, no name, or a selector that is not an exact name are the whole collection's verbs, refused.
    const refused = [
      `${secrets}?fieldSelector=metadata.name%3Ds2`,
      secrets,
      `${secrets}?fieldSelector=metadata.name!%3Ds2`,
      `${secrets}?fieldSelector=metadata.name%3Ds2&watch=true&timeoutSeconds=1`,
    ];
    for (const path of refused) assert.equal((await as(cp, carl, 'GET', path)).status, 403, path);
    // The old /watch/ path names the object in its path: it is authorized by that name and watches only it.
    const old = await as(cp, carl, 'GET', `/api/v1/watch/namespaces/dev/secrets/s1?timeoutSeconds=1`);
    assert.equal(old.status, 200, old.text);
    assert.deepEqual(watchedNames(old.text), ['ADDED s1']);
    // A field selector that requires another name than the path's is refused, as upstream's list handler does.
    const mismatch = await apiRequest(
      cp,
      'GET',
      '/api/v1/watch/namespaces/dev/secrets/s1?fieldSelector=metadata.name%3Ds2&timeoutSeconds=1',
    );
    assert.equal(mismatch.status, 400);
    assert.equal(mismatch.body.message, "fieldSelector metadata.name doesn't match requested name");
  });

  it('answers SelfSubjectAccessReview and SelfSubjectRulesReview for the caller', async () => {
    const ssar = await as(cp, jane, 'POST', '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SelfSubjectAccessReview',
      spec: { resourceAttributes: { verb: 'watch', resource: 'pods', namespace: 'dev' } },
    });
    assert.equal(ssar.status, 201);
    assert.equal(ssar.body.status.allowed, true);
    const rules = await as(cp, jane, 'POST', '/apis/authorization.k8s.io/v1/selfsubjectrulesreviews', {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SelfSubjectRulesReview',
      spec: { namespace: 'dev' },
    });
    assert.equal(rules.status, 201);
    assert.equal(rules.body.status.incomplete, false);
    assert.ok(
      rules.body.status.resourceRules.some(
        (r: { resources: string[]; verbs: string[] }) => r.resources.includes('pods/log') && r.verbs.includes('list'),
      ),
      JSON.stringify(rules.body.status),
    );
    const local = await apiRequest(
      cp,
      'POST',
      '/apis/authorization.k8s.io/v1/namespaces/dev/localsubjectaccessreviews',
      {
        body: {
          apiVersion: 'authorization.k8s.io/v1',
          kind: 'LocalSubjectAccessReview',
          metadata: { namespace: 'dev' },
          spec: { user: 'jane', resourceAttributes: { verb: 'get', resource: 'pods', namespace: 'dev' } },
        },
      },
    );
    assert.equal(local.status, 201, local.text);
    assert.equal(local.body.status.allowed, true);
    const invalid = await apiRequest(cp, 'POST', '/apis/authorization.k8s.io/v1/subjectaccessreviews', {
      body: { apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', spec: { user: 'jane' } },
    });
    assert.equal(invalid.status, 422);
    const discovery = await apiRequest(cp, 'GET', '/apis/authorization.k8s.io/v1');
    assert.deepEqual(discovery.body.resources.map((r: { name: string }) => r.name).sort(), [
      'localsubjectaccessreviews',
      'selfsubjectaccessreviews',
      'selfsubjectrulesreviews',
      'subjectaccessreviews',
    ]);
  });

  it('refuses escalation through roles and bindings, with upstream text', async () => {
    await admin(cp, 'POST', `${RBAC}/namespaces/dev/roles`, {
      metadata: { name: 'role-maker' },
      rules: [{ apiGroups: [rbacGroup], resources: ['roles', 'rolebindings'], verbs: ['create', 'update', 'get'] }],
    });
    await admin(cp, 'POST', `${RBAC}/namespaces/dev/rolebindings`, {
      metadata: { name: 'jane-makes-roles' },
      roleRef: { apiGroup: rbacGroup, kind: 'Role', name: 'role-maker' },
      subjects: [{ kind: 'User', name: 'jane' }],
    });
    const wide = {
      metadata: { name: 'pod-killer' },
      rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'delete'] }],
    };
    await eventually(async () => {
      const res = await as(cp, jane, 'POST', `${RBAC}/namespaces/dev/roles`, wide);
      assert.equal(res.status, 403, `role escalation refused: ${res.text}`);
      assert.equal(
        res.body.message,
        'roles.rbac.authorization.k8s.io "pod-killer" is forbidden: user "jane" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n{APIGroups:[""], Resources:["pods"], Verbs:["delete"]}',
      );
    });
    const narrow = {
      metadata: { name: 'pod-getter' },
      rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }],
    };
    assert.equal((await as(cp, jane, 'POST', `${RBAC}/namespaces/dev/roles`, narrow)).status, 201);
    const bindAdmin = {
      metadata: { name: 'jane-admin' },
      roleRef: { apiGroup: rbacGroup, kind: 'ClusterRole', name: 'cluster-admin' },
      subjects: [{ kind: 'User', name: 'jane' }],
    };
    const refused = await as(cp, jane, 'POST', `${RBAC}/namespaces/dev/rolebindings`, bindAdmin);
    assert.equal(refused.status, 403);
    assert.match(
      refused.body.message,
      /^rolebindings.rbac.authorization.k8s.io "jane-admin" is forbidden: user "jane" \(groups=\["system:authenticated"\]\) is attempting to grant RBAC permissions not currently held:\n/,
    );
    // The bind verb on that role lets her bind it.
    await admin(cp, 'POST', `${RBAC}/namespaces/dev/roles`, {
      metadata: { name: 'binder' },
      rules: [
        { apiGroups: [rbacGroup], resources: ['clusterroles'], resourceNames: ['cluster-admin'], verbs: ['bind'] },
      ],
    });
    await admin(cp, 'POST', `${RBAC}/namespaces/dev/rolebindings`, {
      metadata: { name: 'jane-binds' },
      roleRef: { apiGroup: rbacGroup, kind: 'Role', name: 'binder' },
      subjects: [{ kind: 'User', name: 'jane' }],
    });
    await eventually(async () => {
      const res = await as(cp, jane, 'POST', `${RBAC}/namespaces/dev/rolebindings`, bindAdmin);
      assert.equal(res.status, 201, `bind allowed: ${res.text}`);
    });
    // roleRef cannot change.
    const current = await admin(cp, 'GET', `${RBAC}/namespaces/dev/rolebindings/jane-reads-pods`);
    const changed = await apiRequest(cp, 'PUT', `${RBAC}/namespaces/dev/rolebindings/jane-reads-pods`, {
      body: { ...current.body, roleRef: { apiGroup: rbacGroup, kind: 'Role', name: 'role-maker' } },
    });
    assert.equal(changed.status, 422);
    assert.match(changed.body.message, /roleRef: Invalid value: .*: cannot change roleRef$/);
  });

  it('has the bootstrap policy of v1.33 after start', async () => {
    const get = async (path: string) => (await admin(cp, 'GET', `${RBAC}/${path}`)).body;
    const proxier = await get('clusterroles/system:node-proxier');
    assert.deepEqual(proxier.metadata.labels, { 'kubernetes.io/bootstrapping': 'rbac-defaults' });
    assert.deepEqual(proxier.metadata.annotations, { 'rbac.authorization.kubernetes.io/autoupdate': 'true' });
    assert.deepEqual(proxier.rules, [
      { apiGroups: [''], resources: ['endpoints', 'services'], verbs: ['list', 'watch'] },
      { apiGroups: [''], resources: ['nodes'], verbs: ['get', 'list', 'watch'] },
      { apiGroups: ['', 'events.k8s.io'], resources: ['events'], verbs: ['create', 'patch', 'update'] },
      { apiGroups: ['discovery.k8s.io'], resources: ['endpointslices'], verbs: ['list', 'watch'] },
    ]);
    assert.deepEqual((await get('clusterroles/cluster-admin')).rules, [
      { apiGroups: ['*'], resources: ['*'], verbs: ['*'] },
      { nonResourceURLs: ['*'], verbs: ['*'] },
    ]);
    assert.deepEqual((await get('clusterroles/edit')).aggregationRule, {
      clusterRoleSelectors: [{ matchLabels: { 'rbac.authorization.k8s.io/aggregate-to-edit': 'true' } }],
    });
    assert.deepEqual((await get('clusterroles/system:controller:clusterrole-aggregation-controller')).rules, [
      {
        apiGroups: [rbacGroup],
        resources: ['clusterroles'],
        verbs: ['escalate', 'get', 'list', 'patch', 'update', 'watch'],
      },
    ]);
    assert.deepEqual((await get('clusterrolebindings/system:public-info-viewer')).subjects, [
      { apiGroup: rbacGroup, kind: 'Group', name: 'system:authenticated' },
      { apiGroup: rbacGroup, kind: 'Group', name: 'system:unauthenticated' },
    ]);
    const [jobSubject] = (await get('clusterrolebindings/system:controller:job-controller')).subjects;
    assert.deepEqual(
      [jobSubject.kind, jobSubject.name, jobSubject.namespace],
      ['ServiceAccount', 'job-controller', 'kube-system'],
    );
    assert.deepEqual((await get('namespaces/kube-system/roles/system::leader-locking-kube-scheduler')).rules[0], {
      apiGroups: ['coordination.k8s.io'],
      resources: ['leases'],
      verbs: ['create', 'get', 'list', 'update', 'watch'],
    });
    const bindings = (await get('namespaces/kube-system/rolebindings')).items.map(
      (b: { metadata: { name: string } }) => b.metadata.name,
    );
    assert.ok(bindings.includes('system::extension-apiserver-authentication-reader'), bindings.join());
    const controllers = (await get('clusterroles')).items.filter((r: { metadata: { name: string } }) =>
      r.metadata.name.startsWith('system:controller:'),
    );
    assert.equal(controllers.length, 35);
    // Beside the bootstrap policy, the role metrics-server's manifest adds for the metrics API this server serves.
    const metricsReader = await get('clusterroles/system:aggregated-metrics-reader');
    assert.equal(metricsReader.metadata.labels['rbac.authorization.k8s.io/aggregate-to-view'], 'true');
    assert.deepEqual(metricsReader.rules, [
      { apiGroups: ['metrics.k8s.io'], resources: ['pods', 'nodes'], verbs: ['get', 'list', 'watch'] },
    ]);
  });
});
