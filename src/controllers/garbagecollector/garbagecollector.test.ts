import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { isNotFound, type KubeObject, type OwnerReference, type ResourceClient } from '../../client/types.js';
import { type ControlPlane, startControlPlane } from '../../index.js';
import assert from '../../testing/assert.js';
import { eventually, runControllers } from '../../testing/controllers.js';
import type { ControllerDescriptor } from '../context.js';
import type { ControllerManager } from '../manager.js';
import { GarbageCollector } from './garbage-collector.js';
import { GARBAGE_COLLECTOR_COMPONENT } from './index.js';

/** The garbage collector, with a handle on its graph so tests can wait until it has observed an object. */
function observableGc(): { descriptor: ControllerDescriptor; graphHas(uid: string): boolean } {
  let gc: GarbageCollector | undefined;
  const descriptor: ControllerDescriptor = {
    name: 'garbage-collector-controller',
    create(ctx) {
      gc = new GarbageCollector({
        client: ctx.client,
        informers: ctx.informers,
        clock: ctx.clock,
        logger: ctx.logger,
        recorder: ctx.recorder(GARBAGE_COLLECTOR_COMPONENT),
        workers: ctx.options.concurrentGcSyncs,
        signal: ctx.signal,
      });
      const running = gc;
      return { run: () => running.run() };
    },
  };
  return { descriptor, graphHas: (uid) => gc?.builder.uidToNode.get(uid)?.isObserved() ?? false };
}

function refTo(owner: KubeObject, extra: Partial<OwnerReference> = {}): OwnerReference {
  return {
    apiVersion: owner.apiVersion ?? '',
    kind: owner.kind ?? '',
    name: owner.metadata.name ?? '',
    uid: owner.metadata.uid ?? '',
    ...extra,
  };
}

async function isGone(client: ResourceClient, name: string): Promise<void> {
  await assert.rejects(client.get(name), (err) => isNotFound(err), `${name} should be gone`);
}

function configMap(name: string, ownerReferences: OwnerReference[] = [], finalizers?: string[]): KubeObject {
  return { metadata: { name, ownerReferences, ...(finalizers ? { finalizers } : {}) }, data: { k: 'v' } };
}

function pod(name: string, ownerReferences: OwnerReference[], finalizers?: string[]): KubeObject {
  return {
    metadata: { name, ownerReferences, ...(finalizers ? { finalizers } : {}) },
    spec: { containers: [{ name: 'c', image: 'busybox' }] },
  };
}

function replicaSet(name: string): KubeObject {
  return {
    metadata: { name },
    spec: {
      replicas: 0,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'busybox' }] } },
    },
  };
}

