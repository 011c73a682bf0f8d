import { describe, it } from 'node:test';
import assert from '../../testing/assert.js';
import { FakeClock } from '../../util/clock.js';
import { type Pod, type PreEnqueuePlugin, type QueuedPodInfo, QueueingHint, Status } from '../framework/types.js';
import { EVENT_ASSIGNED_POD_ADD, EVENT_NODE_ADD } from './events.js';
import {
  type QueuedPod,
  type QueueingHintEntry,
  SchedulingQueue,
  type SchedulingQueueOptions,
} from './scheduling-queue.js';

const less = (a: QueuedPodInfo, b: QueuedPodInfo) => {
  const pa = a.podInfo.pod.spec?.priority ?? 0;
  const pb = b.podInfo.pod.spec?.priority ?? 0;
  return pa > pb || (pa === pb && a.timestamp < b.timestamp);
};

function pod(name: string, extra: { priority?: number; gates?: string[]; rv?: string } = {}): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'default', uid: `uid-${name}`, resourceVersion: extra.rv ?? '1' },
    spec: {
      schedulerName: 'default-scheduler',
      containers: [{ name: 'c', image: 'nginx' }],
      ...(extra.priority !== undefined ? { priority: extra.priority } : {}),
      ...(extra.gates ? { schedulingGates: extra.gates.map((g) => ({ name: g })) } : {}),
    },
    status: { phase: 'Pending' },
  };
}

function newQueue(clock: FakeClock, opts: Partial<SchedulingQueueOptions> = {}): SchedulingQueue {
  return new SchedulingQueue({ less, clock, popFromBackoffQ: false, ...opts });
}

/** A plugin 'Fit' that cares about node adds, with an optional hint. */
function hints(hint?: QueueingHintEntry['hint']): Map<string, QueueingHintEntry[]> {
  return new Map([
    [
      'default-scheduler',
      [{ plugin: 'Fit', event: { resource: 'Node', actions: ['Add'] }, ...(hint ? { hint } : {}) }],
    ],
  ]);
}

function fail(q: SchedulingQueue, qp: QueuedPod, plugins: string[]): void {
  for (const p of plugins) qp.unschedulablePlugins.add(p);
  q.addUnschedulableIfNotPresent(qp);
}

const names = (pods: Pod[]) => pods.map((p) => p.metadata.name).sort();

