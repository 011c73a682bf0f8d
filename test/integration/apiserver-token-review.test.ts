import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { decodeJwt } from 'jose';
import { type ControlPlane, startControlPlane } from '../../src/index.js';
import { apiRequest } from '../../src/testing/api-client.js';
import assert from '../../src/testing/assert.js';
import { type ReviewObject, startReviewWebhook, type TestReviewWebhook } from '../../src/testing/review-servers.js';

const ISSUER = 'https://kubernetes.default.svc.cluster.local';

function review(cp: ControlPlane, spec: Record<string, unknown>) {
  return apiRequest(cp, 'POST', '/apis/authentication.k8s.io/v1/tokenreviews', {
    body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec },
  });
}

function whoami(cp: ControlPlane, token: string) {
  return apiRequest(cp, 'POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', {
    anonymous: true,
    headers: { authorization: `Bearer ${token}` },
    body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' },
  });
}

/** The token webhook: one good token, one the service refuses with a reason, nothing else. */
function answerTokens(r: ReviewObject) {
  if (r.spec.token === 'hook-good') {
    return {
      authenticated: true,
      user: { username: 'hook-user', uid: 'h-1', groups: ['hook-team'], extra: { 'scopes.example.com': ['read'] } },
    };
  }
  if (r.spec.token === 'hook-revoked') return { authenticated: false, error: 'token revoked' };
  return { authenticated: false };
}

