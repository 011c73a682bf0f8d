import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { describe, it } from 'node:test';
import { SignJWT } from 'jose';
import assert from '../../../testing/assert.js';
import { FakeClock } from '../../../util/clock.js';
import { AuthenticationError } from '../../filters/authentication.js';
import type { KubeObject } from '../../registry/object.js';
import { type ObjectGetter, serviceAccountTokenAuthenticator } from './authenticator.js';
import { DEFAULT_SERVICE_ACCOUNT_ISSUER, serviceAccountClaims } from './claims.js';
import { ServiceAccountTokenIssuer } from './issuer.js';
import { keyIdOf } from './keys.js';

const ISSUER = DEFAULT_SERVICE_ACCOUNT_ISSUER;
const T0 = Date.parse('2025-06-01T00:00:00Z');

function obj(kind: string, namespace: string, name: string, uid: string, extra: Partial<KubeObject> = {}): KubeObject {
  return { apiVersion: 'v1', kind, metadata: { name, namespace, uid }, ...extra };
}

function setup() {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const issuer = new ServiceAccountTokenIssuer(ISSUER, privateKey, [publicKey]);
  const objects = new Map<string, KubeObject>();
  const put = (resource: string, o: KubeObject) =>
    objects.set(`${resource}/${o.metadata.namespace ?? ''}/${o.metadata.name}`, o);
  const getObject: ObjectGetter = async (resource, ns, name) => objects.get(`${resource}/${ns}/${name}`);
  const sa = obj('ServiceAccount', 'team', 'builder', 'sa-uid-1');
  put('serviceaccounts', sa);
  const clock = new FakeClock(T0);
  const signingKey = privateKey;
  const authn = serviceAccountTokenAuthenticator({
    issuers: [ISSUER],
    audiences: [ISSUER],
    keys: [publicKey],
    getObject,
    clock,
  });
  return { issuer, authn, sa, put, objects, clock, publicKey, signingKey };
}

/** Refused with exactly upstream's message. */
async function refused(p: unknown, message: string) {
  await assert.rejects(Promise.resolve(p), (err) => {
    assert.ok(err instanceof AuthenticationError, 'an AuthenticationError');
    assert.equal(err.message, message);
    return true;
  });
}

/** Signs a token as our issuer would, with claims as given (some left out or changed), and no key id when asked. */
async function signRaw(key: KeyObject, claims: Record<string, unknown>, kid?: string): Promise<string> {
  return new SignJWT({ iss: ISSUER, ...claims })
    .setProtectedHeader({ alg: 'ES256', ...(kid ? { kid } : {}) })
    .sign(key);
}

