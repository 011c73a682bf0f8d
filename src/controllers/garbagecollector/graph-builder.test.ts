import { describe, test } from 'node:test';
import { SharedInformerFactory } from '../../client/cache/factory.js';
import type { EventRecorder } from '../../client/events/broadcaster.js';
import type { KubeObject, OwnerReference } from '../../client/types.js';
import { createRateLimitingQueue, type RateLimitingQueue } from '../../client/workqueue/rate-limiting.js';
import { startControlPlane } from '../../index.js';
import assert from '../../testing/assert.js';
import { eventually } from '../../testing/controllers.js';
import { silentLogger } from '../../util/logger.js';
import { alternateOwnerIdentity, GraphNode, partitionDependents, ReferenceCache } from './graph.js';
import { GraphBuilder, referencesDiffs } from './graph-builder.js';
import { deleteOwnerRefJsonMergePatch, deleteOwnerRefStrategicMergePatch } from './patches.js';
import { discoverResources } from './resources.js';

function setup(informers = new SharedInformerFactory()) {
  const attemptToDelete = createRateLimitingQueue<GraphNode>();
  const attemptToOrphan = createRateLimitingQueue<GraphNode>();
  const events: unknown[][] = [];
  const recorder = {
    event: () => {},
    eventf: (...args: unknown[]) => events.push(args),
    annotatedEventf: () => {},
  } as unknown as EventRecorder;
  const builder = new GraphBuilder({ informers, attemptToDelete, attemptToOrphan, recorder, logger: silentLogger });
  return { builder, attemptToDelete, attemptToOrphan, events };
}

async function drain(queue: RateLimitingQueue<GraphNode>): Promise<string[]> {
  const names: string[] = [];
  while (queue.len() > 0) {
    const item = await queue.get();
    if (item.shutdown) break;
    names.push(item.key.identity.name);
    queue.done(item.key);
  }
  return names.sort();
}

function cm(name: string, uid: string, owners: OwnerReference[] = [], extra: Partial<KubeObject['metadata']> = {}) {
  return { metadata: { name, uid, namespace: 'ns', ownerReferences: owners, ...extra } };
}

const owner = (name: string, uid: string, extra: Partial<OwnerReference> = {}): OwnerReference => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  name,
  uid,
  ...extra,
});

const CM = { apiVersion: 'v1', kind: 'ConfigMap' };

describe('GraphBuilder', () => {
  test('an unknown owner becomes a virtual node to verify; observing it makes it real', async () => {
    const { builder, attemptToDelete } = setup();
    builder.enqueue({ type: 'add', obj: cm('dep', 'd1', [owner('own', 'o1')]), ...CM });
    const virtual = builder.uidToNode.get('o1');
    assert.ok(virtual && !virtual.isObserved());
    assert.deepEqual(virtual.identity, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      name: 'own',
      uid: 'o1',
      namespace: 'ns',
    });
    assert.deepEqual(await drain(attemptToDelete), ['own']);

    builder.enqueue({ type: 'add', obj: cm('own', 'o1'), ...CM });
    assert.equal(builder.uidToNode.get('o1'), virtual, 'the same node, now observed');
    assert.ok(virtual.isObserved());
    assert.deepEqual(
      virtual.getDependents().map((d) => d.identity.name),
      ['dep'],
    );
  });

  test('a deleted owner sends its dependents to attemptToDelete and is remembered as absent', async () => {
    const { builder, attemptToDelete } = setup();
    builder.enqueue({ type: 'add', obj: cm('own', 'o1'), ...CM });
    builder.enqueue({ type: 'add', obj: cm('a', 'a1', [owner('own', 'o1')]), ...CM });
    builder.enqueue({ type: 'add', obj: cm('b', 'b1', [owner('own', 'o1')]), ...CM });
    assert.deepEqual(await drain(attemptToDelete), []);
    builder.enqueue({ type: 'delete', obj: cm('own', 'o1'), ...CM });
    assert.equal(builder.uidToNode.has('o1'), false);
    assert.deepEqual(await drain(attemptToDelete), ['a', 'b']);
    assert.ok(builder.absentOwnerCache.has({ ...CM, name: 'own', uid: 'o1', namespace: 'ns' }));
  });

  test('foreground and orphan deletions start when the finalizer and deletionTimestamp appear', async () => {
    const { builder, attemptToDelete, attemptToOrphan } = setup();
    builder.enqueue({ type: 'add', obj: cm('fg', 'f1'), ...CM });
    builder.enqueue({ type: 'add', obj: cm('dep', 'd1', [owner('fg', 'f1', { blockOwnerDeletion: true })]), ...CM });
    builder.enqueue({
      type: 'update',
      oldObj: cm('fg', 'f1'),
      obj: cm('fg', 'f1', [], { deletionTimestamp: '2025-01-01T00:00:00Z', finalizers: ['foregroundDeletion'] }),
      ...CM,
    });
    const fg = builder.uidToNode.get('f1');
    assert.ok(fg?.isDeletingDependents());
    if (!fg) return;
    assert.deepEqual(await drain(attemptToDelete), ['dep', 'fg']);
    assert.deepEqual(
      fg.blockingDependents().map((d) => d.identity.name),
      ['dep'],
    );

    // The blocking reference goes: the owner is looked at again.
    builder.enqueue({ type: 'update', oldObj: cm('dep', 'd1'), obj: cm('dep', 'd1', []), ...CM });
    assert.deepEqual(await drain(attemptToDelete), ['fg']);
    assert.deepEqual(fg.blockingDependents(), []);

    builder.enqueue({
      type: 'add',
      obj: cm('or', 'r1', [], { deletionTimestamp: '2025-01-01T00:00:00Z', finalizers: ['orphan'] }),
      ...CM,
    });
    assert.deepEqual(await drain(attemptToOrphan), ['or']);
  });

  test('a virtual delete keeps a virtual node that dependents name differently, under the other identity', async () => {
    const { builder, attemptToDelete } = setup();
    builder.enqueue({ type: 'add', obj: cm('a', 'a1', [owner('x', 'o1')]), ...CM });
    builder.enqueue({ type: 'add', obj: cm('b', 'b1', [{ ...owner('y', 'o1') }]), ...CM });
    await drain(attemptToDelete);
    builder.enqueueVirtualDeleteEvent({ ...CM, name: 'x', uid: 'o1', namespace: 'ns' });
    const replacement = builder.uidToNode.get('o1');
    assert.ok(replacement && !replacement.isObserved());
    assert.equal(replacement.identity.name, 'y');
    assert.deepEqual(await drain(attemptToDelete), ['a']);
  });

  test('an observed owner in another namespace is reported on the dependent', () => {
    const { builder, events } = setup();
    builder.enqueue({ type: 'add', obj: { metadata: { name: 'own', uid: 'o1', namespace: 'home' } }, ...CM });
    builder.enqueue({ type: 'add', obj: cm('dep', 'd1', [owner('own', 'o1')]), ...CM });
    assert.equal(events.length, 1);
    assert.equal(events[0]?.[2], 'OwnerRefInvalidNamespace');
  });

  test('monitors added at runtime start their informers', async () => {
    const cp = await startControlPlane({ storage: 'memory' });
    const informers = new SharedInformerFactory({ client: cp.client });
    try {
      const { deletable } = await discoverResources(cp.client);
      const pick = (...keys: string[]) =>
        new Map(keys.map((k) => [k, deletable.get(k) as NonNullable<ReturnType<typeof deletable.get>>]));
      const { builder } = setup(informers);
      builder.syncMonitors(pick('configmaps.v1'));
      builder.start();
      await eventually(() => assert.ok(builder.isSynced()));
      const secret = await cp.client.secrets('default').create({ metadata: { name: 's' } });
      builder.syncMonitors(pick('configmaps.v1', 'secrets.v1'));
      await eventually(() => assert.ok(builder.uidToNode.get(secret.metadata.uid ?? '')?.isObserved()));
      builder.syncMonitors(pick('secrets.v1'));
      assert.deepEqual(builder.monitoredResources(), ['secrets.v1']);
      builder.stop();
    } finally {
      await informers.shutdown();
      await cp.stop();
    }
  });
});

