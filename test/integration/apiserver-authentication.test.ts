import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ensurePki, issueClientCertificate } from '../../src/apiserver/bootstrap/pki.js';
import { type ControlPlane, startControlPlane } from '../../src/index.js';
import { apiRequest } from '../../src/testing/api-client.js';
import assert from '../../src/testing/assert.js';
import { certificateExtra } from '../../src/testing/identity-request.js';

const UNAUTHORIZED = {
  kind: 'Status',
  apiVersion: 'v1',
  metadata: {},
  status: 'Failure',
  message: 'Unauthorized',
  reason: 'Unauthorized',
  code: 401,
};

/** A request with a bearer token (or a given client certificate) and no admin certificate. */
function asToken(cp: ControlPlane, method: string, path: string, token: string, body?: unknown) {
  return apiRequest(cp, method, path, {
    anonymous: true,
    headers: { authorization: `Bearer ${token}` },
    ...(body !== undefined ? { body } : {}),
  });
}

const whoamiBody = { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' };

/** A request with the given client certificate (and the cluster's CA to trust the server). */
function withCertificate(
  cp: ControlPlane,
  method: string,
  path: string,
  pair: { certPem: string; keyPem: string },
  body?: unknown,
): Promise<{ status: number; body: { [key: string]: unknown } }> {
  const ca = Buffer.from(cp.kubeconfig.config.clusters[0]?.cluster['certificate-authority-data'] ?? '', 'base64');
  return new Promise((resolve, reject) => {
    const req = request(
      new URL(path, cp.url),
      { method, ca, cert: pair.certPem, key: pair.keyPem, headers: { 'content-type': 'application/json' } },
      (r) => {
        let text = '';
        r.on('data', (c) => {
          text += c;
        });
        r.on('end', () => resolve({ status: r.statusCode ?? 0, body: JSON.parse(text) }));
      },
    );
    req.on('error', reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

describe('apiserver authentication: 401, static tokens, ServiceAccount tokens, impersonation', () => {
  let cp: ControlPlane;
  let dir: string;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'authn-'));
    const tokenFile = join(dir, 'tokens.csv');
    writeFileSync(tokenFile, 'static-secret,jane,jane-uid,"dev,ops"\n');
    // No token cache: these tests revoke tokens and expect the next request to be refused (with kube-apiserver's
    // 10 s cache, the default, a revoked token may work until its entry expires).
    cp = await startControlPlane({ authentication: { tokenAuthFile: tokenFile, tokenSuccessCacheTTLMs: 0 } });
  });
  after(async () => {
    await cp?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers a garbage bearer token 401 with upstream Status', async () => {
    const res = await asToken(cp, 'GET', '/api/v1/namespaces', 'garbage');
    assert.equal(res.status, 401);
    assert.deepEqual(res.body, UNAUTHORIZED);
  });

  it('refuses a client certificate from another CA with 401', async () => {
    const other = await ensurePki(join(dir, 'other-pki'), {});
    const res = await withCertificate(cp, 'GET', '/api/v1/namespaces', other.admin);
    assert.equal(res.status, 401);
    assert.deepEqual(res.body, UNAUTHORIZED);
  });

  it('authenticates a static token user with uid and groups (plus system:authenticated)', async () => {
    const res = await asToken(
      cp,
      'POST',
      '/apis/authentication.k8s.io/v1/selfsubjectreviews',
      'static-secret',
      whoamiBody,
    );
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.kind, 'SelfSubjectReview');
    assert.deepEqual(res.body.status.userInfo, {
      username: 'jane',
      uid: 'jane-uid',
      groups: ['dev', 'ops', 'system:authenticated'],
    });
  });

  it('issues ServiceAccount tokens through TokenRequest that authenticate as the ServiceAccount', async () => {
    await apiRequest(cp, 'POST', '/api/v1/namespaces/default/serviceaccounts', {
      body: { metadata: { name: 'robot' } },
    });
    const tr = await apiRequest(cp, 'POST', '/api/v1/namespaces/default/serviceaccounts/robot/token', {
      body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: {} },
    });
    assert.equal(tr.status, 201, tr.text);
    assert.equal(tr.body.kind, 'TokenRequest');
    assert.deepEqual(tr.body.spec.audiences, ['https://kubernetes.default.svc.cluster.local']);
    assert.equal(tr.body.spec.expirationSeconds, 3600);
    const token: string = tr.body.status.token;
    const claims = JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString());
    assert.equal(claims.iss, 'https://kubernetes.default.svc.cluster.local');
    // Keys sorted, as go-jose writes the merged claims (real tokens start eyJhdWQiOlsi: {"aud":[").
    assert.deepEqual(Object.keys(claims), ['aud', 'exp', 'iat', 'iss', 'jti', 'kubernetes.io', 'nbf', 'sub']);
    assert.deepEqual(Object.keys(claims['kubernetes.io']), ['namespace', 'serviceaccount']);
    assert.match(token.split('.')[1] ?? '', /^eyJhdWQiOlsi/);
    assert.equal(claims.exp - claims.iat, 3600);
    assert.equal(Date.parse(tr.body.status.expirationTimestamp) / 1000, claims.exp);
    const who = await asToken(cp, 'POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', token, whoamiBody);
    assert.equal(who.status, 201, who.text);
    assert.equal(who.body.status.userInfo.username, 'system:serviceaccount:default:robot');
    assert.deepEqual(who.body.status.userInfo.groups, [
      'system:serviceaccounts',
      'system:serviceaccounts:default',
      'system:authenticated',
    ]);
    // Deleting the ServiceAccount revokes its tokens.
    await apiRequest(cp, 'DELETE', '/api/v1/namespaces/default/serviceaccounts/robot');
    const gone = await asToken(cp, 'GET', '/api/v1/namespaces', token);
    assert.equal(gone.status, 401);
  });

  it('validates TokenRequest with upstream messages', async () => {
    await apiRequest(cp, 'POST', '/api/v1/namespaces/default/serviceaccounts', { body: { metadata: { name: 'r2' } } });
    const short = await apiRequest(cp, 'POST', '/api/v1/namespaces/default/serviceaccounts/r2/token', {
      body: { spec: { expirationSeconds: 60 } },
    });
    assert.equal(short.status, 422);
    assert.equal(
      short.body.message,
      'TokenRequest.authentication.k8s.io "" is invalid: spec.expirationSeconds: Invalid value: 60: may not specify a duration less than 10 minutes',
    );
    const missing = await apiRequest(cp, 'POST', '/api/v1/namespaces/default/serviceaccounts/nobody/token', {
      body: { spec: {} },
    });
    assert.equal(missing.status, 404);
    assert.equal(missing.body.message, 'serviceaccounts "nobody" not found');
    const missingAndShort = await apiRequest(cp, 'POST', '/api/v1/namespaces/default/serviceaccounts/nobody/token', {
      body: { spec: { expirationSeconds: 60 } },
    });
    assert.equal(missingAndShort.status, 404, 'the ServiceAccount is looked up before the request is validated');
    const named = await apiRequest(cp, 'POST', '/api/v1/namespaces/default/serviceaccounts/r2/token', {
      body: { metadata: { name: 'r2', namespace: 'default' }, spec: { expirationSeconds: 60 } },
    });
    assert.equal(
      named.body.message,
      'TokenRequest.authentication.k8s.io "" is invalid: spec.expirationSeconds: Invalid value: 60: may not specify a duration less than 10 minutes',
    );
    const badKind = await apiRequest(cp, 'POST', '/api/v1/namespaces/default/serviceaccounts/r2/token', {
      body: { spec: { boundObjectRef: { apiVersion: 'v1', kind: 'ConfigMap', name: 'x' } } },
    });
    assert.equal(badKind.status, 400);
    assert.equal(badKind.body.message, 'cannot bind token to object of type /v1, Kind=ConfigMap');
  });

  it('refuses to bind a token to a pod running as another service account', async () => {
    const ns = '/api/v1/namespaces/default';
    for (const name of ['runner', 'stranger']) {
      await apiRequest(cp, 'POST', `${ns}/serviceaccounts`, { body: { metadata: { name } } });
    }
    const pod = await apiRequest(cp, 'POST', `${ns}/pods`, {
      body: {
        metadata: { name: 'runs-as-runner' },
        spec: { serviceAccountName: 'runner', containers: [{ name: 'c', image: 'busybox' }] },
      },
    });
    assert.equal(pod.status, 201, pod.text);
    const res = await apiRequest(cp, 'POST', `${ns}/serviceaccounts/stranger/token`, {
      body: { spec: { boundObjectRef: { apiVersion: 'v1', kind: 'Pod', name: 'runs-as-runner' } } },
    });
    assert.equal(res.status, 400, res.text);
    assert.equal(res.body.reason, 'BadRequest');
    assert.equal(
      res.body.message,
      'cannot bind token for serviceaccount "stranger" to pod running with different serviceaccount name.',
    );
  });

  it('refuses a TokenRequest whose metadata names another service account or namespace', async () => {
    await apiRequest(cp, 'POST', '/api/v1/namespaces/default/serviceaccounts', { body: { metadata: { name: 'r4' } } });
    const token = (metadata: Record<string, string>) =>
      apiRequest(cp, 'POST', '/api/v1/namespaces/default/serviceaccounts/r4/token', { body: { metadata, spec: {} } });
    const otherName = await token({ name: 'other' });
    assert.equal(otherName.status, 422, otherName.text);
    assert.deepEqual(otherName.body, {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message:
        'TokenRequest.authentication.k8s.io "r4" is invalid: metadata.name: Invalid value: "other": must match the service account name if specified',
      reason: 'Invalid',
      details: {
        name: 'r4',
        group: 'authentication.k8s.io',
        kind: 'TokenRequest',
        causes: [
          {
            reason: 'FieldValueInvalid',
            message: 'Invalid value: "other": must match the service account name if specified',
            field: 'metadata.name',
          },
        ],
      },
      code: 422,
    });
    // The create handler refuses another namespace before the TokenRequest is looked at, as upstream's.
    const otherNamespace = await token({ name: 'r4', namespace: 'kube-system' });
    assert.equal(otherNamespace.status, 400, otherNamespace.text);
    assert.equal(otherNamespace.body.reason, 'BadRequest');
    assert.equal(
      otherNamespace.body.message,
      'the namespace of the provided object does not match the namespace sent on the request',
    );
    const same = await token({ name: 'r4', namespace: 'default' });
    assert.equal(same.status, 201, same.text);
    assert.equal(same.body.metadata.name, 'r4');
    assert.equal(same.body.metadata.namespace, 'default');
  });

  it('binds a token to a secret: it stops working when the secret is deleted', async () => {
    await apiRequest(cp, 'POST', '/api/v1/namespaces/default/serviceaccounts', { body: { metadata: { name: 'r3' } } });
    await apiRequest(cp, 'POST', '/api/v1/namespaces/default/secrets', { body: { metadata: { name: 'anchor' } } });
    const tr = await apiRequest(cp, 'POST', '/api/v1/namespaces/default/serviceaccounts/r3/token', {
      body: { spec: { boundObjectRef: { apiVersion: 'v1', kind: 'Secret', name: 'anchor' } } },
    });
    assert.equal(tr.status, 201, tr.text);
    const token: string = tr.body.status.token;
    // Who the token is (every authenticated user may ask), then nobody once its secret is gone.
    const whoami = () => asToken(cp, 'POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', token, whoamiBody);
    const before = await whoami();
    assert.equal(before.status, 201, before.text);
    assert.equal(before.body.status.userInfo.username, 'system:serviceaccount:default:r3');
    await apiRequest(cp, 'DELETE', '/api/v1/namespaces/default/secrets/anchor');
    assert.equal((await whoami()).status, 401);
  });

  it('runs admission on TokenRequests: a node gets only tokens bound to its own pods (NodeRestriction)', async () => {
    const ns = '/api/v1/namespaces/default';
    await apiRequest(cp, 'POST', `${ns}/serviceaccounts`, { body: { metadata: { name: 'agent' } } });
    const pod = await apiRequest(cp, 'POST', `${ns}/pods`, {
      body: {
        metadata: { name: 'agent-1' },
        spec: { serviceAccountName: 'agent', nodeName: 'node-1', containers: [{ name: 'c', image: 'busybox' }] },
      },
    });
    assert.equal(pod.status, 201, pod.text);
    const asNode = (body: unknown) =>
      apiRequest(cp, 'POST', `${ns}/serviceaccounts/agent/token`, {
        body,
        headers: { 'Impersonate-User': 'system:node:node-1', 'Impersonate-Group': 'system:nodes' },
      });
    const boundToPod = {
      spec: { boundObjectRef: { apiVersion: 'v1', kind: 'Pod', name: 'agent-1', uid: pod.body.metadata.uid } },
    };
    // The Node authorizer lets node-1 ask for the tokens of its pods' service accounts once it has seen the pod.
    let bound = await asNode(boundToPod);
    for (let tries = 0; bound.status === 403 && tries < 200; tries++) {
      await new Promise((r) => setTimeout(r, 25));
      bound = await asNode(boundToPod);
    }
    assert.equal(bound.status, 201, bound.text);
    const unbound = await asNode({ spec: {} });
    assert.equal(unbound.status, 403, unbound.text);
    assert.equal(unbound.body.message, 'serviceaccounts "agent" is forbidden: node requested token not bound to a pod');
    const noUid = await asNode({ spec: { boundObjectRef: { apiVersion: 'v1', kind: 'Pod', name: 'agent-1' } } });
    assert.equal(
      noUid.body.message,
      'serviceaccounts "agent" is forbidden: node requested token with a pod binding without a uid',
    );
    // Anyone else (here the admin) still gets an unbound token.
    assert.equal(
      (await apiRequest(cp, 'POST', `${ns}/serviceaccounts/agent/token`, { body: { spec: {} } })).status,
      201,
    );
  });

  it('serves the OIDC discovery document and the JWKS', async () => {
    const config = await apiRequest(cp, 'GET', '/.well-known/openid-configuration');
    assert.equal(config.status, 200);
    assert.equal(config.headers['content-type'], 'application/json');
    // Upstream's OpenIDMetadataServer lets clients cache both for an hour.
    assert.equal(config.headers['cache-control'], 'public, max-age=3600');
    assert.equal(config.body.issuer, 'https://kubernetes.default.svc.cluster.local');
    assert.equal(config.body.jwks_uri, `${cp.url}/openid/v1/jwks`);
    const jwks = await apiRequest(cp, 'GET', '/openid/v1/jwks');
    assert.equal(jwks.status, 200);
    assert.equal(jwks.headers['content-type'], 'application/jwk-set+json');
    assert.equal(jwks.headers['cache-control'], 'public, max-age=3600');
    assert.equal(jwks.body.keys[0].kty, 'EC');
    // The members in the order go-jose writes them.
    assert.deepEqual(Object.keys(jwks.body.keys[0]), ['use', 'kty', 'kid', 'crv', 'alg', 'x', 'y']);
    // Every ServiceAccount may read both (system:service-account-issuer-discovery), also slash-ended, as upstream
    // serves and allows them for clients generated from its older OpenAPI.
    await apiRequest(cp, 'POST', '/api/v1/namespaces/default/serviceaccounts', {
      body: { metadata: { name: 'oidc' } },
    });
    const tr = await apiRequest(cp, 'POST', '/api/v1/namespaces/default/serviceaccounts/oidc/token', {
      body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: {} },
    });
    for (const path of ['/.well-known/openid-configuration/', '/openid/v1/jwks/', '/openid/v1/jwks']) {
      const res = await asToken(cp, 'GET', path, tr.body.status.token);
      assert.equal(res.status, 200, `${path}: ${res.text}`);
      assert.deepEqual(res.body, path.startsWith('/openid') ? jwks.body : config.body, path);
    }
  });

  it('impersonates a user and groups when allowed', async () => {
    const res = await apiRequest(cp, 'POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', {
      body: whoamiBody,
      headers: { 'impersonate-user': 'alice', 'impersonate-group': 'qa', 'impersonate-extra-scopes': 'view' },
    });
    assert.equal(res.status, 201, res.text);
    assert.deepEqual(res.body.status.userInfo, {
      username: 'alice',
      groups: ['qa', 'system:authenticated'],
      extra: { scopes: ['view'] },
    });
    const sa = await apiRequest(cp, 'POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', {
      body: whoamiBody,
      headers: { 'impersonate-user': 'system:serviceaccount:kube-system:builder' },
    });
    assert.deepEqual(sa.body.status.userInfo.groups, [
      'system:serviceaccounts',
      'system:serviceaccounts:kube-system',
      'system:authenticated',
    ]);
  });

  it('takes each Impersonate-Group and Impersonate-Extra line as one value, commas and all', async () => {
    const res = await apiRequest(cp, 'POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', {
      body: whoamiBody,
      headers: {
        'Impersonate-User': 'alice',
        'Impersonate-Group': ['a,b', 'qa'],
        'Impersonate-Extra-Scopes': ['view,edit', 'admin'],
      },
    });
    assert.equal(res.status, 201, res.text);
    assert.deepEqual(res.body.status.userInfo, {
      username: 'alice',
      groups: ['a,b', 'qa', 'system:authenticated'],
      extra: { scopes: ['view,edit', 'admin'] },
    });
  });

  it('refuses impersonation by an anonymous user, and groups without a user', async () => {
    const anon = await apiRequest(cp, 'GET', '/api/v1/namespaces', {
      anonymous: true,
      headers: { 'impersonate-user': 'alice' },
    });
    assert.equal(anon.status, 403);
    assert.equal(
      anon.body.message,
      'users "alice" is forbidden: User "system:anonymous" cannot impersonate resource "users" in API group "" at the cluster scope',
    );
    // As upstream's responsewriters.InternalError: Go's http.Error, plain text naming the request.
    const groupsOnly = await apiRequest(cp, 'GET', '/api/v1/namespaces?limit=5', {
      headers: { 'impersonate-group': 'qa' },
    });
    assert.equal(groupsOnly.status, 500);
    assert.equal(groupsOnly.headers['content-type'], 'text/plain; charset=utf-8');
    assert.equal(groupsOnly.headers['x-content-type-options'], 'nosniff');
    assert.equal(
      groupsOnly.text,
      'Internal Server Error: "/api/v1/namespaces?limit=5": requested [{Group  qa    }] without impersonating a user\n',
    );
    const uidOnly = await apiRequest(cp, 'GET', '/api/v1/namespaces', { headers: { 'impersonate-uid': 'u-1' } });
    assert.equal(uidOnly.status, 500);
    assert.equal(
      uidOnly.text,
      'Internal Server Error: "/api/v1/namespaces": requested [{UID  u-1  authentication.k8s.io/v1  }] without impersonating a user\n',
    );
  });
});

