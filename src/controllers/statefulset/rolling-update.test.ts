import { after, before, describe, it } from 'node:test';
import type { KubeObject } from '../../client/types.js';
import { type ControlPlane, startControlPlane } from '../../index.js';
import assert from '../../testing/assert.js';
import { eventually, runControllers } from '../../testing/controllers.js';
import { FakeClock } from '../../util/clock.js';
import type { ControllerManager } from '../manager.js';
import { statefulSetController } from './index.js';
import {
  createNamespace,
  getSet,
  markAllReady,
  podNames,
  podsOf,
  setPodPhase,
  statefulSetManifest,
} from './test-fixtures.js';

let cp: ControlPlane;
let manager: ControllerManager;
let kubelet: NodeJS.Timeout;
const watched = new Set<string>();

const revisionOf = (pod: KubeObject) => pod.metadata.labels?.['controller-revision-hash'];
const imageOf = (pod: KubeObject) => pod.spec.containers[0].image;
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Creates a set and waits until all its pods are Running and Ready (a stand-in kubelet marks them). */
async function readySet(ns: string, name: string, spec: Parameters<typeof statefulSetManifest>[1] = {}) {
  await createNamespace(cp.client, ns);
  watched.add(`${ns}/${name}`);
  await cp.client.statefulSets(ns).create(statefulSetManifest(name, spec));
  return eventually(async () => {
    const set = await getSet(cp.client, ns, name);
    assert.equal(set.status?.readyReplicas, set.spec.replicas, 'all ready');
    assert.equal(set.status?.updatedReplicas, set.spec.replicas, 'all updated');
    return set;
  });
}

async function setImage(ns: string, name: string, image: string): Promise<void> {
  await cp.client.statefulSets(ns).patch(name, 'strategic', {
    spec: { template: { spec: { containers: [{ name: 'app', image }] } } },
  });
}