describe('ServiceAccount token authenticator', () => {
  it('authenticates a token as system:serviceaccount:<ns>:<name> with the ServiceAccount groups and uid', async () => {
    const { issuer, authn, sa } = setup();
    const claims = serviceAccountClaims(sa, {}, 3600, [ISSUER], T0);
    const user = await authn(await issuer.sign(claims));
    assert.deepEqual(user, {
      audiences: [ISSUER],
      name: 'system:serviceaccount:team:builder',
      uid: 'sa-uid-1',
      groups: ['system:serviceaccounts', 'system:serviceaccounts:team'],
      extra: { 'authentication.kubernetes.io/credential-id': [`JTI=${claims.jti}`] },
    });
  });

  it('writes upstream claims: kubernetes.io with namespace, serviceaccount, pod and node; iat = nbf; exp', async () => {
    const { sa } = setup();
    const pod = obj('Pod', 'team', 'p1', 'pod-uid');
    const node = obj('Node', '', 'n1', 'node-uid');
    const c = serviceAccountClaims(sa, { pod, node }, 600, ['a'], T0);
    assert.equal(c.sub, 'system:serviceaccount:team:builder');
    assert.deepEqual(c.aud, ['a']);
    assert.equal(c.iat, T0 / 1000);
    assert.equal(c.nbf, T0 / 1000);
    assert.equal(c.exp, T0 / 1000 + 600);
    assert.deepEqual(c['kubernetes.io'], {
      namespace: 'team',
      serviceaccount: { name: 'builder', uid: 'sa-uid-1' },
      pod: { name: 'p1', uid: 'pod-uid' },
      node: { name: 'n1', uid: 'node-uid' },
    });
  });

  it('refuses a forged token: no key of its key id, or none that verifies it', async () => {
    const { authn, sa } = setup();
    const other = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
    const forger = new ServiceAccountTokenIssuer(ISSUER, other.privateKey, [other.publicKey]);
    const claims = serviceAccountClaims(sa, {}, 3600, [ISSUER], T0) as unknown as Record<string, unknown>;
    await refused(authn(await forger.sign(claims as never)), 'invalid signature, no keys found');
    await refused(authn(await signRaw(other.privateKey, claims)), 'invalid signature');
  });

  it('refuses an expired token, one not yet valid and one issued in the future, in go-jose order', async () => {
    const { issuer, authn, sa, clock, signingKey } = setup();
    const token = await issuer.sign(serviceAccountClaims(sa, {}, 600, [ISSUER], T0));
    clock.step(600_000 + 60_000);
    assert.equal((await authn(token))?.name, 'system:serviceaccount:team:builder', 'within the 60 s leeway');
    clock.step(1_000);
    await refused(authn(token), 'service account token has expired');
    const future = await issuer.sign(serviceAccountClaims(sa, {}, 600, [ISSUER], clock.now() + 3_600_000));
    await refused(authn(future), 'service account token is not valid yet');
    const { nbf: _nbf, ...noNbf } = serviceAccountClaims(sa, {}, 600, [ISSUER], clock.now() + 3_600_000);
    await refused(authn(await signRaw(signingKey, noNbf)), 'service account token is issued in the future');
  });

  it('accepts an extended token past warnafter, with the stale-token audit annotation', async () => {
    const { issuer, authn, sa, clock } = setup();
    const token = await issuer.sign(serviceAccountClaims(sa, {}, 365 * 24 * 3600, [ISSUER], T0, 3607));
    const fresh = await authn(token);
    assert.equal(fresh?.auditAnnotations, undefined, 'no annotation before warnafter');
    clock.step(3607_000 + 93_000);
    const stale = await authn(token);
    assert.equal(stale?.name, 'system:serviceaccount:team:builder');
    assert.deepEqual(stale?.auditAnnotations, {
      'authentication.k8s.io/stale-token':
        'subject: system:serviceaccount:team:builder, seconds after warning threshold: 93',
    });
  });

  it('refuses a token for other audiences with Go %q lists, before looking at its times', async () => {
    const { issuer, authn, sa, clock } = setup();
    const forVault = await issuer.sign(serviceAccountClaims(sa, {}, 3600, ['vault'], T0));
    await refused(authn(forVault), `token audiences ["vault"] is invalid for the target audiences ["${ISSUER}"]`);
    const two = await issuer.sign(serviceAccountClaims(sa, {}, 3600, ['foo', 'bar'], T0));
    await refused(
      authn(two, ['x', 'y']),
      'token audiences ["foo" "bar"] is invalid for the target audiences ["x" "y"]',
    );
    assert.deepEqual((await authn(two, ['x', 'bar', 'foo']))?.audiences, ['bar', 'foo']);
    clock.step(7200_000);
    await refused(authn(two, ['x']), 'token audiences ["foo" "bar"] is invalid for the target audiences ["x"]');
  });

  it('takes a token that names no audience as one for the API audiences', async () => {
    const { authn, sa, signingKey, publicKey } = setup();
    const { aud: _aud, ...claims } = serviceAccountClaims(sa, {}, 3600, [], T0);
    const token = await signRaw(signingKey, claims, keyIdOf(publicKey));
    assert.deepEqual((await authn(token))?.audiences, [ISSUER]);
    await refused(
      authn(token, ['vault']),
      `token audiences ["${ISSUER}"] is invalid for the target audiences ["vault"]`,
    );
  });

  it('leaves tokens of another issuer, and non-JWTs, to other authenticators', async () => {
    const { authn, sa } = setup();
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
    const elsewhere = new ServiceAccountTokenIssuer('https://elsewhere.example', privateKey, [publicKey]);
    assert.equal(await authn(await elsewhere.sign(serviceAccountClaims(sa, {}, 3600, [ISSUER], T0))), undefined);
    assert.equal(await authn('not-a-jwt'), undefined);
  });

  it('refuses a token once its ServiceAccount is gone, recreated or deleted, with upstream words', async () => {
    const { issuer, authn, sa, put, objects, clock } = setup();
    const token = await issuer.sign(serviceAccountClaims(sa, {}, 3600, [ISSUER], T0));
    put('serviceaccounts', obj('ServiceAccount', 'team', 'builder', 'sa-uid-2'));
    await refused(authn(token), 'service account UID (sa-uid-2) does not match claim (sa-uid-1)');
    put('serviceaccounts', { ...sa, metadata: { ...sa.metadata, deletionTimestamp: new Date(T0).toISOString() } });
    assert.equal((await authn(token))?.uid, 'sa-uid-1', 'deleted less than the leeway ago');
    clock.step(61_000);
    await refused(authn(token), 'service account team/builder has been deleted');
    objects.clear();
    await refused(authn(token), 'serviceaccounts "builder" not found');
  });

  it('binds a token to its pod: pod name and uid in extra; refused once the pod is gone or replaced', async () => {
    const { issuer, authn, sa, put, objects, clock } = setup();
    const pod = obj('Pod', 'team', 'p1', 'pod-uid-1');
    put('pods', pod);
    const token = await issuer.sign(serviceAccountClaims(sa, { pod }, 3600, [ISSUER], T0));
    const user = await authn(token);
    assert.deepEqual(user?.extra?.['authentication.kubernetes.io/pod-name'], ['p1']);
    assert.deepEqual(user?.extra?.['authentication.kubernetes.io/pod-uid'], ['pod-uid-1']);
    put('pods', obj('Pod', 'team', 'p1', 'pod-uid-2'));
    await refused(authn(token), 'pod UID (pod-uid-2) does not match service account pod ref claim (pod-uid-1)');
    put('pods', { ...pod, metadata: { ...pod.metadata, deletionTimestamp: new Date(T0).toISOString() } });
    clock.step(61_000);
    await refused(authn(token), 'service account token has been invalidated');
    objects.delete('pods/team/p1');
    await refused(authn(token), 'service account token has been invalidated');
  });

  it('binds a token to a secret: refused once the secret is deleted or replaced', async () => {
    const { issuer, authn, sa, put, objects } = setup();
    const secret = obj('Secret', 'team', 's1', 'secret-uid');
    put('secrets', secret);
    const token = await issuer.sign(serviceAccountClaims(sa, { secret }, 3600, [ISSUER], T0));
    assert.equal((await authn(token))?.name, 'system:serviceaccount:team:builder');
    put('secrets', obj('Secret', 'team', 's1', 'secret-uid-2'));
    await refused(
      authn(token),
      'secret UID (secret-uid-2) does not match service account secret ref claim (secret-uid)',
    );
    objects.delete('secrets/team/s1');
    await refused(authn(token), 'service account token has been invalidated');
  });

  it('binds a token to a node: refused once the node is gone or replaced', async () => {
    const { issuer, authn, sa, put, objects } = setup();
    const node = obj('Node', '', 'n1', 'node-uid');
    put('nodes', node);
    const token = await issuer.sign(serviceAccountClaims(sa, { node }, 3600, [ISSUER], T0));
    assert.deepEqual((await authn(token))?.extra?.['authentication.kubernetes.io/node-uid'], ['node-uid']);
    put('nodes', obj('Node', '', 'n1', 'node-uid-2'));
    await refused(authn(token), 'node UID (node-uid-2) does not match service account node ref claim (node-uid)');
    objects.delete('nodes//n1');
    await refused(authn(token), 'service account token has been invalidated');
  });

  it('publishes a JWKS whose key id is the one in token headers, and the OIDC discovery document', async () => {
    const { issuer, sa } = setup();
    const token = await issuer.sign(serviceAccountClaims(sa, {}, 3600, [ISSUER], T0));
    const header = JSON.parse(Buffer.from(token.split('.')[0] ?? '', 'base64url').toString());
    const jwks = await issuer.jwks();
    assert.equal(jwks.keys.length, 1);
    assert.equal(jwks.keys[0]?.kid, header.kid);
    assert.equal(header.alg, 'ES256');
    assert.deepEqual(
      { use: jwks.keys[0]?.use, kty: jwks.keys[0]?.kty, crv: jwks.keys[0]?.crv, alg: jwks.keys[0]?.alg },
      { use: 'sig', kty: 'EC', crv: 'P-256', alg: 'ES256' },
    );
    assert.deepEqual(issuer.openidConfiguration('https://127.0.0.1:6443/openid/v1/jwks'), {
      issuer: ISSUER,
      jwks_uri: 'https://127.0.0.1:6443/openid/v1/jwks',
      response_types_supported: ['id_token'],
      subject_types_supported: ['public'],
      id_token_signing_alg_values_supported: ['ES256'],
    });
  });
});
