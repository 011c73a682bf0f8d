import { after, before, describe, it } from 'node:test';
import { type ControlPlane, startControlPlane } from '../../index.js';
import assert from '../../testing/assert.js';
import { eventually, runControllers } from '../../testing/controllers.js';
import type { ControllerManager } from '../manager.js';
import { isClaimOwnerUpToDate, updateClaimOwnerRefs } from './claims.js';
import { statefulSetController } from './index.js';
import { createNamespace, eventMessages, getSet, podsOf, setPodPhase, statefulSetManifest } from './test-fixtures.js';
import type { RetentionPolicyType, StatefulSet } from './types.js';

const CLAIMS = { group: '', version: 'v1', resource: 'persistentvolumeclaims' };
const claimTemplate = {
  metadata: { name: 'data', labels: { tier: 'db' } },
  spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
};

function setWithPolicy(whenScaled: RetentionPolicyType, whenDeleted: RetentionPolicyType): StatefulSet {
  const set = statefulSetManifest('web', {
    replicas: 2,
    persistentVolumeClaimRetentionPolicy: { whenScaled, whenDeleted },
  });
  set.metadata = { name: 'web', namespace: 'ns', uid: 'set-uid' };
  return set;
}

const pod = (ordinal: number) => ({ metadata: { name: `web-${ordinal}`, namespace: 'ns', uid: `pod-${ordinal}` } });
const claim = () =>
  ({ metadata: { name: 'data-web-0', namespace: 'ns' } }) as Parameters<typeof updateClaimOwnerRefs>[0];
const owners = (c: ReturnType<typeof claim>) => (c.metadata.ownerReferences ?? []).map((r) => `${r.kind}/${r.name}`);

describe('persistentVolumeClaimRetentionPolicy owners', () => {
  const cases: [RetentionPolicyType, RetentionPolicyType, string[], string[]][] = [
    // whenScaled, whenDeleted, owners of a claim of a pod in range, of a pod scaled away
    ['Retain', 'Retain', [], []],
    ['Retain', 'Delete', ['StatefulSet/web'], ['StatefulSet/web']],
    ['Delete', 'Retain', [], ['Pod/web-5']],
    ['Delete', 'Delete', ['StatefulSet/web'], ['Pod/web-5']],
  ];
  for (const [whenScaled, whenDeleted, inRange, scaledAway] of cases) {
    it(`whenScaled ${whenScaled}, whenDeleted ${whenDeleted}`, () => {
      const set = setWithPolicy(whenScaled, whenDeleted);
      const c = claim();
      updateClaimOwnerRefs(c, set, pod(0));
      assert.deepEqual(owners(c), inRange);
      assert.ok(isClaimOwnerUpToDate(c, set, pod(0)));
      const away = claim();
      updateClaimOwnerRefs(away, set, pod(5));
      assert.deepEqual(owners(away), scaledAway);
      assert.ok(isClaimOwnerUpToDate(away, set, pod(5)));
      for (const ref of away.metadata.ownerReferences ?? []) assert.equal(ref.controller, true);
    });
  }

  it('leaves a claim held by an earlier set of the same name alone', () => {
    const set = setWithPolicy('Delete', 'Delete');
    const c = claim();
    c.metadata.ownerReferences = [{ apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'web', uid: 'old-uid' }];
    assert.ok(isClaimOwnerUpToDate(c, set, pod(0)));
  });
});

describe('statefulset controller: volumeClaimTemplates', () => {
  let cp: ControlPlane;
  let manager: ControllerManager;
  before(async () => {
    cp = await startControlPlane({ storage: 'memory' });
    manager = await runControllers(cp, [statefulSetController]);
  });
  after(async () => {
    await manager?.stop();
    await cp?.stop();
  });

  it('creates each pod claim before the pod, and points the pod at it', async () => {
    const ns = await createNamespace(cp.client, 'claims');
    await cp.client
      .statefulSets(ns)
      .create(statefulSetManifest('web', { replicas: 2, volumeClaimTemplates: [claimTemplate] }));
    await eventually(async () => assert.equal((await podsOf(cp.client, ns, 'web')).length, 1, 'web-0'));
    const claimObj = await cp.client.resource(CLAIMS).namespace(ns).get('data-web-0');
    assert.deepEqual(claimObj.metadata.labels, { tier: 'db', app: 'web' });
    assert.equal(claimObj.metadata.ownerReferences, undefined, 'Retain/Retain: no owners');
    assert.deepEqual(claimObj.spec.resources, { requests: { storage: '1Gi' } });
    const web0 = await cp.client.pods(ns).get('web-0');
    assert.deepEqual(web0.spec.volumes?.[0], { name: 'data', persistentVolumeClaim: { claimName: 'data-web-0' } });
    assert.ok(
      Date.parse(claimObj.metadata.creationTimestamp ?? '') <= Date.parse(web0.metadata.creationTimestamp ?? ''),
      'the claim is older than the pod',
    );
    assert.deepEqual(await eventMessages(cp.client, ns, 'SuccessfulCreate'), [
      'create Claim data-web-0 Pod web-0 in StatefulSet web success',
      'create Pod web-0 in StatefulSet web successful',
    ]);
  });

  it('whenDeleted/whenScaled Delete: claims owned by the set, then by the pod when it is scaled away', async () => {
    const ns = await createNamespace(cp.client, 'retention');
    await cp.client.statefulSets(ns).create(
      statefulSetManifest('web', {
        replicas: 2,
        volumeClaimTemplates: [claimTemplate],
        persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Delete', whenScaled: 'Delete' },
      }),
    );
    const set = await getSet(cp.client, ns, 'web');
    for (let i = 0; i < 2; i++) {
      await eventually(async () => assert.ok((await podsOf(cp.client, ns, 'web'))[i], `web-${i}`));
      await setPodPhase(cp.client, ns, `web-${i}`, 'Running');
    }
    await eventually(async () => {
      const c = await cp.client.resource(CLAIMS).namespace(ns).get('data-web-1');
      assert.deepEqual(
        c.metadata.ownerReferences?.map((r) => [r.kind, r.uid, r.controller]),
        [['StatefulSet', set.metadata.uid, true]],
        'owned by the set',
      );
    });
    const web1 = await cp.client.pods(ns).get('web-1');
    await cp.client.statefulSets(ns).patch('web', 'merge', { spec: { replicas: 1 } });
    await eventually(async () => {
      const c = await cp.client.resource(CLAIMS).namespace(ns).get('data-web-1');
      assert.deepEqual(
        c.metadata.ownerReferences?.map((r) => [r.kind, r.name, r.uid]),
        [['Pod', 'web-1', web1.metadata.uid]],
        'owned by the scaled-away pod',
      );
      assert.equal((await podsOf(cp.client, ns, 'web')).length, 1, 'web-1 deleted');
    });
    const c0 = await cp.client.resource(CLAIMS).namespace(ns).get('data-web-0');
    assert.deepEqual(
      c0.metadata.ownerReferences?.map((r) => r.kind),
      ['StatefulSet'],
    );
  });
});