describe('SchedulingQueue', () => {
  it('pops by priority, then by the time pods were added', () => {
    const clock = new FakeClock(1000);
    const q = newQueue(clock);
    q.add(pod('low-1', { priority: 1 }));
    clock.step(1);
    q.add(pod('high', { priority: 100 }));
    clock.step(1);
    q.add(pod('low-2', { priority: 1 }));
    clock.step(1);
    q.add(pod('none'));
    const order = [q.tryPop(), q.tryPop(), q.tryPop(), q.tryPop()].map((p) => p?.podInfo.pod.metadata.name);
    assert.deepEqual(order, ['high', 'low-1', 'low-2', 'none']);
    assert.equal(q.tryPop(), undefined);
    assert.equal(q.schedulingCycle(), 4);
  });

  it('pop waits for a pod and ends when the queue closes', async () => {
    const clock = new FakeClock();
    const q = newQueue(clock);
    const waiting = q.pop();
    q.add(pod('a'));
    assert.equal((await waiting)?.podInfo.pod.metadata.name, 'a');
    const next = q.pop();
    q.close();
    assert.equal(await next, undefined);
  });

  it('backs off 1s, doubling up to 10s, then flushes to activeQ', () => {
    const clock = new FakeClock(0);
    const q = newQueue(clock);
    q.add(pod('a'));
    const expected = [1000, 2000, 4000, 8000, 10_000, 10_000];
    for (const backoff of expected) {
      const qp = q.tryPop() as QueuedPod;
      // Failed by an error (no plugin rejected it): straight to backoffQ.
      q.addUnschedulableIfNotPresent(qp);
      assert.deepEqual(names(q.podsInBackoffQ()), ['a']);
      assert.equal(q.backoffTime(qp) - clock.now(), backoff);
      clock.step(backoff - 1);
      q.flushBackoffQCompleted();
      assert.deepEqual(names(q.podsInActiveQ()), [], `still backing off before ${backoff} ms`);
      clock.step(1);
      q.flushBackoffQCompleted();
      assert.deepEqual(names(q.podsInActiveQ()), ['a']);
    }
  });

  it('run() flushes backoffQ every second on the clock', () => {
    const clock = new FakeClock(0);
    const q = newQueue(clock);
    q.run();
    q.add(pod('a'));
    q.addUnschedulableIfNotPresent(q.tryPop() as QueuedPod);
    clock.step(999);
    assert.equal(q.podsInActiveQ().length, 0);
    clock.step(1);
    assert.deepEqual(names(q.podsInActiveQ()), ['a']);
    q.close();
  });

  it('keeps a rejected pod unschedulable until an event its plugin registered for', () => {
    const clock = new FakeClock(0);
    const q = newQueue(clock, { queueingHints: hints() });
    q.add(pod('a'));
    fail(q, q.tryPop() as QueuedPod, ['Fit']);
    assert.deepEqual(names(q.unschedulablePods()), ['a']);
    // An event nobody registered for moves nothing.
    q.moveAllToActiveOrBackoffQueue(EVENT_ASSIGNED_POD_ADD, undefined, pod('other'));
    assert.deepEqual(names(q.unschedulablePods()), ['a']);
    // A node added: to backoffQ while backing off, to activeQ once the backoff is over.
    q.moveAllToActiveOrBackoffQueue(EVENT_NODE_ADD, undefined, { metadata: { name: 'n1' } });
    assert.deepEqual(names(q.podsInBackoffQ()), ['a']);
    clock.step(1000);
    q.flushBackoffQCompleted();
    assert.deepEqual(names(q.podsInActiveQ()), ['a']);
  });

  it('goes straight to activeQ when the event comes after the backoff', () => {
    const clock = new FakeClock(0);
    const q = newQueue(clock, { queueingHints: hints() });
    q.add(pod('a'));
    fail(q, q.tryPop() as QueuedPod, ['Fit']);
    clock.step(5000);
    q.moveAllToActiveOrBackoffQueue(EVENT_NODE_ADD, undefined, { metadata: { name: 'n1' } });
    assert.deepEqual(names(q.podsInActiveQ()), ['a']);
  });

  it('asks the queueing hint whether the event helps', () => {
    const clock = new FakeClock(0);
    const q = newQueue(clock, {
      queueingHints: hints((_pod, _old, node) =>
        node?.metadata.name === 'big' ? QueueingHint.Queue : QueueingHint.Skip,
      ),
    });
    q.add(pod('a'));
    fail(q, q.tryPop() as QueuedPod, ['Fit']);
    clock.step(5000);
    q.moveAllToActiveOrBackoffQueue(EVENT_NODE_ADD, undefined, { metadata: { name: 'small' } });
    assert.deepEqual(names(q.unschedulablePods()), ['a']);
    q.moveAllToActiveOrBackoffQueue(EVENT_NODE_ADD, undefined, { metadata: { name: 'big' } });
    assert.deepEqual(names(q.podsInActiveQ()), ['a']);
  });

  it('a pod rejected by a plugin without interest in the event stays', () => {
    const clock = new FakeClock(0);
    const q = newQueue(clock, { queueingHints: hints() });
    q.add(pod('a'));
    fail(q, q.tryPop() as QueuedPod, ['Other']);
    clock.step(5000);
    q.moveAllToActiveOrBackoffQueue(EVENT_NODE_ADD, undefined, { metadata: { name: 'n1' } });
    assert.deepEqual(names(q.unschedulablePods()), ['a']);
  });

  it('flushes unschedulable pods after podMaxInUnschedulablePodsDuration (5 min), checked every 30 s', () => {
    const clock = new FakeClock(0);
    const q = newQueue(clock, { queueingHints: hints() });
    q.run();
    q.add(pod('a'));
    fail(q, q.tryPop() as QueuedPod, ['Fit']);
    clock.step(5 * 60_000);
    assert.deepEqual(names(q.unschedulablePods()), ['a'], 'not longer than 5 min yet');
    clock.step(30_000);
    assert.deepEqual(names(q.podsInActiveQ()), ['a']);
    q.close();
  });

  it('does not lose an event that arrives while the pod is being scheduled', () => {
    const clock = new FakeClock(0);
    const q = newQueue(clock, { queueingHints: hints() });
    q.add(pod('a'));
    q.add(pod('b'));
    const a = q.tryPop() as QueuedPod;
    // The node arrives during a's attempt, which then fails because of Fit.
    q.moveAllToActiveOrBackoffQueue(EVENT_NODE_ADD, undefined, { metadata: { name: 'n1' } });
    fail(q, a, ['Fit']);
    assert.deepEqual(names(q.podsInBackoffQ()), ['a'], 'requeued, not parked');
    // b's attempt starts after the event: its failure parks it.
    const b = q.tryPop() as QueuedPod;
    fail(q, b, ['Fit']);
    assert.deepEqual(names(q.unschedulablePods()), ['b']);
    assert.deepEqual(q.inFlight(), []);
  });

  it('keeps gated pods aside until their gates are removed', () => {
    const clock = new FakeClock(0);
    const gates: PreEnqueuePlugin = {
      name: 'SchedulingGates',
      preEnqueue: (p) =>
        (p.spec?.schedulingGates ?? []).length > 0
          ? Status.unresolvable('waiting for scheduling gates')
          : Status.success(),
    };
    const q = newQueue(clock, {
      preEnqueuePlugins: new Map([['default-scheduler', [gates]]]),
      queueingHints: new Map([
        [
          'default-scheduler',
          [{ plugin: 'SchedulingGates', event: { resource: 'Pod', actions: ['UpdatePodSchedulingGatesEliminated'] } }],
        ],
      ]),
    });
    const gated = pod('a', { gates: ['example.com/wait'] });
    q.add(gated);
    assert.equal(q.tryPop(), undefined);
    assert.deepEqual(q.pendingCounts(), { active: 0, backoff: 0, unschedulable: 0, gated: 1 });
    // Unrelated events and the 5-minute flush leave it gated.
    q.moveAllToActiveOrBackoffQueue(EVENT_NODE_ADD, undefined, { metadata: { name: 'n1' } });
    clock.step(10 * 60_000);
    q.flushUnschedulablePodsLeftover();
    assert.equal(q.pendingCounts().gated, 1);
    q.update(gated, pod('a', { rv: '2' }));
    assert.deepEqual(q.pendingCounts(), { active: 1, backoff: 0, unschedulable: 0, gated: 0 });
    assert.equal(q.tryPop()?.podInfo.pod.metadata.name, 'a');
  });

  it('pops a rejected pod from backoffQ when activeQ is empty (SchedulerPopFromBackoffQ)', () => {
    const clock = new FakeClock(0);
    const q = newQueue(clock, { popFromBackoffQ: true, queueingHints: hints() });
    q.add(pod('a'));
    fail(q, q.tryPop() as QueuedPod, ['Fit']);
    q.moveAllToActiveOrBackoffQueue(EVENT_NODE_ADD, undefined, { metadata: { name: 'n1' } });
    assert.deepEqual(names(q.podsInBackoffQ()), ['a']);
    assert.equal(q.tryPop()?.podInfo.pod.metadata.name, 'a');
  });

  it('never pops early a pod whose attempt failed with an error: it waits its backoff out', () => {
    const clock = new FakeClock(0);
    const q = newQueue(clock, { popFromBackoffQ: true, queueingHints: hints() });
    q.add(pod('a'));
    q.add(pod('b'));
    // a's binding failed (no plugin rejected it); b was rejected by Fit, then a node came.
    q.addUnschedulableIfNotPresent(q.tryPop() as QueuedPod);
    fail(q, q.tryPop() as QueuedPod, ['Fit']);
    q.moveAllToActiveOrBackoffQueue(EVENT_NODE_ADD, undefined, { metadata: { name: 'n1' } });
    assert.deepEqual(names(q.podsInBackoffQ()), ['a', 'b']);
    assert.equal(q.tryPop()?.podInfo.pod.metadata.name, 'b');
    assert.equal(q.tryPop(), undefined);
    assert.deepEqual(names(q.podsInBackoffQ()), ['a']);
    clock.step(1000);
    q.flushBackoffQCompleted();
    assert.equal(q.tryPop()?.podInfo.pod.metadata.name, 'a');
  });

  it('updates a queued pod in place and deletes it', () => {
    const clock = new FakeClock(0);
    const q = newQueue(clock);
    const a = pod('a');
    q.add(a);
    const updated = pod('a', { rv: '2' });
    updated.metadata.labels = { x: 'y' };
    q.update(a, updated);
    assert.equal(q.get('default', 'a')?.podInfo.pod.metadata.labels?.x, 'y');
    q.delete(updated);
    assert.equal(q.get('default', 'a'), undefined);
    assert.equal(q.tryPop(), undefined);
  });

  it('nominates pods to nodes and keeps an in-memory nomination across updates', () => {
    const clock = new FakeClock(0);
    const q = newQueue(clock);
    const p = pod('preemptor', { priority: 10 });
    q.add(p);
    const qp = q.tryPop() as QueuedPod;
    q.addNominatedPod(qp.podInfo, { mode: 'Override', nominatedNodeName: 'node-1' });
    assert.deepEqual(
      q.nominatedPodsForNode('node-1').map((pi) => pi.pod.metadata.name),
      ['preemptor'],
    );
    q.nominator.update(p, { pod: pod('preemptor', { rv: '2' }), cache: new Map() });
    assert.equal(q.nominatedPodsForNode('node-1').length, 1);
    q.deleteNominatedPodIfExists(p);
    assert.equal(q.nominatedPodsForNode('node-1').length, 0);
  });
});
