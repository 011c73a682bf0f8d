import { after, before, describe, it } from 'node:test';
import { type ControlPlane, startControlPlane } from '../../src/index.js';
import { apiRequest } from '../../src/testing/api-client.js';
import assert from '../../src/testing/assert.js';

/** A StatefulSet's claim templates as upstream's apps/v1 conversion writes them: typed v1 PersistentVolumeClaim. */
const STS = '/apis/apps/v1/namespaces/default/statefulsets';
const statefulSet = (name: string, claim: Record<string, unknown>) => ({
  metadata: { name },
  spec: {
    serviceName: name,
    selector: { matchLabels: { app: name } },
    template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } },
    volumeClaimTemplates: [
      { ...claim, metadata: { name: 'data' }, spec: { resources: { requests: { storage: '1Gi' } } } },
    ],
  },
});

describe('StatefulSet claim templates', () => {
  let cp: ControlPlane;
  before(async () => {
    cp = await startControlPlane();
  });
  after(async () => {
    await cp?.stop();
  });

  it('say apiVersion v1 and kind PersistentVolumeClaim, whatever they were given', async () => {
    for (const [name, claim] of [
      ['untyped', {}],
      ['mistyped', { kind: 'Claim', apiVersion: 'v2' }],
    ] as const) {
      const res = await apiRequest(cp, 'POST', STS, { body: statefulSet(name, claim) });
      assert.equal(res.status, 201, res.text);
      const [template] = res.body.spec.volumeClaimTemplates;
      assert.deepEqual(Object.keys(template).slice(0, 3), ['apiVersion', 'kind', 'metadata'], name);
      assert.equal(template.apiVersion, 'v1');
      assert.equal(template.kind, 'PersistentVolumeClaim');
    }
  });

  it('do not make an update of a set stored without their type a change of them', async () => {
    const key = '/registry/statefulsets/default/untyped';
    const kv = await cp.storage.get(key);
    assert.ok(kv);
    const stored = JSON.parse(kv.value.toString());
    for (const claim of stored.spec.volumeClaimTemplates) {
      delete claim.apiVersion;
      delete claim.kind;
    }
    await cp.storage.update(key, JSON.stringify(stored), kv.modRevision);
    const res = await apiRequest(cp, 'PATCH', `${STS}/untyped`, {
      body: { spec: { replicas: 2 } },
      contentType: 'application/merge-patch+json',
    });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.spec.volumeClaimTemplates[0].kind, 'PersistentVolumeClaim');
    const changed = await apiRequest(cp, 'PATCH', `${STS}/untyped`, {
      body: { spec: { volumeClaimTemplates: [{ metadata: { name: 'other' } }] } },
      contentType: 'application/merge-patch+json',
    });
    assert.equal(changed.status, 422, changed.text);
  });
});
