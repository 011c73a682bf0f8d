import { describe, it } from 'node:test';
import { Indexer } from '../../client/cache/store.js';
import type { KubeObject } from '../../client/types.js';
import assert from '../../testing/assert.js';
import {
  compareActivePodsWithRanks,
  filterActivePods,
  filterPodsByOwner,
  getPodFromTemplate,
  isPodActive,
  isPodAvailable,
  isPodReady,
  POD_CONTROLLER_UID_INDEX,
  podAvailableAt,
  podControllerUidIndexFunc,
  podDeletionCost,
  podReadyTime,
  slowStartBatch,
  sortActivePodsWithRanks,
} from './pods.js';

const NOW = Date.parse('2025-06-01T12:00:00Z');
const ago = (seconds: number) => new Date(NOW - seconds * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');

interface PodOpts {
  name: string;
  node?: string;
  phase?: string;
  readySince?: number;
  restarts?: number;
  createdAgo?: number;
  cost?: string;
  deleting?: boolean;
}

function pod(o: PodOpts): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: o.name,
      namespace: 'ns',
      uid: `uid-${o.name}`,
      creationTimestamp: ago(o.createdAgo ?? 1000),
      ...(o.cost !== undefined ? { annotations: { 'controller.kubernetes.io/pod-deletion-cost': o.cost } } : {}),
      ...(o.deleting ? { deletionTimestamp: ago(0) } : {}),
    },
    spec: { containers: [{ name: 'c', image: 'i' }], ...(o.node ? { nodeName: o.node } : {}) },
    status: {
      phase: o.phase ?? 'Running',
      conditions:
        o.readySince === undefined
          ? [{ type: 'Ready', status: 'False' }]
          : [{ type: 'Ready', status: 'True', lastTransitionTime: ago(o.readySince) }],
      containerStatuses: [{ name: 'c', restartCount: o.restarts ?? 0 }],
    },
  };
}

const names = (pods: KubeObject[]) => pods.map((p) => p.metadata.name);
const first = (a: KubeObject, b: KubeObject, rankA = 0, rankB = 0) =>
  compareActivePodsWithRanks(a, rankA, b, rankB, NOW) < 0 ? a.metadata.name : b.metadata.name;

describe('pod predicates', () => {
  it('active: not Succeeded, not Failed, not being deleted', () => {
    assert.equal(isPodActive(pod({ name: 'a' })), true);
    assert.equal(isPodActive(pod({ name: 'a', phase: 'Pending' })), true);
    assert.equal(isPodActive(pod({ name: 'a', phase: 'Succeeded' })), false);
    assert.equal(isPodActive(pod({ name: 'a', phase: 'Failed' })), false);
    assert.equal(isPodActive(pod({ name: 'a', deleting: true })), false);
    assert.deepEqual(names(filterActivePods([pod({ name: 'a' }), pod({ name: 'b', deleting: true })])), ['a']);
  });

  it('ready and ready time come from the Ready condition', () => {
    assert.equal(isPodReady(pod({ name: 'a' })), false);
    assert.equal(isPodReady(pod({ name: 'a', readySince: 5 })), true);
    assert.equal(podReadyTime(pod({ name: 'a', readySince: 5 })), NOW - 5000);
    assert.equal(podReadyTime(pod({ name: 'a' })), undefined);
  });

  it('available once ready for strictly more than minReadySeconds', () => {
    const p = pod({ name: 'a', readySince: 10 });
    assert.equal(isPodAvailable(p, 0, NOW), true);
    assert.equal(isPodAvailable(p, 9, NOW), true);
    assert.equal(isPodAvailable(p, 10, NOW), false);
    assert.equal(isPodAvailable(p, 10, NOW + 1), true);
    assert.equal(isPodAvailable(pod({ name: 'b' }), 0, NOW), false);
    assert.equal(podAvailableAt(p, 10), NOW);
  });

  it('reads the pod-deletion-cost annotation as upstream does', () => {
    assert.equal(podDeletionCost(pod({ name: 'a' })), 0);
    assert.equal(podDeletionCost(pod({ name: 'a', cost: '100' })), 100);
    assert.equal(podDeletionCost(pod({ name: 'a', cost: '-5' })), -5);
    assert.equal(podDeletionCost(pod({ name: 'a', cost: '+5' })), 0);
    assert.equal(podDeletionCost(pod({ name: 'a', cost: '007' })), 0);
    assert.equal(podDeletionCost(pod({ name: 'a', cost: '99999999999' })), 0);
    assert.equal(podDeletionCost(pod({ name: 'a', cost: 'x' })), 0);
  });
});

