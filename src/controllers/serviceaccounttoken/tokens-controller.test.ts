import { createPublicKey } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { jwtVerify } from 'jose';
import { isNotFound } from '../../client/types.js';
import { type ControlPlane, startControlPlane } from '../../index.js';
import { apiRequest } from '../../testing/api-client.js';
import assert from '../../testing/assert.js';
import { eventually, runControllers } from '../../testing/controllers.js';
import type { ControllerManager } from '../manager.js';
import { serviceAccountTokenController } from './index.js';

const NS = 'default';

describe('serviceaccount-token-controller', () => {
  let cp: ControlPlane;
  let manager: ControllerManager;
  let saKey: string;
  let caPem: string;
  before(async () => {
    // No token cache: a token is expected to fail at the next request once its Secret is gone.
    cp = await startControlPlane({ authentication: { tokenSuccessCacheTTLMs: 0 } });
    saKey = await readFile(join(cp.dataDir, 'pki', 'sa.key'), 'utf8');
    caPem = await readFile(join(cp.dataDir, 'pki', 'ca.crt'), 'utf8');
    manager = await runControllers(cp, [serviceAccountTokenController], {
      options: { serviceAccountPrivateKeyPem: saKey, rootCaPem: caPem },
    });
  });
  after(async () => {
    await manager?.stop();
    await cp?.stop();
  });

  const tokenSecret = (name: string, account: string) => ({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name, annotations: { 'kubernetes.io/service-account.name': account } },
    type: 'kubernetes.io/service-account-token',
  });
  const gone = async (name: string) => {
    try {
      await cp.client.secrets(NS).get(name);
      return false;
    } catch (err) {
      if (isNotFound(err)) return true;
      throw err;
    }
  };

  it('fills a token secret with a legacy token, ca.crt and namespace, and deletes it with its account', async () => {
    const sa = await cp.client
      .serviceAccounts(NS)
      .create({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'builder' } });
    await cp.client.secrets(NS).create(tokenSecret('builder-token', 'builder'));
    const secret = await eventually(async () => {
      const s = await cp.client.secrets(NS).get('builder-token');
      assert.ok((s.data as Record<string, string> | undefined)?.token, 'token filled');
      return s;
    });
    const data = secret.data as Record<string, string>;
    const text = (k: string) => Buffer.from(data[k] ?? '', 'base64').toString('utf8');
    assert.equal(text('ca.crt'), caPem);
    assert.equal(text('namespace'), NS);
    assert.equal(secret.metadata.annotations?.['kubernetes.io/service-account.uid'], sa.metadata.uid);
    const { payload, protectedHeader } = await jwtVerify(text('token'), createPublicKey(saKey));
    assert.equal(protectedHeader.alg, 'ES256');
    assert.equal(payload.iss, 'kubernetes/serviceaccount');
    assert.equal(payload.sub, 'system:serviceaccount:default:builder');
    assert.equal(payload.exp, undefined);
    assert.equal(payload['kubernetes.io/serviceaccount/secret.name'], 'builder-token');
    assert.equal(payload['kubernetes.io/serviceaccount/service-account.uid'], sa.metadata.uid);
    // The apiserver accepts the legacy token while its Secret holds it.
    const whoami = (token: string) =>
      apiRequest(cp, 'POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', {
        anonymous: true,
        headers: { authorization: `Bearer ${token}` },
        body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' },
      });
    const review = await whoami(text('token'));
    assert.equal(review.status, 201, review.text);
    assert.equal(review.body.status.userInfo.username, 'system:serviceaccount:default:builder');
    assert.deepEqual(review.body.status.userInfo.groups, [
      'system:serviceaccounts',
      'system:serviceaccounts:default',
      'system:authenticated',
    ]);
    // Use is tracked on the Secret, by the UTC day; a token made by hand draws no warning.
    const today = new Date().toISOString().slice(0, 10);
    const used = await cp.client.secrets(NS).get('builder-token');
    assert.equal(used.metadata.labels?.['kubernetes.io/legacy-token-last-used'], today);
    assert.equal(review.headers.warning, undefined);
    // A Secret the ServiceAccount lists holds an auto-generated token: the answer warns.
    const account = await cp.client.serviceAccounts(NS).get('builder');
    await cp.client.serviceAccounts(NS).update({ ...account, secrets: [{ name: 'builder-token' }] } as typeof account);
    const listed = await whoami(text('token'));
    assert.equal(listed.status, 201, listed.text);
    assert.equal(
      listed.headers.warning,
      '299 - "Use tokens from the TokenRequest API or manually created secret-based tokens instead of auto-generated secret-based tokens."',
    );
    // The legacy token cleaner's label refuses the token, naming how to let it work again.
    await cp.client
      .secrets(NS)
      .patch('builder-token', 'merge', { metadata: { labels: { 'kubernetes.io/legacy-token-invalid-since': today } } });
    const invalid = await whoami(text('token'));
    assert.equal(invalid.status, 401);
    await cp.client.secrets(NS).delete('builder-token');
    assert.equal((await whoami(text('token'))).status, 401);
    await cp.client.secrets(NS).create(tokenSecret('builder-token-2', 'builder'));
    await eventually(async () => {
      const s = await cp.client.secrets(NS).get('builder-token-2');
      assert.ok((s.data as Record<string, string> | undefined)?.token, 'token filled');
    });
    await cp.client.serviceAccounts(NS).delete('builder');
    await eventually(async () => assert.ok(await gone('builder-token-2')));
  });

  it('deletes a token secret naming an account that does not exist, and leaves other secrets alone', async () => {
    await cp.client.secrets(NS).create(tokenSecret('orphan-token', 'nobody'));
    await cp.client.secrets(NS).create({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'opaque', annotations: { 'kubernetes.io/service-account.name': 'nobody' } },
    });
    await eventually(async () => assert.ok(await gone('orphan-token')));
    assert.equal(await gone('opaque'), false);
  });
});
