import { after, before, describe, it } from 'node:test';
import type { ControllerManager } from '../../controllers/manager.js';
import { type ControlPlane, startControlPlane } from '../../index.js';
import assert from '../../testing/assert.js';
import { eventually, runControllers } from '../../testing/controllers.js';
import {
  condition,
  createNamespace,
  deploymentManifest,
  driveRollout,
  getDeployment,
  markAllReady,
  podsOf,
  replicaSetsOf,
  snapshot,
} from '../../testing/deployment-fixtures.js';
import { replicaSetController } from '../replicaset/index.js';
import { deploymentController } from './index.js';
import { computeHash } from './util/hash.js';
import type { Deployment, ReplicaSet } from './util/types.js';

const REVISION = 'deployment.kubernetes.io/revision';

describe('deployment controller', () => {
  let cp: ControlPlane;
  let manager: ControllerManager;
  const ns = 'deploy';

  before(async () => {
    cp = await startControlPlane({ storage: 'memory' });
    manager = await runControllers(cp, [deploymentController, replicaSetController]);
    await createNamespace(cp.client, ns);
  });
  after(async () => {
    await manager?.stop();
    await cp?.stop();
  });

  const client = () => cp.client;
  const setImage = (name: string, image: string) =>
    client()
      .deployments(ns)
      .patch(name, 'strategic', { spec: { template: { spec: { containers: [{ name: 'app', image }] } } } });
  const eventMessages = async (name: string) =>
    (await client().events(ns).list()).items
      .filter((e) => e.involvedObject?.name === name && e.involvedObject?.kind === 'Deployment')
      .map((e) => `${e.reason}: ${e.message}`);
  /** Waits for an event of the Deployment (events are written asynchronously). */
  const expectEvent = (name: string, expected: string | RegExp) =>
    eventually(async () => {
      const events = await eventMessages(name);
      const found = events.some((e) => (typeof expected === 'string' ? e === expected : expected.test(e)));
      assert.ok(found, `no event ${expected} among ${JSON.stringify(events)}`);
    });

  let firstRS: ReplicaSet;

  it('creates one ReplicaSet per template, named and labelled by its pod-template-hash, with revision 1', async () => {
    await client()
      .deployments(ns)
      .create(deploymentManifest('web', { replicas: 4, annotations: { 'kubernetes.io/change-cause': 'first' } }));
    const d = await getDeployment(client(), ns, 'web');
    const [rs] = await eventually(async () => {
      const sets = await replicaSetsOf(client(), d);
      assert.equal(sets.length, 1);
      return sets;
    });
    assert.ok(rs, 'no ReplicaSet');
    firstRS = rs;
    const hash = rs.metadata.labels?.['pod-template-hash'];
    assert.ok(hash, 'no pod-template-hash label');
    assert.equal(rs.metadata.name, `web-${hash}`);
    assert.deepEqual(rs.spec.selector?.matchLabels, { app: 'web', 'pod-template-hash': hash });
    assert.equal(rs.spec.template?.metadata?.labels?.['pod-template-hash'], hash);
    assert.equal(rs.spec.replicas, 4);
    assert.equal(rs.metadata.annotations?.[REVISION], '1');
    assert.equal(rs.metadata.annotations?.['deployment.kubernetes.io/desired-replicas'], '4');
    assert.equal(rs.metadata.annotations?.['deployment.kubernetes.io/max-replicas'], '5');
    assert.equal(rs.metadata.annotations?.['kubernetes.io/change-cause'], 'first');
    const owner = rs.metadata.ownerReferences?.[0];
    assert.deepEqual(owner, {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      name: 'web',
      uid: d.metadata.uid,
      controller: true,
      blockOwnerDeletion: true,
    });

    const pods = await eventually(async () => {
      const p = await podsOf(client(), ns, 'web');
      assert.equal(p.length, 4);
      return p;
    });
    for (const pod of pods) assert.equal(pod.metadata.labels?.['pod-template-hash'], hash);

    await markAllReady(client(), ns, 'web');
    const done = await eventually(async () => {
      const cur = await getDeployment(client(), ns, 'web');
      assert.equal(cur.status?.availableReplicas, 4);
      assert.equal(condition(cur, 'Progressing')?.reason, 'NewReplicaSetAvailable');
      return cur;
    });
    assert.equal(done.metadata.annotations?.[REVISION], '1');
    await expectEvent('web', `ScalingReplicaSet: Scaled up replica set web-${hash} from 0 to 4`);
  });

  it('rolls out a new template within maxSurge and maxUnavailable, ending with upstream’s status', async () => {
    await setImage('web', 'nginx:1.26');
    // 4 replicas, 25% / 25%: at most 5 pods, at least 3 ready.
    const end = await driveRollout(client(), ns, 'web', { maxPods: 5, minReady: 3 }, eventually);
    const d = end.d;
    assert.equal(end.sets.length, 2);
    const [old, cur] = end.sets as [ReplicaSet, ReplicaSet];
    assert.equal(old.metadata.uid, firstRS.metadata.uid);
    assert.equal(old.spec.replicas, 0);
    assert.equal(cur.metadata.annotations?.[REVISION], '2');
    assert.notEqual(cur.metadata.name, firstRS.metadata.name);
    for (const pod of end.pods)
      assert.equal(pod.metadata.labels?.['pod-template-hash'], cur.metadata.labels?.['pod-template-hash']);

    const final = await eventually(async () => {
      const x = await getDeployment(client(), ns, 'web');
      assert.equal(condition(x, 'Progressing')?.reason, 'NewReplicaSetAvailable');
      assert.equal(x.metadata.annotations?.[REVISION], '2');
      return x;
    });
    assert.equal(final.status?.observedGeneration, d.metadata.generation);
    assert.equal(final.status?.replicas, 4);
    assert.equal(final.status?.updatedReplicas, 4);
    assert.equal(final.status?.readyReplicas, 4);
    assert.equal(final.status?.availableReplicas, 4);
    assert.equal(final.status?.unavailableReplicas ?? 0, 0);
    const available = condition(final, 'Available');
    assert.equal(available?.status, 'True');
    assert.equal(available?.reason, 'MinimumReplicasAvailable');
    assert.equal(available?.message, 'Deployment has minimum availability.');
    const progressing = condition(final, 'Progressing');
    assert.equal(progressing?.status, 'True');
    assert.equal(progressing?.message, `ReplicaSet "${cur.metadata.name}" has successfully progressed.`);
    assert.match(progressing?.lastUpdateTime ?? '', /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);

    await expectEvent('web', `ScalingReplicaSet: Scaled up replica set ${cur.metadata.name} from 0 to 1`);
    await expectEvent(
      'web',
      new RegExp(`^ScalingReplicaSet: Scaled down replica set ${old.metadata.name} from 4 to 3$`),
    );
  });

  it('re-uses the first ReplicaSet with revision 3 when the template is reverted', async () => {
    await setImage('web', 'nginx:1.25');
    const end = await driveRollout(client(), ns, 'web', { maxPods: 5, minReady: 3 }, eventually);
    assert.equal(end.sets.length, 2);
    const reused = end.sets.find((rs) => rs.metadata.uid === firstRS.metadata.uid);
    assert.ok(reused, 'the first ReplicaSet was not re-used');
    assert.equal(reused.spec.replicas, 4);
    assert.equal(reused.metadata.annotations?.[REVISION], '3');
    assert.equal(reused.metadata.annotations?.['deployment.kubernetes.io/revision-history'], '1');
    await eventually(async () => {
      assert.equal((await getDeployment(client(), ns, 'web')).metadata.annotations?.[REVISION], '3');
    });
  });

  it('Recreate: scales the old ReplicaSet to 0 and creates the new one once its pods are gone', async () => {
    await client()
      .deployments(ns)
      .create(deploymentManifest('batch', { replicas: 3, strategy: 'Recreate' }));
    await eventually(async () => assert.equal((await podsOf(client(), ns, 'batch')).length, 3));
    await markAllReady(client(), ns, 'batch');
    await eventually(async () =>
      assert.equal(
        condition(await getDeployment(client(), ns, 'batch'), 'Progressing')?.reason,
        'NewReplicaSetAvailable',
      ),
    );
    const oldHash = (await podsOf(client(), ns, 'batch'))[0]?.metadata.labels?.['pod-template-hash'];

    // Follow the pods: a pod of the new template never lives beside one of the old.
    const live = new Map<string, string>();
    let overlap = false;
    const list = await client().pods(ns).list({ labelSelector: 'app=batch' });
    for (const p of list.items) live.set(p.metadata.name ?? '', p.metadata.labels?.['pod-template-hash'] ?? '');
    const watch = await client()
      .pods(ns)
      .watch({ labelSelector: 'app=batch', resourceVersion: list.metadata.resourceVersion });
    const following = (async () => {
      for await (const ev of watch) {
        const name = ev.object.metadata.name ?? '';
        if (ev.type === 'DELETED') live.delete(name);
        else if (ev.type === 'ADDED' || ev.type === 'MODIFIED') {
          live.set(name, ev.object.metadata.labels?.['pod-template-hash'] ?? '');
          const hashes = new Set(live.values());
          if (hashes.size > 1) overlap = true;
        }
      }
    })();

    await setImage('batch', 'busybox:1.36');
    await eventually(async () => {
      const pods = await podsOf(client(), ns, 'batch');
      assert.equal(pods.length, 3);
      assert.ok(
        pods.every((p) => p.metadata.labels?.['pod-template-hash'] !== oldHash),
        'old pods are still there',
      );
    });
    await markAllReady(client(), ns, 'batch');
    const d = await eventually(async () => {
      const x = await getDeployment(client(), ns, 'batch');
      assert.equal(x.status?.availableReplicas, 3);
      assert.equal(condition(x, 'Progressing')?.reason, 'NewReplicaSetAvailable');
      return x;
    });
    watch.close();
    await following;
    assert.equal(overlap, false, 'old and new pods ran at the same time');
    const sets = await replicaSetsOf(client(), d);
    assert.deepEqual(
      sets.map((rs) => rs.spec.replicas),
      [0, 3],
    );
    await eventually(async () => {
      const events = await eventMessages('batch');
      const down = events.findIndex((e) => /Scaled down replica set batch-\w+ from 3 to 0/.test(e));
      const up = events.indexOf(`ScalingReplicaSet: Scaled up replica set ${sets[1]?.metadata.name} from 0 to 3`);
      assert.ok(down >= 0 && up > down, `scaled down, then up: ${JSON.stringify(events)}`);
    });
  });

  it('pause stops the rollout (scaling still works); resume continues it', async () => {
    await client()
      .deployments(ns)
      .create(deploymentManifest('paused', { replicas: 2 }));
    await eventually(async () => assert.equal((await podsOf(client(), ns, 'paused')).length, 2));
    await markAllReady(client(), ns, 'paused');
    await client()
      .deployments(ns)
      .patch('paused', 'merge', { spec: { paused: true } });
    await eventually(async () => {
      const p = condition(await getDeployment(client(), ns, 'paused'), 'Progressing');
      assert.equal(p?.reason, 'DeploymentPaused');
      assert.equal(p?.status, 'Unknown');
      assert.equal(p?.message, 'Deployment is paused');
    });

    await setImage('paused', 'nginx:1.27');
    await client()
      .deployments(ns)
      .patch('paused', 'merge', { spec: { replicas: 3 } });
    const d = await eventually(async () => {
      const x = await getDeployment(client(), ns, 'paused');
      assert.equal(x.status?.observedGeneration, x.metadata.generation);
      return x;
    });
    const sets = await eventually(async () => {
      const s = await replicaSetsOf(client(), d);
      assert.equal(s[0]?.spec.replicas, 3);
      return s;
    });
    assert.equal(sets.length, 1, 'no rollout while paused');
    await eventually(async () => assert.equal((await podsOf(client(), ns, 'paused')).length, 3));
    await markAllReady(client(), ns, 'paused');
    await eventually(async () =>
      assert.equal((await getDeployment(client(), ns, 'paused')).status?.availableReplicas, 3),
    );

    await client()
      .deployments(ns)
      .patch('paused', 'merge', { spec: { paused: false } });
    await eventually(async () => assert.equal((await replicaSetsOf(client(), d)).length, 2));
    // 3 replicas at 25%/25%: surge 1, unavailable 0.
    const end = await driveRollout(client(), ns, 'paused', { maxPods: 4, minReady: 3 }, eventually);
    assert.equal(end.sets[1]?.metadata.annotations?.[REVISION], '2');
  });

  it('keeps only revisionHistoryLimit old ReplicaSets', async () => {
    await client()
      .deployments(ns)
      .create(deploymentManifest('hist', { replicas: 1, revisionHistoryLimit: 1 }));
    for (const image of ['nginx:1.25', 'nginx:1.26', 'nginx:1.27']) {
      if (image !== 'nginx:1.25') await setImage('hist', image);
      await driveRollout(client(), ns, 'hist', { maxPods: 2, minReady: image === 'nginx:1.25' ? 0 : 1 }, eventually);
    }
    const d = await getDeployment(client(), ns, 'hist');
    const sets = await eventually(async () => {
      const s = await replicaSetsOf(client(), d);
      assert.equal(s.length, 2);
      return s;
    });
    assert.deepEqual(
      sets.map((rs) => rs.metadata.annotations?.[REVISION]),
      ['2', '3'],
    );
  });

  it('adopts a matching orphan ReplicaSet instead of creating one, and releases one that stops matching', async () => {
    const manifest = deploymentManifest('adopt', { replicas: 1 });
    const orphan: ReplicaSet = {
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: { name: 'adopt-orphan', labels: { app: 'adopt', 'pod-template-hash': 'orphan' } },
      spec: {
        replicas: 0,
        selector: { matchLabels: { app: 'adopt', 'pod-template-hash': 'orphan' } },
        template: {
          metadata: { labels: { app: 'adopt', 'pod-template-hash': 'orphan' } },
          spec: manifest.spec.template?.spec ?? {},
        },
      },
    };
    await client().replicaSets(ns).create(orphan);
    await client().deployments(ns).create(manifest);
    const d = await getDeployment(client(), ns, 'adopt');
    await eventually(async () => {
      const rs = (await client().replicaSets(ns).get('adopt-orphan')) as ReplicaSet;
      assert.equal(rs.metadata.ownerReferences?.[0]?.uid, d.metadata.uid);
      assert.equal(rs.spec.replicas, 1);
      assert.equal(rs.metadata.annotations?.[REVISION], '1');
    });
    assert.equal((await replicaSetsOf(client(), d)).length, 1);

    await client()
      .replicaSets(ns)
      .patch('adopt-orphan', 'merge', { metadata: { labels: { app: 'elsewhere', 'pod-template-hash': 'orphan' } } });
    await eventually(async () => {
      const rs = (await client().replicaSets(ns).get('adopt-orphan')) as ReplicaSet;
      assert.ok(!rs.metadata.ownerReferences?.some((r) => r.uid === d.metadata.uid), 'not released yet');
    });
    // The Deployment makes its own ReplicaSet instead.
    await eventually(async () => {
      const sets = await replicaSetsOf(client(), d);
      assert.equal(sets.length, 1);
      assert.notEqual(sets[0]?.metadata.name, 'adopt-orphan');
    });
  });

  it('bumps collisionCount when another template holds the hashed name, and uses the next name', async () => {
    // Paused from the start: no ReplicaSet is made, so the test can take the name first.
    const manifest = deploymentManifest('clash', { replicas: 1 });
    manifest.spec.paused = true;
    const created = (await client().deployments(ns).create(manifest)) as Deployment;
    const hash = computeHash(created.spec.template);
    const squatter: ReplicaSet = {
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: { name: `clash-${hash}`, labels: { app: 'other' } },
      spec: {
        replicas: 0,
        selector: { matchLabels: { app: 'other' } },
        template: { metadata: { labels: { app: 'other' } }, spec: { containers: [{ name: 'x', image: 'busybox' }] } },
      },
    };
    await client().replicaSets(ns).create(squatter);
    await client()
      .deployments(ns)
      .patch('clash', 'merge', { spec: { paused: false } });
    const d = await eventually(async () => {
      const x = await getDeployment(client(), ns, 'clash');
      assert.equal(x.status?.collisionCount, 1);
      return x;
    });
    const sets = await eventually(async () => {
      const s = await replicaSetsOf(client(), d);
      assert.equal(s.length, 1);
      return s;
    });
    const next = computeHash(created.spec.template, 1);
    assert.equal(sets[0]?.metadata.name, `clash-${next}`);
    assert.equal(sets[0]?.metadata.labels?.['pod-template-hash'], next);
  });

  it('reports ProgressDeadlineExceeded when a rollout makes no progress within progressDeadlineSeconds', async () => {
    await client()
      .deployments(ns)
      .create(deploymentManifest('stuck', { replicas: 1, progressDeadlineSeconds: 1 }));
    const d = await eventually(
      async () => {
        const x = await getDeployment(client(), ns, 'stuck');
        assert.equal(condition(x, 'Progressing')?.reason, 'ProgressDeadlineExceeded');
        return x;
      },
      { timeoutMs: 10_000 },
    );
    const [rs] = await replicaSetsOf(client(), d);
    const progressing = condition(d, 'Progressing');
    assert.equal(progressing?.status, 'False');
    assert.equal(progressing?.message, `ReplicaSet "${rs?.metadata.name}" has timed out progressing.`);
    const available = condition(d, 'Available');
    assert.equal(available?.status, 'False');
    assert.equal(available?.reason, 'MinimumReplicasUnavailable');
    assert.equal(available?.message, 'Deployment does not have minimum availability.');
  });

  it('spreads a change of replicas in the middle of a rollout over the ReplicaSets in proportion', async () => {
    await client()
      .deployments(ns)
      .create(deploymentManifest('prop', { replicas: 10, maxSurge: 3, maxUnavailable: 0 }));
    await eventually(async () => assert.equal((await podsOf(client(), ns, 'prop')).length, 10));
    await setImage('prop', 'nginx:1.26');
    // No pod is ready, so the rollout stops at 10 old + 3 new.
    const d = await getDeployment(client(), ns, 'prop');
    const [old, cur] = await eventually(async () => {
      const sets = await replicaSetsOf(client(), d);
      assert.deepEqual(
        sets.map((rs) => rs.spec.replicas),
        [10, 3],
      );
      return sets as [ReplicaSet, ReplicaSet];
    });
    await client()
      .deployments(ns)
      .patch('prop', 'merge', { spec: { replicas: 20 } });
    // 23 allowed, 13 there: 10 more, 8 to the old (10/13 of 23 = 18) and 2 to the new (3/13 of 23 = 5).
    await eventually(async () => {
      const sets = await replicaSetsOf(client(), d);
      assert.deepEqual(
        sets.map((rs) => [
          rs.metadata.name,
          rs.spec.replicas,
          rs.metadata.annotations?.['deployment.kubernetes.io/desired-replicas'],
        ]),
        [
          [old.metadata.name, 18, '20'],
          [cur.metadata.name, 5, '20'],
        ],
      );
    });
    await expectEvent('prop', `ScalingReplicaSet: Scaled up replica set ${old.metadata.name} from 10 to 18`);
    await expectEvent('prop', `ScalingReplicaSet: Scaled up replica set ${cur.metadata.name} from 3 to 5`);
  });

  it('scales a finished Deployment by resizing its one ReplicaSet', async () => {
    await client()
      .deployments(ns)
      .patch('web', 'merge', { spec: { replicas: 6 } });
    await eventually(async () => {
      const s = await snapshot(client(), ns, 'web');
      assert.deepEqual(s.sets.map((rs) => rs.spec.replicas).sort(), [0, 6]);
      assert.equal(s.pods.length, 6);
    });
    // By now the recorder combines the many similar events, as upstream's aggregator does.
    await expectEvent(
      'web',
      /^ScalingReplicaSet: (\(combined from similar events\): )?Scaled up replica set web-\w+ from 4 to 6$/,
    );
  });
});