describe('scale-down ranking', () => {
  it('puts unassigned before assigned pods', () => {
    assert.equal(first(pod({ name: 'assigned', node: 'n1' }), pod({ name: 'unassigned' })), 'unassigned');
  });

  it('orders phases Pending < Unknown < Running', () => {
    const pending = pod({ name: 'pending', node: 'n', phase: 'Pending' });
    const unknown = pod({ name: 'unknown', node: 'n', phase: 'Unknown' });
    const running = pod({ name: 'running', node: 'n', phase: 'Running' });
    assert.deepEqual(names(sortActivePodsWithRanks([running, unknown, pending], [0, 0, 0], NOW)), [
      'pending',
      'unknown',
      'running',
    ]);
  });

  it('puts not-ready before ready, then lower deletion cost first, then more pods on the node first', () => {
    assert.equal(
      first(pod({ name: 'ready', node: 'n', readySince: 5 }), pod({ name: 'notready', node: 'n' })),
      'notready',
    );
    assert.equal(
      first(
        pod({ name: 'cheap', node: 'n', readySince: 5, cost: '-1' }),
        pod({ name: 'dear', node: 'n', readySince: 500 }),
      ),
      'cheap',
    );
    assert.equal(first(pod({ name: 'alone', node: 'n1' }), pod({ name: 'crowded', node: 'n2' }), 1, 3), 'crowded');
  });

  it('puts the more recently ready first, bucketing ready times by powers of two', () => {
    assert.equal(
      first(pod({ name: 'old', node: 'n', readySince: 100 }), pod({ name: 'new', node: 'n', readySince: 10 })),
      'new',
    );
    // 1000 s and 1001 s ago fall in one power-of-two bucket: the uid decides, then restarts are never looked at.
    const a = pod({ name: 'a', node: 'n', readySince: 1001 });
    const b = pod({ name: 'b', node: 'n', readySince: 1000, restarts: 9 });
    assert.equal(first(a, b), 'a');
    assert.equal(first(b, a), 'a');
  });

  it('puts more restarts first, then the newer pod first', () => {
    assert.equal(first(pod({ name: 'calm', node: 'n' }), pod({ name: 'flappy', node: 'n', restarts: 3 })), 'flappy');
    assert.equal(
      first(pod({ name: 'older', node: 'n', createdAgo: 100 }), pod({ name: 'newer', node: 'n', createdAgo: 10 })),
      'newer',
    );
    assert.equal(
      compareActivePodsWithRanks(pod({ name: 'x', node: 'n' }), 0, pod({ name: 'x', node: 'n' }), 0, NOW),
      0,
    );
  });

  it('sorts a mixed set in upstream order', () => {
    const pods = [
      pod({ name: 'ready-old', node: 'n1', readySince: 3000, createdAgo: 4000 }),
      pod({ name: 'pending-unscheduled', phase: 'Pending' }),
      pod({ name: 'running-notready', node: 'n1' }),
      pod({ name: 'ready-new', node: 'n1', readySince: 20, createdAgo: 30 }),
      pod({ name: 'pending-scheduled', node: 'n2', phase: 'Pending' }),
    ];
    assert.deepEqual(names(sortActivePodsWithRanks(pods, [0, 0, 0, 0, 0], NOW)), [
      'pending-unscheduled',
      'pending-scheduled',
      'running-notready',
      'ready-new',
      'ready-old',
    ]);
  });
});