describe('apiserver authentication: --anonymous-auth=false', () => {
  let cp: ControlPlane;
  before(async () => {
    cp = await startControlPlane({ authentication: { anonymousAuth: false } });
  });
  after(async () => {
    await cp?.stop();
  });

  it('answers requests without credentials 401, and still serves certificate users', async () => {
    const res = await apiRequest(cp, 'GET', '/healthz', { anonymous: true });
    assert.equal(res.status, 401);
    assert.deepEqual(res.body, UNAUTHORIZED);
    assert.equal((await apiRequest(cp, 'GET', '/api/v1/namespaces')).status, 200);
  });
});

describe("apiserver authentication: kube-apiserver's token cache (on by default)", () => {
  let cp: ControlPlane;
  before(async () => {
    cp = await startControlPlane();
  });
  after(async () => {
    await cp?.stop();
  });

  it('keeps a revoked token working until its 10 s entry expires, then refuses it', async () => {
    await apiRequest(cp, 'POST', '/api/v1/namespaces/default/serviceaccounts', {
      body: { metadata: { name: 'brief' } },
    });
    const tr = await apiRequest(cp, 'POST', '/api/v1/namespaces/default/serviceaccounts/brief/token', {
      body: { spec: {} },
    });
    assert.equal(tr.status, 201, tr.text);
    const token: string = tr.body.status.token;
    const whoami = () => asToken(cp, 'POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', token, whoamiBody);
    assert.equal((await whoami()).status, 201);
    await apiRequest(cp, 'DELETE', '/api/v1/namespaces/default/serviceaccounts/brief');
    const deletedAt = Date.now();
    const cached = await whoami();
    assert.equal(cached.status, 201, 'answered from the cache');
    assert.equal(cached.body.status.userInfo.username, 'system:serviceaccount:default:brief');
    let status = 201;
    while (status === 201 && Date.now() - deletedAt < 30_000) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      status = (await whoami()).status;
    }
    assert.equal(status, 401, 'refused once the entry expired');
  });
});

