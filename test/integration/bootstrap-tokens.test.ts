import { after, before, describe, it } from 'node:test';
import { CompactSign } from 'jose';
import { isNotFound, type KubeObject } from '../../src/client/types.js';
import { bootstrapSignerController } from '../../src/controllers/bootstrap/bootstrap-signer.js';
import { tokenCleanerController } from '../../src/controllers/bootstrap/token-cleaner.js';
import type { ControllerManager } from '../../src/controllers/manager.js';
import { type ControlPlane, startControlPlane } from '../../src/index.js';
import { apiRequest } from '../../src/testing/api-client.js';
import assert from '../../src/testing/assert.js';
import { eventually, runControllers } from '../../src/testing/controllers.js';
import { FakeClock } from '../../src/util/clock.js';

const b64 = (s: string) => Buffer.from(s).toString('base64');
const rfc3339 = (ms: number) => `${new Date(ms).toISOString().slice(0, 19)}Z`;

/** A bootstrap token Secret as `kubeadm token create` writes it (data base64, as the API stores it). */
function tokenSecret(id: string, secret: string, data: Record<string, string> = {}, extra: Partial<KubeObject> = {}) {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: `bootstrap-token-${id}`, namespace: 'kube-system' },
    type: 'bootstrap.kubernetes.io/token',
    data: Object.fromEntries(
      Object.entries({
        'token-id': id,
        'token-secret': secret,
        'usage-bootstrap-authentication': 'true',
        'usage-bootstrap-signing': 'true',
        ...data,
      }).map(([k, v]) => [k, b64(v)]),
    ),
    ...extra,
  } as unknown as KubeObject;
}

function whoami(cp: ControlPlane, token: string) {
  return apiRequest(cp, 'POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', {
    anonymous: true,
    headers: { authorization: `Bearer ${token}` },
    body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' },
  });
}

