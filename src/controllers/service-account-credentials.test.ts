import { after, before, describe, it } from 'node:test';
import { ApiError, type KubeObject } from '../client/types.js';
import { type ControlPlane, startControlPlane } from '../index.js';
import assert from '../testing/assert.js';
import { eventually } from '../testing/controllers.js';
import { MemoryResourceClient } from '../testing/memory-resource-client.js';
import { FakeClock } from '../util/clock.js';
import {
  ControllerClientBuilder,
  type ServiceAccountsClient,
  ServiceAccountTokenSource,
} from './service-account-credentials.js';

/** ServiceAccounts in memory, and a TokenRequest endpoint that mints `token-<n>` valid for what was asked. */
function fakeCore(clock: FakeClock) {
  const accounts = new MemoryResourceClient({ resource: 'serviceaccounts', kind: 'ServiceAccount' });
  const requests: { name: string; body: KubeObject }[] = [];
  const state = { failures: 0, lifetimeSeconds: undefined as number | undefined };
  const core: ServiceAccountsClient = {
    serviceAccounts(ns) {
      const view = accounts.namespace(ns);
      return {
        get: (name) => view.get(name),
        create: (obj) => view.create(obj),
        async createSubresource(name, subresource, body) {
          assert.equal(subresource, 'token');
          await view.get(name);
          requests.push({ name, body });
          if (state.failures > 0) {
            state.failures--;
            throw new ApiError({ kind: 'Status', apiVersion: 'v1', code: 500, reason: 'InternalError' });
          }
          const seconds =
            state.lifetimeSeconds ??
            (body as unknown as { spec: { expirationSeconds: number } }).spec.expirationSeconds;
          return {
            apiVersion: 'authentication.k8s.io/v1',
            kind: 'TokenRequest',
            metadata: { name, namespace: ns },
            spec: { expirationSeconds: seconds },
            status: {
              token: `token-${requests.length}`,
              expirationTimestamp: new Date(clock.now() + seconds * 1000).toISOString(),
            },
          } as KubeObject;
        },
      };
    },
  };
  return { accounts, requests, state, core };
}

/** Settles promises and timers: steps the fake clock by `ms` in small steps, letting microtasks run between. */
async function advance(clock: FakeClock, ms: number, stepMs = 100): Promise<void> {
  for (let done = 0; done < ms; done += stepMs) {
    await new Promise((r) => setImmediate(r));
    clock.step(Math.min(stepMs, ms - done));
  }
  await new Promise((r) => setImmediate(r));
}

describe('ServiceAccountTokenSource', () => {
  it('creates the missing ServiceAccount and asks for a one-hour token', async () => {
    const clock = new FakeClock(Date.parse('2025-05-01T00:00:00Z'));
    const fake = fakeCore(clock);
    const source = new ServiceAccountTokenSource({
      core: fake.core,
      namespace: 'kube-system',
      name: 'deployment-controller',
      clock,
    });
    assert.equal(await source.get(), 'token-1');
    assert.deepEqual(
      fake.accounts.all().map((sa) => `${sa.metadata.namespace}/${sa.metadata.name}`),
      ['kube-system/deployment-controller'],
    );
    assert.equal(fake.requests.length, 1);
    assert.deepEqual((fake.requests[0]?.body as { spec?: unknown } | undefined)?.spec, { expirationSeconds: 3600 });
    // Cached: a second request, and many at once, share the token.
    assert.deepEqual(await Promise.all([source.get(), source.get(), source.get()]), ['token-1', 'token-1', 'token-1']);
    assert.equal(fake.requests.length, 1);
  });

  it('uses an existing ServiceAccount as it is', async () => {
    const clock = new FakeClock(Date.parse('2025-05-01T00:00:00Z'));
    const fake = fakeCore(clock);
    await fake.accounts.namespace('kube-system').create({ metadata: { name: 'job-controller', labels: { a: 'b' } } });
    const source = new ServiceAccountTokenSource({
      core: fake.core,
      namespace: 'kube-system',
      name: 'job-controller',
      clock,
    });
    await source.get();
    assert.equal(fake.accounts.actions.filter((a) => a.verb === 'create').length, 1);
    assert.deepEqual(fake.accounts.all()[0]?.metadata.labels, { a: 'b' });
  });

  it('renews the token once 80% of its lifetime has gone by, before it expires', async () => {
    const start = Date.parse('2025-05-01T00:00:00Z');
    const clock = new FakeClock(start);
    const fake = fakeCore(clock);
    const source = new ServiceAccountTokenSource({ core: fake.core, namespace: 'kube-system', name: 'x', clock });
    assert.equal(await source.get(), 'token-1');
    assert.equal(source.renewalTime, start + 2880_000);
    clock.step(2860_000);
    assert.equal(await source.get(), 'token-1');
    // Within client-go's 10 s of the renewal time: a new token, long before the first one expires at 3600 s.
    clock.step(15_000);
    assert.equal(await source.get(), 'token-2');
    assert.equal(fake.requests.length, 2);
    assert.equal(source.renewalTime, start + 2875_000 + 2880_000);
  });

  it('takes a token said to live less than 10 minutes as living 10 minutes (clock skew)', async () => {
    const start = Date.parse('2025-05-01T00:00:00Z');
    const clock = new FakeClock(start);
    const fake = fakeCore(clock);
    fake.state.lifetimeSeconds = 60;
    const source = new ServiceAccountTokenSource({ core: fake.core, namespace: 'kube-system', name: 'x', clock });
    await source.get();
    assert.equal(source.renewalTime, start + 480_000);
  });

  it('retries a failed TokenRequest with backoff, and fails after four tries', async () => {
    const clock = new FakeClock(Date.parse('2025-05-01T00:00:00Z'));
    const fake = fakeCore(clock);
    fake.state.failures = 2;
    const source = new ServiceAccountTokenSource({ core: fake.core, namespace: 'kube-system', name: 'x', clock });
    const first = source.get();
    await advance(clock, 2000);
    assert.equal(await first, 'token-3');
    assert.equal(fake.requests.length, 3);

    const clock2 = new FakeClock(Date.parse('2025-05-01T00:00:00Z'));
    const failing = fakeCore(clock2);
    failing.state.failures = 100;
    const source2 = new ServiceAccountTokenSource({
      core: failing.core,
      namespace: 'kube-system',
      name: 'y',
      clock: clock2,
    });
    const outcome = source2.get().catch((err: unknown) => err);
    await advance(clock2, 4000);
    const err = await outcome;
    assert.ok(err instanceof Error);
    assert.equal(err.message, 'failed to get token for kube-system/y: timed out waiting for the condition');
    assert.equal(failing.requests.length, 4);
  });

  it('keeps the token it has when renewal fails, and drops a token the server refused', async () => {
    const clock = new FakeClock(Date.parse('2025-05-01T00:00:00Z'));
    const fake = fakeCore(clock);
    const source = new ServiceAccountTokenSource({ core: fake.core, namespace: 'kube-system', name: 'x', clock });
    assert.equal(await source.get(), 'token-1');
    clock.step(2900_000);
    fake.state.failures = 100;
    const renewal = source.get();
    await advance(clock, 4000);
    assert.equal(await renewal, 'token-1');

    fake.state.failures = 0;
    source.reset('token-1');
    assert.equal(await source.get(), 'token-6');
    source.reset('token-1');
    assert.equal(await source.get(), 'token-6');
  });
});