describe('apiserver authentication: --client-ca-file', () => {
  let cp: ControlPlane;
  let dir: string;
  let other: Awaited<ReturnType<typeof ensurePki>>;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'client-ca-'));
    other = await ensurePki(join(dir, 'other-pki'), {});
    const bundle = join(dir, 'client-ca.crt');
    writeFileSync(bundle, other.ca.certPem);
    cp = await startControlPlane({ authentication: { clientCAFile: bundle } });
  });
  after(async () => {
    await cp?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("authenticates certificates the file's CAs signed (CN the user, O the groups), and the cluster CA's still", async () => {
    const erin = await issueClientCertificate(other.ca, { commonName: 'erin', organizations: ['team-a', 'team-b'] });
    const who = await withCertificate(
      cp,
      'POST',
      '/apis/authentication.k8s.io/v1/selfsubjectreviews',
      erin,
      whoamiBody,
    );
    assert.equal(who.status, 201, JSON.stringify(who.body));
    assert.deepEqual((who.body.status as { userInfo: unknown }).userInfo, {
      username: 'erin',
      groups: ['team-a', 'team-b', 'system:authenticated'],
      extra: certificateExtra(erin.certPem),
    });
    // Not an administrator: RBAC refuses what nothing grants, with upstream's message.
    const list = await withCertificate(cp, 'GET', '/api/v1/namespaces', erin);
    assert.equal(list.status, 403);
    assert.equal(
      list.body.message,
      'namespaces is forbidden: User "erin" cannot list resource "namespaces" in API group "" at the cluster scope',
    );
    // The cluster's own admin certificate keeps working.
    assert.equal((await apiRequest(cp, 'GET', '/api/v1/namespaces')).status, 200);
  });
});

describe('apiserver authorization: --authorization-mode=AlwaysDeny', () => {
  let cp: ControlPlane;
  let dir: string;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'always-deny-'));
    const tokenFile = join(dir, 'tokens.csv');
    writeFileSync(tokenFile, 'deny-me,jane,jane-uid,"dev"\n');
    cp = await startControlPlane({
      authentication: { tokenAuthFile: tokenFile },
      authorization: { modes: ['AlwaysDeny'] },
    });
  });
  after(async () => {
    await cp?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("refuses every request with the mode's reason in upstream's message; system:masters is still allowed", async () => {
    const res = await asToken(cp, 'GET', '/api/v1/namespaces/default/pods', 'deny-me');
    assert.equal(res.status, 403);
    assert.equal(
      res.body.message,
      'pods is forbidden: User "jane" cannot list resource "pods" in API group "" in the namespace "default": Everything is forbidden.',
    );
    assert.equal(res.body.reason, 'Forbidden');
    assert.equal((await apiRequest(cp, 'GET', '/api/v1/namespaces/default/pods')).status, 200);
  });
});
