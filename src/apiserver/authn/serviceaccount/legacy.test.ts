import { generateKeyPairSync } from 'node:crypto';
import { describe, it } from 'node:test';
import { SignJWT } from 'jose';
import assert from '../../../testing/assert.js';
import { AuthenticationError } from '../../filters/authentication.js';
import type { KubeObject } from '../../registry/object.js';
import { LEGACY_ISSUER, legacyServiceAccountTokenAuthenticator } from './legacy.js';

const API = 'https://kubernetes.default.svc.cluster.local';

async function setup() {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const token = await new SignJWT({
    iss: LEGACY_ISSUER,
    sub: 'system:serviceaccount:team:builder',
    'kubernetes.io/serviceaccount/namespace': 'team',
    'kubernetes.io/serviceaccount/secret.name': 'builder-token',
    'kubernetes.io/serviceaccount/service-account.name': 'builder',
    'kubernetes.io/serviceaccount/service-account.uid': 'sa-uid',
  })
    .setProtectedHeader({ alg: 'ES256' })
    .sign(privateKey);
  const objects = new Map<string, KubeObject>([
    [
      'serviceaccounts/builder',
      { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'builder', uid: 'sa-uid' } },
    ],
    [
      'secrets/builder-token',
      {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 'builder-token', uid: 's-uid' },
        data: { token: Buffer.from(token).toString('base64') },
      } as KubeObject,
    ],
  ]);
  const authn = legacyServiceAccountTokenAuthenticator({
    keys: [publicKey],
    audiences: [API],
    getObject: async (resource, _ns, name) => objects.get(`${resource}/${name}`),
  });
  return { token, objects, authn };
}

async function refused(p: unknown, message: string) {
  await assert.rejects(Promise.resolve(p), (err) => {
    assert.ok(err instanceof AuthenticationError, 'an AuthenticationError');
    assert.equal(err.message, message);
    return true;
  });
}

describe('legacy ServiceAccount tokens', () => {
  it('are good for the API audiences only, as tokens that name no audience', async () => {
    const { token, authn } = await setup();
    assert.deepEqual((await authn(token))?.audiences, [API]);
    assert.deepEqual((await authn(token, ['vault', API]))?.audiences, [API]);
    await refused(authn(token, ['vault']), `token audiences ["${API}"] is invalid for the target audiences ["vault"]`);
  });

  it("are refused in upstream's words once their Secret is gone or holds another token", async () => {
    const { token, objects, authn } = await setup();
    const secret = objects.get('secrets/builder-token') as KubeObject & { data: Record<string, string> };
    objects.set('secrets/builder-token', { ...secret, data: { token: Buffer.from('other').toString('base64') } });
    await refused(authn(token), "Token does not match server's copy");
    objects.delete('secrets/builder-token');
    await refused(authn(token), 'Token has been invalidated');
  });
});