describe('bootstrap tokens (--enable-bootstrap-token-auth) and the token cleaner', () => {
  let cp: ControlPlane;
  let off: ControlPlane;
  let manager: ControllerManager;
  const clock = new FakeClock(Date.now());
  before(async () => {
    [cp, off] = await Promise.all([
      startControlPlane({ storage: 'memory', authentication: { enableBootstrapTokenAuth: true } }),
      startControlPlane({ storage: 'memory' }),
    ]);
    const secrets = cp.client.secrets('kube-system');
    await secrets.create(
      tokenSecret('abcdef', '0123456789abcdef', { 'auth-extra-groups': 'system:bootstrappers:worker' }),
    );
    await secrets.create(tokenSecret('expird', '0123456789abcdef', { expiration: '2020-01-01T00:00:00Z' }));
    await secrets.create(tokenSecret('badexp', '0123456789abcdef', { expiration: 'tomorrow' }));
    await secrets.create(tokenSecret('nouse0', '0123456789abcdef', { 'usage-bootstrap-authentication': 'false' }));
    await secrets.create(tokenSecret('badgrp', '0123456789abcdef', { 'auth-extra-groups': 'system:masters' }));
    await secrets.create(tokenSecret('wrngid', '0123456789abcdef', { 'token-id': 'abcdef' }));
    await secrets.create({ ...tokenSecret('opaque', '0123456789abcdef'), type: 'Opaque' } as KubeObject);
    await off.client.secrets('kube-system').create(tokenSecret('abcdef', '0123456789abcdef'));
  });
  after(async () => {
    await manager?.stop();
    await Promise.all([cp?.stop(), off?.stop()]);
  });

  it('a valid token is system:bootstrap:<id> in system:bootstrappers and its extra groups', async () => {
    const res = await whoami(cp, 'abcdef.0123456789abcdef');
    assert.equal(res.status, 201, res.text);
    assert.deepEqual((res.body as { status: { userInfo: unknown } }).status.userInfo, {
      username: 'system:bootstrap:abcdef',
      groups: ['system:bootstrappers', 'system:bootstrappers:worker', 'system:authenticated'],
    });
  });

  it('refuses (401) a token its Secret does not accept, and every token when the flag is off', async () => {
    for (const token of [
      'abcdef.0123456789abcdee', // another secret
      'zzzzzz.0123456789abcdef', // no Secret
      'expird.0123456789abcdef', // expired
      'badexp.0123456789abcdef', // an expiration that does not parse counts as expired
      'nouse0.0123456789abcdef', // not for authentication
      'badgrp.0123456789abcdef', // an extra group outside system:bootstrappers:
      'wrngid.0123456789abcdef', // token-id does not match the name
      'opaque.0123456789abcdef', // not a bootstrap token Secret
      'ABCDEF.0123456789abcdef', // not of the token's form
    ]) {
      const res = await whoami(cp, token);
      assert.equal(res.status, 401, `${token}: ${res.text}`);
      assert.equal((res.body as { reason: string }).reason, 'Unauthorized', token);
    }
    assert.equal((await whoami(off, 'abcdef.0123456789abcdef')).status, 401, 'off unless the flag turns it on');
  });

  it('a bootstrapper may do only what RBAC grants it: listing pods is forbidden', async () => {
    const res = await apiRequest(cp, 'GET', '/api/v1/namespaces/default/pods', {
      anonymous: true,
      headers: { authorization: 'Bearer abcdef.0123456789abcdef' },
    });
    assert.equal(res.status, 403, res.text);
    assert.equal(
      (res.body as { message: string }).message,
      'pods is forbidden: User "system:bootstrap:abcdef" cannot list resource "pods" in API group "" in the namespace "default"',
    );
  });

  it('the token cleaner deletes expired bootstrap token Secrets, and others when their time comes', async () => {
    const secrets = cp.client.secrets('kube-system');
    await secrets.create(tokenSecret('later0', '0123456789abcdef', { expiration: rfc3339(clock.now() + 3_600_000) }));
    // Expired, but not a bootstrap token Secret (another type, another namespace): left alone.
    await secrets.create({
      ...tokenSecret('other0', '0123456789abcdef', { expiration: '2020-01-01T00:00:00Z' }),
      type: 'Opaque',
    } as KubeObject);
    await cp.client.secrets('default').create({
      ...tokenSecret('elsewh', '0123456789abcdef', { expiration: '2020-01-01T00:00:00Z' }),
      metadata: { name: 'bootstrap-token-elsewh', namespace: 'default' },
    } as KubeObject);
    // Off by default, as upstream's: `*` alone does not run it.
    manager = await runControllers(cp, [tokenCleanerController], { clock });
    assert.deepEqual(
      manager.enabledDescriptors().map((d) => d.name),
      [],
    );
    await manager.stop();
    manager = await runControllers(cp, [tokenCleanerController], {
      clock,
      options: { controllers: ['*', 'tokencleaner'] },
    });
    const exists = async (ns: string, name: string) => {
      try {
        await cp.client.secrets(ns).get(name);
        return true;
      } catch (err) {
        if (isNotFound(err)) return false;
        throw err;
      }
    };
    await eventually(async () => {
      assert.equal(await exists('kube-system', 'bootstrap-token-expird'), false, 'expired');
      assert.equal(await exists('kube-system', 'bootstrap-token-badexp'), false, 'unparseable expiration');
    });
    for (const name of ['abcdef', 'later0', 'other0', 'nouse0']) {
      assert.equal(await exists('kube-system', `bootstrap-token-${name}`), true, `${name} is kept`);
    }
    assert.equal(await exists('default', 'bootstrap-token-elsewh'), true, 'only kube-system holds bootstrap tokens');
    clock.step(3_600_000);
    await eventually(async () => assert.equal(await exists('kube-system', 'bootstrap-token-later0'), false));
    assert.equal(await exists('kube-system', 'bootstrap-token-abcdef'), true, 'a token without expiration stays');
  });

  it('the bootstrap signer keeps one detached JWS of cluster-info per signing token, and no others', async () => {
    const kubeconfig = 'apiVersion: v1\nclusters: []\nkind: Config\n';
    await cp.client.configMaps('kube-public').create({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'cluster-info', namespace: 'kube-public' },
      data: { kubeconfig, 'jws-kubeconfig-gone00': 'stale', other: 'kept' },
    } as unknown as KubeObject);
    const secrets = cp.client.secrets('kube-system');
    await secrets.create(tokenSecret('sign01', 'aaaaaaaaaaaaaaaa'));
    await secrets.create(tokenSecret('nosign', 'bbbbbbbbbbbbbbbb', { 'usage-bootstrap-signing': 'false' }));
    const signer = await runControllers(cp, [bootstrapSignerController], {
      clock,
      options: { controllers: ['bootstrapsigner'] },
    });
    try {
      // The same signature an independent JWS library makes, its payload cut out (what kubeadm join compares).
      const expected = async (id: string, secret: string) => {
        const full = await new CompactSign(new TextEncoder().encode(kubeconfig))
          .setProtectedHeader({ alg: 'HS256', kid: id })
          .sign(new TextEncoder().encode(secret));
        const [header, , sig] = full.split('.');
        return `${header}..${sig}`;
      };
      const data = async () =>
        (await cp.client.configMaps('kube-public').get('cluster-info')).data as Record<string, string>;
      // Signing tokens of the earlier steps (abcdef, nouse0…) sign too: usage-bootstrap-signing is theirs.
      await eventually(async () => {
        const d = await data();
        assert.equal(d['jws-kubeconfig-sign01'], await expected('sign01', 'aaaaaaaaaaaaaaaa'));
        assert.equal(d['jws-kubeconfig-abcdef'], await expected('abcdef', '0123456789abcdef'));
        assert.equal(d['jws-kubeconfig-gone00'], undefined, 'a signature of no token is removed');
      });
      const d = await data();
      assert.equal(d.kubeconfig, kubeconfig);
      assert.equal(d.other, 'kept');
      for (const id of ['nosign', 'wrngid', 'opaque', 'expird']) assert.equal(d[`jws-kubeconfig-${id}`], undefined, id);
      await secrets.delete('bootstrap-token-sign01');
      await eventually(async () => assert.equal((await data())['jws-kubeconfig-sign01'], undefined));
    } finally {
      await signer.stop();
    }
  });
});