describe('pods from a template', () => {
  it('copies labels, annotations and finalizers, sets generateName and the controllerRef', () => {
    const owner: KubeObject = { apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name: 'web', uid: 'u1' } };
    const ref = {
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      name: 'web',
      uid: 'u1',
      controller: true,
      blockOwnerDeletion: true,
    };
    const template = {
      metadata: { labels: { app: 'web' }, annotations: { a: 'b' }, finalizers: ['x.io/f'] },
      spec: { containers: [{ name: 'c', image: 'nginx' }] },
    };
    const p = getPodFromTemplate(template, owner, ref);
    assert.deepEqual(p.metadata, {
      generateName: 'web-',
      labels: { app: 'web' },
      annotations: { a: 'b' },
      finalizers: ['x.io/f'],
      ownerReferences: [ref],
    });
    assert.deepEqual(p.spec, template.spec);
    assert.notEqual(p.spec, template.spec);
    p.metadata.labels!.app = 'changed';
    assert.equal(template.metadata.labels.app, 'web');
  });
});

describe('the pod index by controller', () => {
  it('finds the pods an owner controls and the orphans of its namespace', () => {
    const indexer = new Indexer({ indexers: { [POD_CONTROLLER_UID_INDEX]: podControllerUidIndexFunc } });
    const owned = (name: string, ns: string, uid: string): KubeObject => ({
      metadata: {
        name,
        namespace: ns,
        ownerReferences: [{ apiVersion: 'v1', kind: 'X', name: 'o', uid, controller: true }],
      },
    });
    indexer.add(owned('mine', 'ns', 'u1'));
    indexer.add(owned('theirs', 'ns', 'u2'));
    indexer.add({ metadata: { name: 'orphan', namespace: 'ns' } });
    indexer.add({ metadata: { name: 'elsewhere', namespace: 'other' } });
    const found = filterPodsByOwner(indexer, { metadata: { name: 'o', namespace: 'ns', uid: 'u1' } });
    assert.deepEqual(names(found).sort(), ['mine', 'orphan']);
  });
});

describe('slowStartBatch', () => {
  it('calls in batches of 1, 2, 4… until count', async () => {
    const batches: number[] = [];
    let inBatch = 0;
    let calls = 0;
    const result = await slowStartBatch(10, 1, async () => {
      calls++;
      inBatch++;
      await Promise.resolve();
      if (inBatch > 0) {
        batches.push(inBatch);
        inBatch = 0;
      }
    });
    assert.deepEqual(result, { successes: 10 });
    assert.equal(calls, 10);
    assert.deepEqual(batches, [1, 2, 4, 3]);
  });

  it('stops after the first batch with a failure, reporting successes and the error', async () => {
    let calls = 0;
    const result = await slowStartBatch(20, 1, async () => {
      calls++;
      if (calls === 5) throw new Error('quota exceeded');
    });
    // Batches 1, 2 and 4: the call that failed was in the third; the rest were never tried.
    assert.equal(calls, 7);
    assert.equal(result.successes, 6);
    assert.equal((result.error as Error).message, 'quota exceeded');
  });

  it('does nothing for a count of zero and honours a larger initial batch', async () => {
    let calls = 0;
    assert.deepEqual(await slowStartBatch(0, 1, async () => void calls++), { successes: 0 });
    assert.equal(calls, 0);
    const sizes: number[] = [];
    let pending = 0;
    await slowStartBatch(7, 3, async () => {
      pending++;
      await Promise.resolve();
      if (pending > 0) sizes.push(pending);
      pending = 0;
    });
    assert.deepEqual(sizes, [3, 4]);
  });
});