describe('graph helpers', () => {
  test('referencesDiffs compares by uid', () => {
    const a = owner('a', '1');
    const b = owner('b', '2', { blockOwnerDeletion: true });
    const { added, removed, changed } = referencesDiffs([a, b], [{ ...b, blockOwnerDeletion: false }, owner('c', '3')]);
    assert.deepEqual(
      added.map((r) => r.uid),
      ['3'],
    );
    assert.deepEqual(
      removed.map((r) => r.uid),
      ['1'],
    );
    assert.equal(changed.length, 1);
  });

  test('partitionDependents and alternateOwnerIdentity', () => {
    const dep1 = new GraphNode({ ...CM, name: 'd1', uid: 'd1', namespace: 'ns' }, { owners: [owner('x', 'o')] });
    const dep2 = new GraphNode({ ...CM, name: 'd2', uid: 'd2', namespace: 'ns' }, { owners: [owner('z', 'o')] });
    const dep3 = new GraphNode({ ...CM, name: 'd3', uid: 'd3', namespace: 'other' }, { owners: [owner('x', 'o')] });
    const identity = { ...CM, name: 'x', uid: 'o', namespace: 'ns' };
    const { matching, nonmatching } = partitionDependents([dep1, dep2, dep3], identity);
    assert.deepEqual(
      matching.map((n) => n.identity.name),
      ['d1'],
    );
    assert.deepEqual(
      nonmatching.map((n) => n.identity.name),
      ['d2', 'd3'],
    );
    assert.equal(alternateOwnerIdentity([dep1, dep2, dep3], identity)?.name, 'z');
  });

  test('ReferenceCache forgets the least recently used', () => {
    const cache = new ReferenceCache(2);
    const ref = (uid: string) => ({ ...CM, name: uid, uid, namespace: '' });
    cache.add(ref('a'));
    cache.add(ref('b'));
    assert.ok(cache.has(ref('a')));
    cache.add(ref('c'));
    assert.ok(cache.has(ref('a')));
    assert.equal(cache.has(ref('b')), false);
    assert.ok(cache.has(ref('c')));
  });

  test('owner reference patches', () => {
    assert.deepEqual(deleteOwnerRefStrategicMergePatch('dep', ['o1', 'o2']), {
      metadata: {
        ownerReferences: [
          { $patch: 'delete', uid: 'o1' },
          { $patch: 'delete', uid: 'o2' },
        ],
        uid: 'dep',
      },
    });
    assert.deepEqual(deleteOwnerRefJsonMergePatch('7', [owner('a', 'o1'), owner('b', 'o2')], ['o1']), {
      metadata: { resourceVersion: '7', ownerReferences: [owner('b', 'o2')] },
    });
    assert.deepEqual(deleteOwnerRefJsonMergePatch('7', [owner('a', 'o1')], ['o1']), {
      metadata: { resourceVersion: '7', ownerReferences: null },
    });
  });
});