describe('garbage collector', () => {
  let cp: ControlPlane;
  let manager: ControllerManager;
  let gc: ReturnType<typeof observableGc>;

  before(async () => {
    cp = await startControlPlane({ storage: 'memory' });
    gc = observableGc();
    manager = await runControllers(cp, [gc.descriptor]);
  });

  after(async () => {
    await manager.stop();
    await cp.stop();
  });

  async function namespace(name: string): Promise<string> {
    await cp.client.namespaces().create({ metadata: { name } });
    return name;
  }

  async function observed(...objs: KubeObject[]): Promise<void> {
    await eventually(() => {
      for (const obj of objs)
        assert.ok(gc.graphHas(obj.metadata.uid ?? ''), `${obj.metadata.name} not in the graph yet`);
    });
  }

  test('the apiserver marks owners for propagation as the collector expects', async () => {
    const ns = await namespace('gc-apiserver');
    const cms = cp.client.configMaps(ns);
    await cms.create(configMap('fg'));
    const fg = await cms.delete('fg', { propagationPolicy: 'Foreground' });
    assert.ok(fg.metadata.deletionTimestamp);
    assert.deepEqual(fg.metadata.finalizers, ['foregroundDeletion']);
    await cms.create(configMap('orphan'));
    const orphan = await cms.delete('orphan', { propagationPolicy: 'Orphan' });
    assert.ok(orphan.metadata.deletionTimestamp);
    assert.deepEqual(orphan.metadata.finalizers, ['orphan']);
    // apps/v1 defaults to Background: the owner goes at once.
    await cp.client.replicaSets(ns).create(replicaSet('rs'));
    await cp.client.replicaSets(ns).delete('rs');
    await isGone(cp.client.replicaSets(ns), 'rs');
  });

  test('background: dependents of a deleted owner are deleted; one with another live owner loses the dead one', async () => {
    const ns = await namespace('gc-background');
    const rs = await cp.client.replicaSets(ns).create(replicaSet('owner'));
    const secret = await cp.client.secrets(ns).create({ metadata: { name: 'other-owner' }, data: {} });
    const onlyChild = await cp.client.pods(ns).create(pod('only-child', [refTo(rs, { controller: true })]));
    const shared = await cp.client
      .configMaps(ns)
      .create(configMap('shared', [refTo(rs), refTo(secret, { blockOwnerDeletion: true })]));
    const freed = await cp.client.configMaps(ns).create(configMap('freed', [refTo(rs)]));
    await observed(rs, secret, onlyChild, shared, freed);
    // An ownerReference removed before the owner goes: that object is no dependent any more.
    await cp.client.configMaps(ns).patch('freed', 'merge', { metadata: { ownerReferences: null } });

    await cp.client.replicaSets(ns).delete('owner', { propagationPolicy: 'Background' });
    await isGone(cp.client.replicaSets(ns), 'owner');
    await eventually(() => isGone(cp.client.pods(ns), 'only-child'));
    await eventually(async () => {
      const cm = await cp.client.configMaps(ns).get('shared');
      assert.deepEqual(
        (cm.metadata.ownerReferences ?? []).map((r) => r.uid),
        [secret.metadata.uid],
      );
    });
    assert.equal((await cp.client.configMaps(ns).get('shared')).metadata.deletionTimestamp, undefined);
    assert.equal((await cp.client.configMaps(ns).get('freed')).metadata.deletionTimestamp, undefined);
  });

  test('foreground: the owner waits for its blocking dependent, then goes', async () => {
    const ns = await namespace('gc-foreground');
    const cms = cp.client.configMaps(ns);
    const owner = await cms.create(configMap('owner'));
    const blocking = await cms.create(
      configMap('blocking', [refTo(owner, { blockOwnerDeletion: true })], ['example.com/hold']),
    );
    const plain = await cp.client.secrets(ns).create({ metadata: { name: 'plain', ownerReferences: [refTo(owner)] } });
    await observed(owner, blocking, plain);

    await cms.delete('owner', { propagationPolicy: 'Foreground' });
    await eventually(async () => {
      const dep = await cms.get('blocking');
      assert.ok(dep.metadata.deletionTimestamp, 'the blocking dependent is being deleted');
    });
    await eventually(() => isGone(cp.client.secrets(ns), 'plain'));
    // The blocking dependent still exists (its own finalizer holds it), so the owner must still be there.
    const waiting = await cms.get('owner');
    assert.ok(waiting.metadata.deletionTimestamp);
    assert.deepEqual(waiting.metadata.finalizers, ['foregroundDeletion']);

    await cms.patch('blocking', 'merge', { metadata: { finalizers: null } });
    await eventually(() => isGone(cms, 'blocking'));
    await eventually(() => isGone(cms, 'owner'));
  });

  test('foreground through two levels: a dependent with dependents is itself deleted in the foreground', async () => {
    const ns = await namespace('gc-foreground-chain');
    const rs = await cp.client.replicaSets(ns).create(replicaSet('top'));
    const mid = await cp.client
      .configMaps(ns)
      .create(configMap('mid', [refTo(rs, { controller: true, blockOwnerDeletion: true })]));
    const leaf = await cp.client
      .pods(ns)
      .create(pod('leaf', [refTo(mid, { controller: true, blockOwnerDeletion: true })], ['example.com/hold']));
    await observed(rs, mid, leaf);

    await cp.client.replicaSets(ns).delete('top', { propagationPolicy: 'Foreground' });
    await eventually(async () => {
      const m = await cp.client.configMaps(ns).get('mid');
      assert.ok(m.metadata.deletionTimestamp);
      assert.deepEqual(m.metadata.finalizers, ['foregroundDeletion']);
      assert.ok((await cp.client.pods(ns).get('leaf')).metadata.deletionTimestamp);
    });
    assert.ok((await cp.client.replicaSets(ns).get('top')).metadata.deletionTimestamp);

    await cp.client.pods(ns).patch('leaf', 'merge', { metadata: { finalizers: null } });
    await eventually(() => isGone(cp.client.pods(ns), 'leaf'));
    await eventually(() => isGone(cp.client.configMaps(ns), 'mid'));
    await eventually(() => isGone(cp.client.replicaSets(ns), 'top'));
  });

  test('orphan: dependents stay and lose the ownerReference; the owner goes', async () => {
    const ns = await namespace('gc-orphan');
    const cms = cp.client.configMaps(ns);
    const owner = await cms.create(configMap('owner'));
    const other = await cp.client.secrets(ns).create({ metadata: { name: 'other' } });
    const a = await cms.create(configMap('a', [refTo(owner, { controller: true, blockOwnerDeletion: true })]));
    const b = await cp.client.pods(ns).create(pod('b', [refTo(other), refTo(owner)]));
    await observed(owner, other, a, b);

    await cms.delete('owner', { propagationPolicy: 'Orphan' });
    await eventually(() => isGone(cms, 'owner'));
    const keptA = await cms.get('a');
    assert.equal(keptA.metadata.deletionTimestamp, undefined);
    assert.deepEqual(keptA.metadata.ownerReferences ?? [], []);
    const keptB = await cp.client.pods(ns).get('b');
    assert.equal(keptB.metadata.deletionTimestamp, undefined);
    assert.deepEqual(
      (keptB.metadata.ownerReferences ?? []).map((r) => r.uid),
      [other.metadata.uid],
    );
  });

  test('an object whose owner never existed is deleted', async () => {
    const ns = await namespace('gc-never');
    const cms = cp.client.configMaps(ns);
    await cms.create(configMap('stray', [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'ghost', uid: randomUUID() }]));
    await cp.client
      .pods(ns)
      .create(pod('stray-pod', [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'ghost-rs', uid: randomUUID() }]));
    await eventually(() => isGone(cms, 'stray'));
    await eventually(() => isGone(cp.client.pods(ns), 'stray-pod'));
  });

  test('a live object of the owner name with another uid counts as absent, and is left alone', async () => {
    const ns = await namespace('gc-uid');
    const cms = cp.client.configMaps(ns);
    const live = await cms.create(configMap('owner'));
    await observed(live);
    await cms.create(configMap('dep', [{ ...refTo(live), uid: randomUUID() }]));
    await eventually(() => isGone(cms, 'dep'));
    const still = await cms.get('owner');
    assert.equal(still.metadata.uid, live.metadata.uid);
    assert.equal(still.metadata.deletionTimestamp, undefined);
  });

  test('a cluster-scoped owner of namespaced dependents', async () => {
    const ns = await namespace('gc-cluster');
    const roles = cp.client.clusterRoles();
    const owner = await roles.create({ metadata: { name: 'gc-test-owner' }, rules: [] });
    const dep = await cp.client.configMaps(ns).create(configMap('dep', [refTo(owner)]));
    const dep2 = await cp.client.secrets(ns).create({ metadata: { name: 'dep2', ownerReferences: [refTo(owner)] } });
    await observed(owner, dep, dep2);
    // While the owner lives, its dependents live.
    assert.equal((await cp.client.configMaps(ns).get('dep')).metadata.deletionTimestamp, undefined);

    await roles.delete('gc-test-owner');
    await eventually(() => isGone(cp.client.configMaps(ns), 'dep'));
    await eventually(() => isGone(cp.client.secrets(ns), 'dep2'));
  });

  test('a namespaced owner referenced from another namespace is absent there, with a warning event', async () => {
    const home = await namespace('gc-home');
    const away = await namespace('gc-away');
    const owner = await cp.client.configMaps(home).create(configMap('owner'));
    await observed(owner);
    const dep = await cp.client.configMaps(away).create(configMap('dep', [refTo(owner)]));
    await eventually(() => isGone(cp.client.configMaps(away), 'dep'));
    assert.ok(await cp.client.configMaps(home).get('owner'));
    await eventually(async () => {
      const events = await cp.client.events(away).list();
      const warning = events.items.find((e) => e.reason === 'OwnerRefInvalidNamespace');
      assert.ok(warning, 'an OwnerRefInvalidNamespace event');
      assert.equal(warning.type, 'Warning');
      assert.equal(warning.involvedObject.uid, dep.metadata.uid);
      assert.equal(warning.source?.component, 'garbage-collector-controller');
      assert.equal(
        warning.message,
        `ownerRef [v1/ConfigMap, namespace: ${away}, name: owner, uid: ${owner.metadata.uid}] does not exist in namespace "${away}"`,
      );
    });
  });
});

