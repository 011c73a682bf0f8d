import { after, before, describe, it } from 'node:test';
import { type ControlPlane, startControlPlane } from '../../index.js';
import assert from '../../testing/assert.js';
import { eventually, runControllers } from '../../testing/controllers.js';
import type { ControllerManager } from '../manager.js';
import { statefulSetController } from './index.js';
import {
  createNamespace,
  eventMessages,
  getSet,
  podNames,
  podsOf,
  setPodPhase,
  statefulSetManifest,
} from './test-fixtures.js';

let cp: ControlPlane;
let manager: ControllerManager;

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('statefulset controller: pods', () => {
  before(async () => {
    cp = await startControlPlane({ storage: 'memory' });
    manager = await runControllers(cp, [statefulSetController]);
  });
  after(async () => {
    await manager?.stop();
    await cp?.stop();
  });

  it('OrderedReady creates pods one at a time in ordinal order, each after the previous is Running and Ready', async () => {
    const ns = await createNamespace(cp.client, 'ordered');
    await cp.client.statefulSets(ns).create(statefulSetManifest('web'));
    for (let ordinal = 0; ordinal < 3; ordinal++) {
      const expected = Array.from({ length: ordinal + 1 }, (_, i) => `web-${i}`).join(',');
      await eventually(async () => {
        assert.equal(podNames(await podsOf(cp.client, ns, 'web')), expected, 'pods so far');
        assert.equal((await getSet(cp.client, ns, 'web')).status?.replicas, ordinal + 1, 'status.replicas');
      });
      // Nothing more happens while the newest pod is not ready.
      await pause(200);
      assert.equal(podNames(await podsOf(cp.client, ns, 'web')), expected, 'no pod before the previous is ready');
      await setPodPhase(cp.client, ns, `web-${ordinal}`, 'Running');
    }
    const set = await eventually(async () => {
      const s = await getSet(cp.client, ns, 'web');
      assert.equal(s.status?.readyReplicas, 3, 'readyReplicas');
      assert.equal(s.status?.availableReplicas, 3, 'availableReplicas');
      assert.equal(s.status?.currentReplicas, 3, 'currentReplicas');
      assert.equal(s.status?.updatedReplicas, 3, 'updatedReplicas');
      return s;
    });
    assert.equal(set.status?.observedGeneration, 1);
    assert.equal(set.status?.collisionCount, 0);
    assert.match(set.status?.currentRevision ?? '', /^web-[a-z0-9]+$/);
    assert.equal(set.status?.currentRevision, set.status?.updateRevision);

    const pods = await podsOf(cp.client, ns, 'web');
    for (const [i, pod] of pods.entries()) {
      assert.equal(pod.metadata.name, `web-${i}`);
      assert.equal(pod.metadata.generateName, 'web-');
      assert.deepEqual(pod.metadata.labels, {
        app: 'web',
        'statefulset.kubernetes.io/pod-name': `web-${i}`,
        'apps.kubernetes.io/pod-index': String(i),
        'controller-revision-hash': set.status?.currentRevision,
      });
      assert.equal(pod.spec.hostname, `web-${i}`);
      assert.equal(pod.spec.subdomain, 'web');
      const [ref] = pod.metadata.ownerReferences ?? [];
      assert.deepEqual(ref, {
        apiVersion: 'apps/v1',
        kind: 'StatefulSet',
        name: 'web',
        uid: set.metadata.uid,
        controller: true,
        blockOwnerDeletion: true,
      });
    }
    const created = await eventMessages(cp.client, ns, 'SuccessfulCreate');
    assert.deepEqual(created, [
      'create Pod web-0 in StatefulSet web successful',
      'create Pod web-1 in StatefulSet web successful',
      'create Pod web-2 in StatefulSet web successful',
    ]);

    // The revision records the template as upstream's patch.
    const revisions = (await cp.client.controllerRevisions(ns).list()).items;
    assert.equal(revisions.length, 1);
    const [revision] = revisions;
    assert.equal(revision?.metadata.name, set.status?.currentRevision);
    assert.equal(revision?.revision, 1);
    assert.equal(revision?.metadata.labels?.app, 'web');
    assert.ok(revision?.metadata.labels?.['controller.kubernetes.io/hash'], 'hash label');
    assert.equal(revision?.data.spec.template.$patch, 'replace');
    assert.deepEqual(revision?.data.spec.template.spec.containers[0].image, 'nginx:1.25');
  });

  it('scales down in reverse ordinal order, one pod at a time', async () => {
    const ns = 'ordered';
    await cp.client.statefulSets(ns).patch('web', 'merge', { spec: { replicas: 1 } });
    await eventually(async () => {
      assert.equal(podNames(await podsOf(cp.client, ns, 'web')), 'web-0', 'scaled down to web-0');
      const s = await getSet(cp.client, ns, 'web');
      assert.equal(s.status?.replicas, 1, 'status.replicas');
      assert.equal(s.status?.readyReplicas, 1, 'status.readyReplicas');
    });
    assert.deepEqual(await eventMessages(cp.client, ns, 'SuccessfulDelete'), [
      'delete Pod web-2 in StatefulSet web successful',
      'delete Pod web-1 in StatefulSet web successful',
    ]);
  });

  it('waits for a not-ready pod before scaling down past it', async () => {
    const ns = await createNamespace(cp.client, 'blocked');
    await cp.client.statefulSets(ns).create(statefulSetManifest('db', { replicas: 3 }));
    for (let i = 0; i < 3; i++) {
      await eventually(async () => assert.ok((await podsOf(cp.client, ns, 'db'))[i], `db-${i} exists`));
      await setPodPhase(cp.client, ns, `db-${i}`, 'Running');
    }
    // db-0 stops being ready: scale-down may remove the first unhealthy pod only, so db-2 stays.
    await eventually(async () => assert.equal((await getSet(cp.client, ns, 'db')).status?.readyReplicas, 3, 'ready'));
    const pod = await cp.client.pods(ns).get('db-0');
    pod.status.conditions = [{ type: 'Ready', status: 'False', lastTransitionTime: new Date().toISOString() }];
    await cp.client.pods(ns).updateStatus(pod);
    await eventually(async () => assert.equal((await getSet(cp.client, ns, 'db')).status?.readyReplicas, 2, 'ready'));
    await cp.client.statefulSets(ns).patch('db', 'merge', { spec: { replicas: 2 } });
    await pause(300);
    assert.equal(podNames(await podsOf(cp.client, ns, 'db')), 'db-0,db-1,db-2', 'db-2 kept while db-0 is unready');
    await setPodPhase(cp.client, ns, 'db-0', 'Running');
    await eventually(async () => assert.equal(podNames(await podsOf(cp.client, ns, 'db')), 'db-0,db-1', 'scaled'));
  });

  it('Parallel creates and deletes all pods at once', async () => {
    const ns = await createNamespace(cp.client, 'parallel');
    await cp.client.statefulSets(ns).create(statefulSetManifest('par', { podManagementPolicy: 'Parallel' }));
    await eventually(async () =>
      assert.equal(podNames(await podsOf(cp.client, ns, 'par')), 'par-0,par-1,par-2', 'all pods without readiness'),
    );
    await cp.client.statefulSets(ns).patch('par', 'merge', { spec: { replicas: 0 } });
    await eventually(async () => assert.equal((await podsOf(cp.client, ns, 'par')).length, 0, 'all deleted'));
  });

  it('ordinals.start numbers the pods from the given ordinal', async () => {
    const ns = await createNamespace(cp.client, 'start');
    await cp.client
      .statefulSets(ns)
      .create(statefulSetManifest('s', { replicas: 2, ordinals: { start: 5 }, podManagementPolicy: 'Parallel' }));
    const pods = await eventually(async () => {
      const p = await podsOf(cp.client, ns, 's');
      assert.equal(podNames(p), 's-5,s-6', 'pods from ordinal 5');
      return p;
    });
    assert.equal(pods[0]?.metadata.labels?.['apps.kubernetes.io/pod-index'], '5');
  });

  it('deletes a failed pod and creates it again', async () => {
    const ns = await createNamespace(cp.client, 'failed');
    await cp.client.statefulSets(ns).create(statefulSetManifest('f', { replicas: 1 }));
    const first = await eventually(async () => {
      const [p] = await podsOf(cp.client, ns, 'f');
      assert.ok(p, 'f-0 created');
      return p;
    });
    await setPodPhase(cp.client, ns, 'f-0', 'Failed');
    await eventually(async () => {
      const [p] = await podsOf(cp.client, ns, 'f');
      assert.ok(p && p.metadata.uid !== first.metadata.uid, 'f-0 recreated');
    });
    assert.deepEqual(await eventMessages(cp.client, ns, 'SuccessfulDelete'), [
      'delete Pod f-0 in StatefulSet f successful',
    ]);
  });

  it('adopts an orphan pod named as a member and matching the selector', async () => {
    const ns = await createNamespace(cp.client, 'adopt');
    await cp.client.pods(ns).create({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'a-0', labels: { app: 'a' } },
      spec: { containers: [{ name: 'app', image: 'nginx:1.25' }] },
    });
    await setPodPhase(cp.client, ns, 'a-0', 'Running');
    await cp.client.statefulSets(ns).create(statefulSetManifest('a', { replicas: 2 }));
    const set = await getSet(cp.client, ns, 'a');
    await eventually(async () => {
      const pod = await cp.client.pods(ns).get('a-0');
      assert.equal(pod.metadata.ownerReferences?.[0]?.uid, set.metadata.uid, 'adopted');
      // Its identity label is repaired, and a-1 follows since a-0 is ready.
      assert.equal(pod.metadata.labels?.['statefulset.kubernetes.io/pod-name'], 'a-0', 'identity');
      assert.ok(await cp.client.pods(ns).get('a-1'), 'a-1 created');
    });
    assert.ok(
      (await eventMessages(cp.client, ns, 'SuccessfulUpdate')).includes('update Pod a-0 in StatefulSet a successful'),
    );
  });
});
