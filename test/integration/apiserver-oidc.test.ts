import { after, before, describe, it } from 'node:test';
import { type ControlPlane, startControlPlane } from '../../src/index.js';
import { apiRequest } from '../../src/testing/api-client.js';
import assert from '../../src/testing/assert.js';
import { startOIDCIssuer, type TestOIDCIssuer } from '../../src/testing/review-servers.js';

const CLIENT_ID = 'wheelhouse';
const whoami = { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' };

function asToken(
  cp: ControlPlane,
  token: string,
  method = 'POST',
  path = '/apis/authentication.k8s.io/v1/selfsubjectreviews',
) {
  return apiRequest(cp, method, path, {
    anonymous: true,
    headers: { authorization: `Bearer ${token}` },
    ...(method === 'POST' ? { body: whoami } : {}),
  });
}

const now = () => Math.floor(Date.now() / 1000);

describe('apiserver OIDC authentication (--oidc-*) against a local issuer', () => {
  let issuer: TestOIDCIssuer;
  let other: TestOIDCIssuer;
  let cp: ControlPlane;
  let byEmail: ControlPlane;
  before(async () => {
    issuer = await startOIDCIssuer();
    other = await startOIDCIssuer();
    cp = await startControlPlane({
      authentication: {
        oidc: {
          issuerURL: issuer.url,
          clientID: CLIENT_ID,
          caFile: issuer.caFile,
          groupsClaim: 'groups',
          groupsPrefix: 'oidc:',
          requiredClaims: { tenant: 'blue' },
        },
      },
    });
    byEmail = await startControlPlane({
      authentication: {
        oidc: { issuerURL: issuer.url, clientID: CLIENT_ID, caFile: issuer.caFile, usernameClaim: 'email' },
      },
    });
  });
  after(async () => {
    await cp?.stop();
    await byEmail?.stop();
    await issuer?.close();
    await other?.close();
  });

  const good = (extra: Record<string, unknown> = {}) =>
    issuer.sign({ sub: 'alice', aud: CLIENT_ID, exp: now() + 600, groups: ['dev', 'ops'], tenant: 'blue', ...extra });

  it('authenticates an ID token: sub prefixed with the issuer URL and #, groups prefixed, system:authenticated', async () => {
    const res = await asToken(cp, await good());
    assert.equal(res.status, 201, res.text);
    assert.deepEqual(res.body.status.userInfo, {
      username: `${issuer.url}#alice`,
      groups: ['oidc:dev', 'oidc:ops', 'system:authenticated'],
    });
  });

  it('names the credential of a token with a jti claim in the credential-id extra', async () => {
    const res = await asToken(cp, await good({ jti: 'abc-123' }));
    assert.deepEqual(res.body.status.userInfo.extra, { 'authentication.kubernetes.io/credential-id': ['JTI=abc-123'] });
  });

  it('takes a single string groups claim as one group', async () => {
    const res = await asToken(cp, await good({ groups: 'admins' }));
    assert.deepEqual(res.body.status.userInfo.groups, ['oidc:admins', 'system:authenticated']);
    // JSON null decodes to nothing in Go: no groups, and no refusal.
    const none = await asToken(cp, await good({ groups: null }));
    assert.deepEqual(none.body.status.userInfo.groups, ['system:authenticated']);
  });

  it('refuses expired, wrong-audience, forged and wrong-issuer tokens, and missing required claims, with 401', async () => {
    const cases: [string, string][] = [
      ['expired', await good({ exp: now() - 10 })],
      ['no expiry', await issuer.sign({ sub: 'alice', aud: CLIENT_ID, tenant: 'blue' })],
      ['wrong audience', await good({ aud: 'someone-else' })],
      ['required claim missing', await good({ tenant: undefined })],
      ['required claim different', await good({ tenant: 'red' })],
      // Signed by another issuer's key but claiming to be ours, with our key id.
      [
        'forged',
        await other.sign(
          { iss: issuer.url, sub: 'alice', aud: CLIENT_ID, exp: now() + 600, tenant: 'blue' },
          { kid: 'key-1' },
        ),
      ],
      ['another issuer', await other.sign({ sub: 'alice', aud: CLIENT_ID, exp: now() + 600, tenant: 'blue' })],
    ];
    for (const [what, token] of cases) {
      const res = await asToken(cp, token);
      assert.equal(res.status, 401, `${what}: ${res.text}`);
      assert.equal(res.body.reason, 'Unauthorized', what);
      assert.equal(res.body.message, 'Unauthorized', what);
    }
  });

  it('explains refusals in TokenReview status.error, with go-oidc reasons', async () => {
    const review = async (token: string) =>
      (
        await apiRequest(cp, 'POST', '/apis/authentication.k8s.io/v1/tokenreviews', {
          body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token } },
        })
      ).body.status;
    const expired = await review(await good({ exp: now() - 10 }));
    assert.equal(expired.authenticated, undefined);
    assert.match(
      expired.error,
      /^oidc: verify token: oidc: token is expired \(Token Expiry: \d{4}-\d\d-\d\d \d\d:\d\d:\d\d \+0000 UTC\)$/,
    );
    assert.equal(
      (await review(await good({ aud: ['x', 'y'] }))).error,
      'oidc: verify token: oidc: expected audience in ["wheelhouse"] got ["x" "y"]',
    );
    assert.equal(
      (await review(await good({ tenant: 'red' }))).error,
      'oidc: required claim tenant value does not match. Got = red, want = blue',
    );
    const forged = await other.sign(
      { iss: issuer.url, sub: 'alice', aud: CLIENT_ID, exp: now() + 600, tenant: 'blue' },
      { kid: 'key-1' },
    );
    assert.equal(
      (await review(forged)).error,
      'oidc: verify token: failed to verify signature: failed to verify id token signature',
    );
    const ok = await review(await good());
    assert.equal(ok.authenticated, true);
    assert.equal(ok.user.username, `${issuer.url}#alice`);
  });

  it('uses the email claim unprefixed, refusing it when email_verified is false', async () => {
    const token = (extra: Record<string, unknown>) =>
      issuer.sign({ sub: 'u1', email: 'bob@example.com', aud: CLIENT_ID, exp: now() + 600, ...extra });
    const verified = await asToken(byEmail, await token({ email_verified: true }));
    assert.equal(verified.status, 201, verified.text);
    assert.equal(verified.body.status.userInfo.username, 'bob@example.com');
    assert.equal((await asToken(byEmail, await token({}))).status, 201, 'no email_verified claim is accepted');
    assert.equal((await asToken(byEmail, await token({ email_verified: false }))).status, 401);
  });

  it('fetches the keys again when a token names a key it does not know (the issuer rotated)', async () => {
    assert.equal((await asToken(cp, await good())).status, 201);
    const before = issuer.jwksFetches();
    await issuer.rotate();
    const res = await asToken(cp, await good());
    assert.equal(res.status, 201, res.text);
    assert.equal(issuer.jwksFetches(), before + 1);
    assert.equal((await asToken(cp, await good())).status, 201);
    assert.equal(issuer.jwksFetches(), before + 1, 'the new keys are kept');
  });

  it('refuses to start on an http issuer, the ServiceAccount issuer or a lone client id, with upstream messages', async () => {
    await assert.rejects(
      startControlPlane({ authentication: { oidc: { issuerURL: 'http://127.0.0.1:1', clientID: 'x' } } }),
      {
        message:
          'invalid authentication configuration: jwt[0].issuer.url: Invalid value: "http://127.0.0.1:1": URL scheme must be https',
      },
    );
    await assert.rejects(
      startControlPlane({
        authentication: { oidc: { issuerURL: 'https://kubernetes.default.svc.cluster.local', clientID: 'x' } },
      }),
      {
        message:
          'invalid authentication configuration: jwt[0].issuer.url: Invalid value: "https://kubernetes.default.svc.cluster.local": URL must not overlap with disallowed issuers: [https://kubernetes.default.svc.cluster.local]',
      },
    );
    await assert.rejects(startControlPlane({ authentication: { oidc: { issuerURL: '', clientID: 'x' } } }), {
      message: 'oidc-issuer-url and oidc-client-id must be specified together when any oidc-* flags are set',
    });
  });
});