const SA_USER = (name: string) => `system:serviceaccount:kube-system:${name}`;

describe('ControllerClientBuilder against a control plane', () => {
  let cp: ControlPlane;
  before(async () => {
    // No token cache, so that a deleted ServiceAccount's token is refused at the next request.
    cp = await startControlPlane({ storage: 'memory', authentication: { tokenSuccessCacheTTLMs: 0 } });
  });
  after(() => cp?.stop());

  const whoami = async (client: ReturnType<ControllerClientBuilder['client']>) => {
    const review = (await client.request({
      method: 'POST',
      path: '/apis/authentication.k8s.io/v1/selfsubjectreviews',
      body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' },
    })) as { status: { userInfo: { username: string; groups: string[] } } };
    return review.status.userInfo;
  };

  it('gives each name a client authenticated as kube-system/<name>, over one connection without the certificate', async () => {
    const builder = new ControllerClientBuilder({ root: cp.client });
    try {
      const deployments = builder.client('deployment-controller');
      assert.equal(builder.client('deployment-controller'), deployments);
      const user = await whoami(deployments);
      assert.equal(user.username, 'system:serviceaccount:kube-system:deployment-controller');
      assert.deepEqual(user.groups, [
        'system:serviceaccounts',
        'system:serviceaccounts:kube-system',
        'system:authenticated',
      ]);
      assert.equal(
        (await whoami(builder.client('job-controller'))).username,
        'system:serviceaccount:kube-system:job-controller',
      );
      // A client with its own rate limit keeps the identity.
      assert.equal(
        (await whoami(deployments.withRateLimit(100, 200))).username,
        'system:serviceaccount:kube-system:deployment-controller',
      );
      const sa = await cp.client.serviceAccounts('kube-system').get('deployment-controller');
      assert.equal(sa.metadata.name, 'deployment-controller');
    } finally {
      builder.close();
    }
  });

  it('makes the ServiceAccount when the client is made, before any request, with its own rate limit', async () => {
    const builder = new ControllerClientBuilder({ root: cp.client.withRateLimit(1, 1) });
    try {
      await assert.rejects(cp.client.serviceAccounts('kube-system').get('ttl-controller'), { code: 404 });
      builder.client('ttl-controller');
      const sa = await eventually(() => cp.client.serviceAccounts('kube-system').get('ttl-controller'));
      assert.equal(sa.metadata.name, 'ttl-controller');
      // No token was asked for yet: the TokenRequest waits for the controller's first request.
      assert.equal(builder.tokenSource('ttl-controller')?.renewalTime, undefined);
      assert.equal((await whoami(builder.client('ttl-controller'))).username, SA_USER('ttl-controller'));
    } finally {
      builder.close();
    }
  });

  it('gets a new token when the ServiceAccount was deleted and its token refused', async () => {
    const builder = new ControllerClientBuilder({ root: cp.client });
    try {
      const client = builder.client('pv-protection-controller');
      await whoami(client);
      const first = await builder.tokenSource('pv-protection-controller')?.get();
      await cp.client.serviceAccounts('kube-system').delete('pv-protection-controller');
      // The first request after the deletion is refused (401) and drops the token; the next one makes the SA again.
      const refused = await whoami(client).catch((err: unknown) => err);
      assert.ok(refused instanceof ApiError);
      assert.equal(refused.code, 401);
      assert.equal((await whoami(client)).username, 'system:serviceaccount:kube-system:pv-protection-controller');
      assert.notEqual(await builder.tokenSource('pv-protection-controller')?.get(), first);
    } finally {
      builder.close();
    }
  });
});
