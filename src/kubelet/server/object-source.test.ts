import { describe, it } from 'node:test';
import type { KubeClient } from '../../client/rest.js';
import type { KubeObject } from '../../client/types.js';
import assert from '../../testing/assert.js';
import { apiObjectSource } from './object-source.js';

const pod: KubeObject = {
  metadata: { name: 'web', namespace: 'shop', uid: 'u-1' },
  spec: { serviceAccountName: 'builder', nodeName: 'node-1', containers: [] },
};

describe('apiObjectSource service account tokens', () => {
  it('asks for a TokenRequest bound to the pod as its node, and keeps the token for 80% of its lifetime', async () => {
    let now = Date.parse('2026-12-06T00:00:00Z');
    const asked: { node: string | undefined; namespace: string; name: string; body: KubeObject }[] = [];
    const clientOf = (node: string | undefined) =>
      ({
        serviceAccounts: (namespace: string) => ({
          createSubresource: async (name: string, subresource: string, body: KubeObject) => {
            assert.equal(subresource, 'token');
            asked.push({ node, namespace, name, body });
            const expires = new Date(now + (body.spec?.expirationSeconds as number) * 1000).toISOString();
            return { ...body, status: { token: `t${asked.length}`, expirationTimestamp: expires } };
          },
        }),
      }) as unknown as KubeClient;
    const source = apiObjectSource(clientOf, () => now);
    const token = (audience = '') => source.serviceAccountToken?.(pod, { audience, expirationSeconds: 3600 }, 'node-1');
    assert.equal(await token(), 't1');
    assert.deepEqual(asked[0], {
      node: 'node-1',
      namespace: 'shop',
      name: 'builder',
      body: {
        apiVersion: 'authentication.k8s.io/v1',
        kind: 'TokenRequest',
        metadata: {},
        spec: { expirationSeconds: 3600, boundObjectRef: { apiVersion: 'v1', kind: 'Pod', name: 'web', uid: 'u-1' } },
      },
    });
    now += 2879_000;
    assert.equal(await token(), 't1', 'kept until 80% of the hour');
    assert.equal(await token('vault'), 't2', 'another audience is another token');
    assert.deepEqual(asked[1]?.body.spec?.audiences, ['vault']);
    now += 2_000;
    assert.equal(await token(), 't3', 'asked for again after 48 minutes');
    assert.equal(asked.length, 3);
  });
});