describe('statefulset controller: updates and revisions', () => {
  before(async () => {
    cp = await startControlPlane({ storage: 'memory' });
    manager = await runControllers(cp, [statefulSetController]);
    // Stands in for kubelets: pods of the watched sets become Running and Ready shortly after they appear.
    let busy = false;
    kubelet = setInterval(() => {
      if (busy) return;
      busy = true;
      Promise.all(
        [...watched].map((key) => {
          const [ns, name] = key.split('/') as [string, string];
          return markAllReady(cp.client, ns, name);
        }),
      )
        .catch(() => {})
        .finally(() => {
          busy = false;
        });
    }, 30);
  });
  after(async () => {
    clearInterval(kubelet);
    await manager?.stop();
    await cp?.stop();
  });

  it('RollingUpdate with a partition updates only the ordinals at or above it, highest first', async () => {
    const before = await readySet('partition', 'web', {
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 2 } },
      replicas: 4,
    });
    const oldRevision = before.status?.currentRevision;
    await setImage('partition', 'web', 'nginx:1.26');
    const set = await eventually(async () => {
      const s = await getSet(cp.client, 'partition', 'web');
      assert.notEqual(s.status?.updateRevision, oldRevision, 'a new update revision');
      assert.equal(s.status?.updatedReplicas, 2, 'two pods updated');
      assert.equal(s.status?.currentReplicas, 2, 'two pods current');
      assert.equal(s.status?.readyReplicas, 4, 'all ready');
      return s;
    });
    assert.equal(set.status?.currentRevision, oldRevision, 'a partitioned rollout keeps the current revision');
    assert.equal(set.status?.observedGeneration, 2);
    const pods = await podsOf(cp.client, 'partition', 'web');
    assert.deepEqual(pods.map(imageOf), ['nginx:1.25', 'nginx:1.25', 'nginx:1.26', 'nginx:1.26']);
    assert.deepEqual(pods.map(revisionOf), [
      oldRevision,
      oldRevision,
      set.status?.updateRevision,
      set.status?.updateRevision,
    ]);
    const deleted = (await cp.client.events('partition').list()).items
      .filter((e) => e.reason === 'SuccessfulDelete')
      .map((e) => e.message);
    assert.deepEqual(deleted, [
      'delete Pod web-3 in StatefulSet web successful',
      'delete Pod web-2 in StatefulSet web successful',
    ]);

    // Lowering the partition to 0 finishes the rollout: the update revision becomes current.
    await cp.client.statefulSets('partition').patch('web', 'merge', {
      spec: { updateStrategy: { rollingUpdate: { partition: 0 } } },
    });
    await eventually(async () => {
      const s = await getSet(cp.client, 'partition', 'web');
      assert.equal(s.status?.currentRevision, set.status?.updateRevision, 'rollout complete');
      assert.equal(s.status?.currentReplicas, 4, 'all current');
      assert.equal(s.status?.updatedReplicas, 4, 'all updated');
    });
    assert.deepEqual((await podsOf(cp.client, 'partition', 'web')).map(imageOf), Array(4).fill('nginx:1.26'));
  });

  it('a template reverted to an earlier one reuses that revision under a new number', async () => {
    const set = await readySet('rollback', 'db', { replicas: 2 });
    const first = set.status?.currentRevision;
    await setImage('rollback', 'db', 'nginx:1.26');
    const second = await eventually(async () => {
      const s = await getSet(cp.client, 'rollback', 'db');
      assert.equal(s.status?.updatedReplicas, 2, 'updated');
      assert.notEqual(s.status?.currentRevision, first, 'rolled');
      assert.equal(s.status?.currentRevision, s.status?.updateRevision, 'complete');
      return s.status?.currentRevision;
    });
    await setImage('rollback', 'db', 'nginx:1.25');
    await eventually(async () => {
      const s = await getSet(cp.client, 'rollback', 'db');
      assert.equal(s.status?.currentRevision, first, 'back on the first revision');
      assert.equal(s.status?.updatedReplicas, 2, 'updated');
    });
    const revisions = (await cp.client.controllerRevisions('rollback').list()).items;
    const numbers = Object.fromEntries(revisions.map((r) => [r.metadata.name, r.revision]));
    assert.deepEqual(numbers, { [first as string]: 3, [second as string]: 2 });
  });

  it('OnDelete leaves pods alone until they are deleted', async () => {
    await readySet('ondelete', 'od', { replicas: 2, updateStrategy: { type: 'OnDelete' } });
    await setImage('ondelete', 'od', 'nginx:1.26');
    await eventually(async () => {
      const s = await getSet(cp.client, 'ondelete', 'od');
      assert.notEqual(s.status?.updateRevision, s.status?.currentRevision, 'new update revision');
    });
    await pause(200);
    assert.deepEqual((await podsOf(cp.client, 'ondelete', 'od')).map(imageOf), ['nginx:1.25', 'nginx:1.25']);
    await cp.client.pods('ondelete').delete('od-1');
    await eventually(async () => {
      const pods = await podsOf(cp.client, 'ondelete', 'od');
      assert.deepEqual(pods.map(imageOf), ['nginx:1.25', 'nginx:1.26'], 'od-1 recreated at the update revision');
      const s = await getSet(cp.client, 'ondelete', 'od');
      assert.equal(s.status?.updatedReplicas, 1, 'one updated');
      assert.equal(s.status?.currentReplicas, 1, 'one current');
    });
  });

  it('keeps revisionHistoryLimit unused revisions', async () => {
    await readySet('limit', 'h', { replicas: 1, revisionHistoryLimit: 1 });
    for (const image of ['nginx:1.26', 'nginx:1.27', 'nginx:1.28']) {
      await setImage('limit', 'h', image);
      await eventually(async () => {
        const [pod] = await podsOf(cp.client, 'limit', 'h');
        assert.equal(pod && imageOf(pod), image, 'pod updated');
        const s = await getSet(cp.client, 'limit', 'h');
        assert.equal(s.status?.currentRevision, s.status?.updateRevision, 'complete');
      });
    }
    await eventually(async () => {
      const revisions = (await cp.client.controllerRevisions('limit').list()).items;
      // The live revision plus one older.
      assert.deepEqual(revisions.map((r) => r.revision).sort(), [3, 4], 'history limited');
    });
  });
});

describe('statefulset controller: minReadySeconds on a fake clock', () => {
  let fcp: ControlPlane;
  let fmanager: ControllerManager;
  const clock = new FakeClock(Date.parse('2026-03-01T00:00:00Z'));
  before(async () => {
    fcp = await startControlPlane({ storage: 'memory' });
    fmanager = await runControllers(fcp, [statefulSetController], { clock });
  });
  after(async () => {
    await fmanager?.stop();
    await fcp?.stop();
  });

  it('waits for each pod to be available for minReadySeconds before the next', async () => {
    const ns = await createNamespace(fcp.client, 'minready');
    await fcp.client.statefulSets(ns).create(statefulSetManifest('m', { replicas: 2, minReadySeconds: 10 }));
    await eventually(async () => assert.equal(podNames(await podsOf(fcp.client, ns, 'm')), 'm-0', 'm-0 created'));
    await setPodPhase(fcp.client, ns, 'm-0', 'Running', clock.now());
    await eventually(async () => {
      const s = await getSet(fcp.client, ns, 'm');
      assert.equal(s.status?.readyReplicas, 1, 'ready');
      assert.equal(s.status?.availableReplicas, 0, 'not yet available');
    });
    await pause(200);
    assert.equal(podNames(await podsOf(fcp.client, ns, 'm')), 'm-0', 'm-1 waits for m-0 to be available');
    clock.step(11_000);
    await eventually(async () => {
      assert.equal(podNames(await podsOf(fcp.client, ns, 'm')), 'm-0,m-1', 'm-1 created');
      assert.equal((await getSet(fcp.client, ns, 'm')).status?.availableReplicas, 1, 'm-0 available');
    });
  });
});
