import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type ControlPlane, startControlPlane } from '../../src/index.js';
import { apiRequest } from '../../src/testing/api-client.js';
import assert from '../../src/testing/assert.js';
import { type ReviewObject, startReviewWebhook, type TestReviewWebhook } from '../../src/testing/review-servers.js';
import { FakeClock } from '../../src/util/clock.js';

/** jane may read pods; the service forbids deletes outright; for anything else it has no opinion. */
function policy(r: ReviewObject) {
  const ra = r.spec.resourceAttributes;
  if (!ra || r.spec.user !== 'jane') return { allowed: false };
  if (ra.resource === 'pods' && (ra.verb === 'get' || ra.verb === 'list')) return { allowed: true };
  if (ra.verb === 'delete') return { allowed: false, denied: true, reason: 'deletes go through change control' };
  return { allowed: false, reason: 'not mine to say' };
}

function as(cp: ControlPlane, token: string, method: string, path: string, body?: unknown) {
  return apiRequest(cp, method, path, {
    anonymous: true,
    headers: { authorization: `Bearer ${token}` },
    ...(body !== undefined ? { body } : {}),
  });
}

describe('the Webhook authorizer (--authorization-mode=RBAC,Webhook)', () => {
  let cp: ControlPlane;
  let webhook: TestReviewWebhook;
  let dir: string;
  const clock = new FakeClock(Date.now());
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'authz-webhook-'));
    const tokenFile = join(dir, 'tokens.csv');
    writeFileSync(tokenFile, 'jane-token,jane,jane-uid,"dev"\nbob-token,bob,bob-uid\n');
    webhook = await startReviewWebhook(policy);
    cp = await startControlPlane({
      authentication: { tokenAuthFile: tokenFile },
      authorization: {
        modes: ['RBAC', 'Webhook'],
        webhook: { configFile: webhook.kubeconfigFile, version: 'v1', clock },
      },
    });
    // bob may list configmaps through RBAC: RBAC decides before the webhook is asked.
    await apiRequest(cp, 'POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles', {
      body: { metadata: { name: 'cm' }, rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['list'] }] },
    });
    await apiRequest(cp, 'POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings', {
      body: {
        metadata: { name: 'bob-cm' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'cm' },
        subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'bob' }],
      },
    });
  });
  after(async () => {
    await cp?.stop();
    await webhook?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const reviewsOf = (verb: string, resource: string) =>
    webhook.received.filter(
      (r) => r.spec.resourceAttributes?.verb === verb && r.spec.resourceAttributes?.resource === resource,
    );

  it('allows what the service allows, sending upstream SubjectAccessReview v1', async () => {
    const res = await as(cp, 'jane-token', 'GET', '/api/v1/namespaces/default/pods');
    assert.equal(res.status, 200, res.text);
    const [sent] = reviewsOf('list', 'pods');
    assert.deepEqual(sent, {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SubjectAccessReview',
      metadata: { creationTimestamp: null },
      spec: {
        resourceAttributes: { namespace: 'default', verb: 'list', version: 'v1', resource: 'pods' },
        user: 'jane',
        groups: ['dev', 'system:authenticated'],
        uid: 'jane-uid',
      },
      status: { allowed: false },
    });
  });

  it('forbids what the service denies, with its reason in upstream Forbidden text', async () => {
    const res = await as(cp, 'jane-token', 'DELETE', '/api/v1/namespaces/default/pods/web');
    assert.equal(res.status, 403);
    assert.equal(res.body.reason, 'Forbidden');
    assert.equal(
      res.body.message,
      'pods "web" is forbidden: User "jane" cannot delete resource "pods" in API group "" in the namespace "default": deletes go through change control',
    );
  });

  it('forbids when no mode has an opinion, with the reasons given', async () => {
    const res = await as(cp, 'jane-token', 'GET', '/api/v1/namespaces/default/secrets');
    assert.equal(res.status, 403);
    assert.equal(
      res.body.message,
      'secrets is forbidden: User "jane" cannot list resource "secrets" in API group "" in the namespace "default": not mine to say',
    );
  });

  it('never asks the service about what RBAC or system:masters already allowed', async () => {
    assert.equal((await as(cp, 'bob-token', 'GET', '/api/v1/namespaces/default/configmaps')).status, 200);
    assert.equal((await apiRequest(cp, 'GET', '/api/v1/namespaces/default/configmaps')).status, 200);
    assert.equal(reviewsOf('list', 'configmaps').length, 0);
  });

  it('caches allowed answers for 5m and others for 30s', async () => {
    const path = '/api/v1/namespaces/kube-system/pods';
    const count = () =>
      reviewsOf('list', 'pods').filter((r) => r.spec.resourceAttributes.namespace === 'kube-system').length;
    assert.equal((await as(cp, 'jane-token', 'GET', path)).status, 200);
    assert.equal((await as(cp, 'jane-token', 'GET', path)).status, 200);
    assert.equal(count(), 1);
    clock.step(4 * 60_000);
    assert.equal((await as(cp, 'jane-token', 'GET', path)).status, 200);
    assert.equal(count(), 1, 'still cached after 4m');
    clock.step(61_000);
    assert.equal((await as(cp, 'jane-token', 'GET', path)).status, 200);
    assert.equal(count(), 2, 'asked again after 5m');

    const denied = () =>
      reviewsOf('list', 'secrets').filter((r) => r.spec.resourceAttributes.namespace === 'kube-system');
    const secrets = '/api/v1/namespaces/kube-system/secrets';
    assert.equal((await as(cp, 'jane-token', 'GET', secrets)).status, 403);
    assert.equal((await as(cp, 'jane-token', 'GET', secrets)).status, 403);
    assert.equal(denied().length, 1);
    clock.step(31_000);
    assert.equal((await as(cp, 'jane-token', 'GET', secrets)).status, 403);
    assert.equal(denied().length, 2, 'asked again after 30s');
  });

  it('answers SelfSubjectAccessReview from the webhook, and SelfSubjectRulesReview as incomplete', async () => {
    const ssar = await as(cp, 'jane-token', 'POST', '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', {
      spec: { resourceAttributes: { namespace: 'default', verb: 'delete', resource: 'pods' } },
    });
    assert.equal(ssar.status, 201, ssar.text);
    assert.deepEqual(ssar.body.status, { allowed: false, denied: true, reason: 'deletes go through change control' });
    const rules = await as(cp, 'jane-token', 'POST', '/apis/authorization.k8s.io/v1/selfsubjectrulesreviews', {
      spec: { namespace: 'default' },
    });
    assert.equal(rules.body.status.incomplete, true);
    assert.match(rules.body.status.evaluationError, /webhook authorizer does not support user rule resolution/);
  });

  it('answers 500 when the service cannot be reached and nothing else allows the request', async () => {
    const gone = await startReviewWebhook(policy);
    const other = await startControlPlane({
      authentication: { tokenAuthFile: join(dir, 'tokens.csv') },
      authorization: { modes: ['RBAC', 'Webhook'], webhook: { configFile: gone.kubeconfigFile } },
    });
    try {
      await gone.close();
      const res = await as(other, 'jane-token', 'GET', '/api/v1/namespaces/default/pods?limit=500&x=1');
      // Plain text, as upstream's authorization filter answers (responsewriters.InternalError), with the webhook's
      // failure in Go's words and its client's ?timeout=.
      assert.equal(res.status, 500, res.text);
      assert.match(String(res.headers['content-type']), /^text\/plain/);
      const port = new URL(gone.url).port;
      assert.equal(
        res.text,
        `Internal Server Error: "/api/v1/namespaces/default/pods?limit=500&amp;x=1": Post "https://127.0.0.1:${port}/review?timeout=30s": dial tcp 127.0.0.1:${port}: connect: connection refused\n`,
      );
      assert.equal(
        (await apiRequest(other, 'GET', '/api/v1/namespaces/default/pods')).status,
        200,
        'admin still works',
      );
    } finally {
      await other.stop();
    }
  });

  it('sends v1beta1 reviews (groups as `group`) with --authorization-webhook-version=v1beta1', async () => {
    const beta = await startReviewWebhook(policy);
    const other = await startControlPlane({
      authentication: { tokenAuthFile: join(dir, 'tokens.csv') },
      authorization: { modes: ['Webhook'], webhook: { configFile: beta.kubeconfigFile } },
    });
    try {
      assert.equal((await as(other, 'jane-token', 'GET', '/api/v1/namespaces/default/pods')).status, 200);
      const sent = beta.received.find((r) => r.spec.resourceAttributes?.resource === 'pods');
      assert.equal(sent.apiVersion, 'authorization.k8s.io/v1beta1');
      assert.deepEqual(sent.spec.group, ['dev', 'system:authenticated']);
    } finally {
      await other.stop();
      await beta.close();
    }
  });
});