describe('garbage collector restarted', () => {
  let cp: ControlPlane;
  const managers: ControllerManager[] = [];

  before(async () => {
    cp = await startControlPlane({ storage: 'memory' });
  });

  after(async () => {
    for (const m of managers) await m.stop();
    await cp.stop();
  });

  test('work left while it was down is done after it starts', async () => {
    const ns = 'gc-restart';
    await cp.client.namespaces().create({ metadata: { name: ns } });
    const cms = cp.client.configMaps(ns);
    const first = observableGc();
    const m1 = await runControllers(cp, [first.descriptor]);
    managers.push(m1);
    const bg = await cms.create(configMap('bg-owner'));
    const fg = await cms.create(configMap('fg-owner'));
    const orphan = await cms.create(configMap('orphan-owner'));
    const bgDep = await cp.client.pods(ns).create(pod('bg-dep', [refTo(bg)]));
    const fgDep = await cms.create(configMap('fg-dep', [refTo(fg, { blockOwnerDeletion: true })]));
    const orphanDep = await cms.create(configMap('orphan-dep', [refTo(orphan)]));
    await eventually(() => {
      for (const o of [bg, fg, orphan, bgDep, fgDep, orphanDep]) {
        assert.ok(first.graphHas(o.metadata.uid ?? ''), `${o.metadata.name} observed`);
      }
    });
    await m1.stop();

    await cms.delete('bg-owner');
    await cms.delete('fg-owner', { propagationPolicy: 'Foreground' });
    await cms.delete('orphan-owner', { propagationPolicy: 'Orphan' });
    // Nobody collects while the collector is down.
    assert.ok(await cp.client.pods(ns).get('bg-dep'));
    assert.ok((await cms.get('fg-owner')).metadata.deletionTimestamp);
    assert.ok((await cms.get('orphan-owner')).metadata.deletionTimestamp);

    const second = observableGc();
    managers.push(await runControllers(cp, [second.descriptor]));
    await eventually(() => isGone(cp.client.pods(ns), 'bg-dep'));
    await eventually(() => isGone(cms, 'fg-dep'));
    await eventually(() => isGone(cms, 'fg-owner'));
    await eventually(() => isGone(cms, 'orphan-owner'));
    const kept = await cms.get('orphan-dep');
    assert.deepEqual(kept.metadata.ownerReferences ?? [], []);
    assert.equal(kept.metadata.deletionTimestamp, undefined);
  });
});