describe('TokenReview, webhook token authentication and TokenRequest limits', () => {
  let cp: ControlPlane;
  let webhook: TestReviewWebhook;
  let dir: string;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'token-review-'));
    const tokenFile = join(dir, 'tokens.csv');
    writeFileSync(tokenFile, 'static-secret,jane,jane-uid,"dev,ops"\n');
    webhook = await startReviewWebhook(answerTokens);
    cp = await startControlPlane({
      authentication: {
        tokenAuthFile: tokenFile,
        tokenWebhook: { configFile: webhook.kubeconfigFile, version: 'v1' },
        serviceAccountMaxTokenExpirationSeconds: 7200,
      },
    });
    await apiRequest(cp, 'POST', '/api/v1/namespaces/default/serviceaccounts', {
      body: { metadata: { name: 'robot' } },
    });
  });
  after(async () => {
    await cp?.stop();
    await webhook?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const saToken = async (spec: Record<string, unknown> = {}) => {
    const res = await apiRequest(cp, 'POST', '/api/v1/namespaces/default/serviceaccounts/robot/token', {
      body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec },
    });
    assert.equal(res.status, 201, res.text);
    return res;
  };

  it('lists tokenreviews and selfsubjectreviews in authentication.k8s.io/v1 discovery', async () => {
    const res = await apiRequest(cp, 'GET', '/apis/authentication.k8s.io/v1');
    const names = res.body.resources.map((r: { name: string }) => r.name);
    assert.ok(names.includes('tokenreviews'), names.join(','));
    assert.ok(names.includes('selfsubjectreviews'), names.join(','));
    const tr = res.body.resources.find((r: { name: string }) => r.name === 'tokenreviews');
    assert.deepEqual(tr.verbs, ['create']);
  });

  it('answers a ServiceAccount token with its user, groups, extra and audiences', async () => {
    const token = (await saToken()).body.status.token;
    const sa = (await apiRequest(cp, 'GET', '/api/v1/namespaces/default/serviceaccounts/robot')).body;
    const res = await review(cp, { token });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.kind, 'TokenReview');
    assert.equal(res.body.status.authenticated, true);
    assert.deepEqual(res.body.status.audiences, [ISSUER]);
    const user = res.body.status.user;
    assert.equal(user.username, 'system:serviceaccount:default:robot');
    assert.equal(user.uid, sa.metadata.uid);
    assert.deepEqual(user.groups, ['system:serviceaccounts', 'system:serviceaccounts:default', 'system:authenticated']);
    assert.deepEqual(user.extra, { 'authentication.kubernetes.io/credential-id': [`JTI=${decodeJwt(token).jti}`] });
  });

  it('refuses a ServiceAccount token for audiences it was not issued for', async () => {
    const token = (await saToken()).body.status.token;
    const res = await review(cp, { token, audiences: ['vault'] });
    assert.equal(res.status, 201);
    assert.deepEqual(res.body.status, {
      user: {},
      error: `token audiences ${JSON.stringify([ISSUER])} is invalid for the target audiences ["vault"]`,
    });
    const forVault = (await saToken({ audiences: ['vault'] })).body.status.token;
    const ok = await review(cp, { token: forVault, audiences: ['vault', 'other'] });
    assert.equal(ok.body.status.authenticated, true);
    assert.deepEqual(ok.body.status.audiences, ['vault']);
  });

  it('lists audiences as Go %q prints them when a token is for none of those asked for', async () => {
    const token = (await saToken({ audiences: ['foo', 'bar'] })).body.status.token;
    const res = await review(cp, { token, audiences: ['x', 'y'] });
    assert.deepEqual(res.body.status, {
      user: {},
      error: 'token audiences ["foo" "bar"] is invalid for the target audiences ["x" "y"]',
    });
  });

  it("says why a ServiceAccount token no longer counts, in upstream's words", async () => {
    const ns = '/api/v1/namespaces/default';
    const tokenOf = async (sa: string, spec: Record<string, unknown> = {}) => {
      const res = await apiRequest(cp, 'POST', `${ns}/serviceaccounts/${sa}/token`, { body: { spec } });
      assert.equal(res.status, 201, res.text);
      return res.body.status.token as string;
    };
    const errorOf = async (token: string) => (await review(cp, { token })).body.status.error;
    const create = async (resource: string, body: Record<string, unknown>) => {
      const res = await apiRequest(cp, 'POST', `${ns}/${resource}`, { body });
      assert.equal(res.status, 201, res.text);
      return res.body.metadata.uid as string;
    };
    const remove = (resource: string, name: string) =>
      apiRequest(cp, 'DELETE', `${ns}/${resource}/${name}?gracePeriodSeconds=0`);
    // The ServiceAccount deleted, and deleted then made again.
    await create('serviceaccounts', { metadata: { name: 'doomed' } });
    const gone = await tokenOf('doomed');
    await remove('serviceaccounts', 'doomed');
    assert.equal(await errorOf(gone), 'serviceaccounts "doomed" not found');
    const firstUid = await create('serviceaccounts', { metadata: { name: 'phoenix' } });
    const old = await tokenOf('phoenix');
    await remove('serviceaccounts', 'phoenix');
    const secondUid = await create('serviceaccounts', { metadata: { name: 'phoenix' } });
    assert.equal(await errorOf(old), `service account UID (${secondUid}) does not match claim (${firstUid})`);
    // The pod a token is bound to, deleted, and deleted then made again.
    const pod = {
      metadata: { name: 'bound' },
      spec: { serviceAccountName: 'robot', containers: [{ name: 'c', image: 'x' }] },
    };
    const podUid = await create('pods', pod);
    const toPod = { boundObjectRef: { apiVersion: 'v1', kind: 'Pod', name: 'bound' } };
    const boundToPod = await tokenOf('robot', toPod);
    await remove('pods', 'bound');
    assert.equal(await errorOf(boundToPod), 'service account token has been invalidated');
    const newPodUid = await create('pods', pod);
    assert.equal(
      await errorOf(boundToPod),
      `pod UID (${newPodUid}) does not match service account pod ref claim (${podUid})`,
    );
    // The secret a token is bound to, deleted.
    await create('secrets', { metadata: { name: 'anchor' } });
    const boundToSecret = await tokenOf('robot', {
      boundObjectRef: { apiVersion: 'v1', kind: 'Secret', name: 'anchor' },
    });
    await remove('secrets', 'anchor');
    assert.equal(await errorOf(boundToSecret), 'service account token has been invalidated');
  });

  it('answers a static token (good for the API audiences only) and a garbage one', async () => {
    const jane = await review(cp, { token: 'static-secret' });
    assert.equal(jane.body.status.authenticated, true);
    assert.deepEqual(jane.body.status.user, {
      username: 'jane',
      uid: 'jane-uid',
      groups: ['dev', 'ops', 'system:authenticated'],
    });
    assert.deepEqual(jane.body.status.audiences, [ISSUER]);
    const elsewhere = await review(cp, { token: 'static-secret', audiences: ['vault'] });
    assert.deepEqual(elsewhere.body.status, { user: {}, error: 'invalid bearer token' });
    const garbage = await review(cp, { token: 'garbage' });
    assert.deepEqual(garbage.body.status, { user: {}, error: 'invalid bearer token' });
  });

  it('reads the token as the Authorization header it would be in: a word after it is ignored', async () => {
    const jane = await review(cp, { token: 'static-secret and more' });
    assert.equal(jane.body.status.authenticated, true);
    assert.equal(jane.body.status.user.username, 'jane');
  });

  it('answers a token the header cannot carry (blank, or after a space) as the anonymous user', async () => {
    for (const token of [' static-secret', '   ']) {
      const res = await review(cp, { token });
      assert.equal(res.status, 201, res.text);
      assert.deepEqual(res.body.status, {
        authenticated: true,
        user: { username: 'system:anonymous', groups: ['system:unauthenticated'] },
        audiences: [ISSUER],
      });
    }
  });

  it('answers a webhook user with system:authenticated added', async () => {
    const res = await review(cp, { token: 'hook-good' });
    assert.deepEqual(res.body.status, {
      authenticated: true,
      user: {
        username: 'hook-user',
        uid: 'h-1',
        groups: ['hook-team', 'system:authenticated'],
        extra: { 'scopes.example.com': ['read'] },
      },
      audiences: [ISSUER],
    });
  });

  it('refuses a review without a token with upstream BadRequest, and verbs other than create', async () => {
    const res = await review(cp, {});
    assert.equal(res.status, 400);
    assert.equal(res.body.reason, 'BadRequest');
    assert.equal(res.body.message, 'token is required for TokenReview in authentication');
    const get = await apiRequest(cp, 'GET', '/apis/authentication.k8s.io/v1/tokenreviews');
    assert.equal(get.status, 405);
  });

  it('authenticates a webhook token with the user, uid, groups and extra the service answered', async () => {
    const res = await whoami(cp, 'hook-good');
    assert.equal(res.status, 201, res.text);
    assert.deepEqual(res.body.status.userInfo, {
      username: 'hook-user',
      uid: 'h-1',
      groups: ['hook-team', 'system:authenticated'],
      extra: { 'scopes.example.com': ['read'] },
    });
    const sent = webhook.received.find((r) => r.spec.token === 'hook-good');
    assert.equal(sent.apiVersion, 'authentication.k8s.io/v1');
    assert.equal(sent.kind, 'TokenReview');
    assert.deepEqual(sent.spec.audiences, [ISSUER]);
  });

  it('caches webhook answers (--authentication-token-webhook-cache-ttl, 2m by default)', async () => {
    const count = () => webhook.received.filter((r) => r.spec.token === 'hook-cached').length;
    webhook.answer((r) =>
      r.spec.token === 'hook-cached' ? { authenticated: true, user: { username: 'cached' } } : answerTokens(r),
    );
    assert.equal((await whoami(cp, 'hook-cached')).status, 201);
    assert.equal((await whoami(cp, 'hook-cached')).status, 201);
    assert.equal(count(), 1);
    webhook.answer(answerTokens);
  });

  it('answers 401 for tokens the webhook refuses, and says why in a TokenReview', async () => {
    const res = await whoami(cp, 'hook-revoked');
    assert.equal(res.status, 401);
    assert.equal(res.body.message, 'Unauthorized');
    assert.deepEqual((await review(cp, { token: 'hook-revoked' })).body.status, { user: {}, error: 'token revoked' });
    assert.equal((await whoami(cp, 'hook-unknown')).status, 401);
  });

  it('answers 401 when the webhook cannot be reached', async () => {
    const gone = await startReviewWebhook(answerTokens);
    const other = await startControlPlane({ authentication: { tokenWebhook: { configFile: gone.kubeconfigFile } } });
    try {
      await gone.close();
      const res = await whoami(other, 'hook-good');
      assert.equal(res.status, 401);
      const status = (await review(other, { token: 'hook-good' })).body.status;
      assert.equal(status.authenticated, undefined);
      // In Go's words, as client-go's error reaches upstream's TokenReview.
      assert.match(
        status.error,
        /^Post "https:\/\/127\.0\.0\.1:\d+\/review\?timeout=30s": dial tcp 127\.0\.0\.1:\d+: connect: connection refused$/,
      );
    } finally {
      await other.stop();
    }
  });

  it('shortens a TokenRequest past --service-account-max-token-expiration, with upstream warning', async () => {
    const res = await saToken({ expirationSeconds: 86400 });
    assert.equal(res.headers.warning, '299 - "requested expiration of 86400 seconds shortened to 7200 seconds"');
    assert.equal(res.body.spec.expirationSeconds, 7200);
    const claims = decodeJwt(res.body.status.token);
    assert.equal((claims.exp as number) - (claims.iat as number), 7200);
    assert.equal(Date.parse(res.body.status.expirationTimestamp), (claims.iat as number) * 1000 + 7200_000);
  });

  it('gives a pod-bound 3607 s token for the API a year, warning after the hour (--service-account-extend-token-expiration)', async () => {
    const pod = await apiRequest(cp, 'POST', '/api/v1/namespaces/default/pods', {
      body: {
        metadata: { name: 'web' },
        spec: { serviceAccountName: 'robot', containers: [{ name: 'c', image: 'nginx' }] },
      },
    });
    assert.equal(pod.status, 201, pod.text);
    const bound = { boundObjectRef: { apiVersion: 'v1', kind: 'Pod', name: 'web' } };
    const res = await saToken({ expirationSeconds: 3607, ...bound });
    const claims = decodeJwt(res.body.status.token) as Record<string, unknown> & { iat: number; exp: number };
    assert.equal(claims.exp - claims.iat, 365 * 24 * 3600);
    assert.equal((claims['kubernetes.io'] as { warnafter: number }).warnafter, claims.iat + 3607);
    assert.equal(res.body.spec.expirationSeconds, 3607);
    assert.equal(Date.parse(res.body.status.expirationTimestamp), claims.iat * 1000 + 3607_000);
    const plain = decodeJwt((await saToken({ expirationSeconds: 3600, ...bound })).body.status.token);
    assert.equal((plain.exp as number) - (plain.iat as number), 3600, 'only 3607 s is extended');
    const other = decodeJwt(
      (await saToken({ expirationSeconds: 3607, audiences: ['vault'], ...bound })).body.status.token,
    );
    assert.equal((other.exp as number) - (other.iat as number), 3607, 'only tokens for the API are extended');
  });

  it('does not extend with --service-account-extend-token-expiration=false', async () => {
    const plain = await startControlPlane({ authentication: { serviceAccountExtendTokenExpiration: false } });
    try {
      await apiRequest(plain, 'POST', '/api/v1/namespaces/default/serviceaccounts', {
        body: { metadata: { name: 'r' } },
      });
      await apiRequest(plain, 'POST', '/api/v1/namespaces/default/pods', {
        body: { metadata: { name: 'p' }, spec: { serviceAccountName: 'r', containers: [{ name: 'c', image: 'x' }] } },
      });
      const res = await apiRequest(plain, 'POST', '/api/v1/namespaces/default/serviceaccounts/r/token', {
        body: { spec: { expirationSeconds: 3607, boundObjectRef: { apiVersion: 'v1', kind: 'Pod', name: 'p' } } },
      });
      const claims = decodeJwt(res.body.status.token);
      assert.equal((claims.exp as number) - (claims.iat as number), 3607);
    } finally {
      await plain.stop();
    }
  });
});
