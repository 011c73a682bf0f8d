import { describe, it } from 'node:test';
import assert from '../../testing/assert.js';
import { MemoryResourceClient } from '../../testing/memory-resource-client.js';
import { FakeClock } from '../../util/clock.js';
import type { Logger } from '../../util/logger.js';
import { ApiError, type KubeObject } from '../types.js';
import { EventBroadcaster, MAX_TRIES_PER_EVENT } from './broadcaster.js';
import type { CoreEvent } from './event.js';
import { FakeRecorder } from './fake-recorder.js';

const START = Date.parse('2025-03-01T10:00:00Z');
const flush = () => new Promise<void>((resolve) => setImmediate(resolve));

const pod: KubeObject = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'web-1', namespace: 'shop', uid: 'uid-1', resourceVersion: '42' },
};
const node: KubeObject = { apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-a', uid: 'uid-n' } };

function setup(opts: { random?: () => number } = {}) {
  const clock = new FakeClock(START);
  const events = new MemoryResourceClient<CoreEvent>({ resource: 'events', kind: 'Event', now: () => clock.now() });
  const lines: string[] = [];
  const logger: Logger = {
    info: (msg) => lines.push(msg),
    error: (msg) => lines.push(msg),
    v: () => ({ info: (msg) => lines.push(msg) }),
    child: () => logger,
  };
  const broadcaster = new EventBroadcaster({ sink: events, clock, logger, random: opts.random ?? (() => 0.5) });
  const recorder = broadcaster.recorder('deployment-controller', 'cp-1');
  return { clock, events, lines, broadcaster, recorder };
}

const transportError = () => Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:6443'));

describe('EventBroadcaster and its recorders', () => {
  it('creates a core/v1 Event for the first occurrence', async () => {
    const { events, broadcaster, recorder } = setup();
    recorder.event(pod, 'Normal', 'Scheduled', 'Successfully assigned shop/web-1 to node-a');
    await broadcaster.flush();

    const [ev, ...rest] = events.all();
    assert.equal(rest.length, 0);
    assert.ok(ev);
    assert.match(ev.metadata.name ?? '', /^web-1\.[0-9a-f]{16}$/);
    const nanos = BigInt(`0x${ev.metadata.name?.split('.')[1]}`);
    assert.equal(nanos / 1_000_000n, BigInt(START));
    assert.equal(ev.metadata.namespace, 'shop');
    assert.deepEqual(ev.involvedObject, {
      kind: 'Pod',
      apiVersion: 'v1',
      name: 'web-1',
      namespace: 'shop',
      uid: 'uid-1',
      resourceVersion: '42',
    });
    assert.deepEqual(ev.source, { component: 'deployment-controller', host: 'cp-1' });
    assert.equal(ev.reportingComponent, 'deployment-controller');
    assert.equal(ev.reportingInstance, 'cp-1');
    assert.equal(ev.type, 'Normal');
    assert.equal(ev.reason, 'Scheduled');
    assert.equal(ev.message, 'Successfully assigned shop/web-1 to node-a');
    assert.equal(ev.count, 1);
    assert.equal(ev.firstTimestamp, '2025-03-01T10:00:00Z');
    assert.equal(ev.lastTimestamp, '2025-03-01T10:00:00Z');
  });

  it('turns a repeat into a strategic merge patch of count and lastTimestamp', async () => {
    const { clock, events, broadcaster, recorder } = setup();
    recorder.event(pod, 'Warning', 'BackOff', 'Back-off restarting failed container');
    await broadcaster.flush();
    clock.step(5_000);
    recorder.eventf(pod, 'Warning', 'BackOff', 'Back-off restarting failed %s', 'container');
    await broadcaster.flush();

    const all = events.all();
    assert.equal(all.length, 1);
    const [ev] = all;
    assert.equal(ev?.count, 2);
    assert.equal(ev?.firstTimestamp, '2025-03-01T10:00:00Z');
    assert.equal(ev?.lastTimestamp, '2025-03-01T10:00:05Z');
    const patch = events.actions.find((a) => a.verb === 'patch');
    assert.equal(patch?.patchType, 'strategic');
    assert.equal(patch?.namespace, 'shop');
    assert.equal(patch?.name, ev?.metadata.name);
    assert.deepEqual(patch?.patch, {
      count: 2,
      lastTimestamp: '2025-03-01T10:00:05Z',
      message: 'Back-off restarting failed container',
    });

    clock.step(1_000);
    recorder.event(pod, 'Warning', 'BackOff', 'Back-off restarting failed container');
    await broadcaster.flush();
    assert.equal(events.all()[0]?.count, 3);
  });

  it('writes each event through the sink its source picks (one broadcaster for several nodes)', async () => {
    const clock = new FakeClock(START);
    const sinks = new Map(
      ['node-a', 'node-b'].map((host) => [
        host,
        new MemoryResourceClient<CoreEvent>({ resource: 'events', kind: 'Event', now: () => clock.now() }),
      ]),
    );
    const broadcaster = new EventBroadcaster({
      sink: (event) => sinks.get(event.source.host ?? '') as MemoryResourceClient<CoreEvent>,
      clock,
    });
    const a = broadcaster.recorder('kubelet', 'node-a');
    const b = broadcaster.recorder('kubelet', 'node-b');
    a.event(pod, 'Normal', 'Pulled', 'pulled');
    b.event(node, 'Normal', 'Starting', 'Starting kubelet.');
    await broadcaster.flush();
    clock.step(1_000);
    a.event(pod, 'Normal', 'Pulled', 'pulled');
    await broadcaster.flush();
    const onA = sinks.get('node-a') as MemoryResourceClient<CoreEvent>;
    const onB = sinks.get('node-b') as MemoryResourceClient<CoreEvent>;
    assert.deepEqual(
      onA.actions.map((x) => x.verb),
      ['create', 'patch'],
      'the repeat is patched through the same sink',
    );
    assert.deepEqual(
      onB.all().map((e) => e.reason),
      ['Starting'],
    );
    assert.equal(onA.all()[0]?.count, 2);
  });

  it('creates the event anew when the one to patch was deleted', async () => {
    const { events, broadcaster, recorder } = setup();
    recorder.event(pod, 'Normal', 'Pulled', 'Container image "nginx" already present on machine');
    await broadcaster.flush();
    const name = events.all()[0]?.metadata.name ?? '';
    await events.namespace('shop').delete(name);
    recorder.event(pod, 'Normal', 'Pulled', 'Container image "nginx" already present on machine');
    await broadcaster.flush();
    const [ev] = events.all();
    assert.equal(ev?.metadata.name, name);
    assert.equal(ev?.count, 2);
  });

  it('aggregates similar events (differing only in message) once 10 arrive within 10 minutes', async () => {
    const { clock, events, broadcaster, recorder } = setup();
    for (let i = 1; i <= 9; i++) {
      recorder.eventf(pod, 'Warning', 'FailedMount', 'MountVolume.SetUp failed for volume "v%d"', i);
      await broadcaster.flush();
      clock.step(1_000);
    }
    assert.equal(events.all().length, 9);

    recorder.event(pod, 'Warning', 'FailedMount', 'MountVolume.SetUp failed for volume "v10"');
    await broadcaster.flush();
    const combined = events.all().filter((e) => e.message.startsWith('(combined from similar events): '));
    assert.equal(combined.length, 1);
    assert.equal(combined[0]?.message, '(combined from similar events): MountVolume.SetUp failed for volume "v10"');
    assert.equal(combined[0]?.count, 1);
    assert.equal(combined[0]?.reason, 'FailedMount');
    assert.match(combined[0]?.metadata.name ?? '', /^web-1\.[0-9a-f]+$/);

    clock.step(1_000);
    recorder.event(pod, 'Warning', 'FailedMount', 'MountVolume.SetUp failed for volume "v11"');
    await broadcaster.flush();
    const all = events.all();
    assert.equal(all.length, 10);
    const again = all.find((e) => e.metadata.name === combined[0]?.metadata.name);
    assert.equal(again?.count, 2);
    assert.equal(again?.message, '(combined from similar events): MountVolume.SetUp failed for volume "v11"');
  });

  it('does not aggregate similar events spread over more than 10 minutes', async () => {
    const { clock, events, broadcaster, recorder } = setup();
    for (let i = 1; i <= 12; i++) {
      recorder.eventf(pod, 'Normal', 'Tick', 'tick %d', i);
      await broadcaster.flush(); // the correlator reads the clock when it handles the event
      clock.step(11 * 60_000);
    }
    assert.equal(events.all().filter((e) => e.message.startsWith('(combined')).length, 0);
  });

  it('writes events about cluster-scoped objects to the default namespace', async () => {
    const { events, broadcaster, recorder } = setup();
    recorder.event(node, 'Normal', 'NodeReady', 'Node node-a status is now: NodeReady');
    await broadcaster.flush();
    const [ev] = events.all();
    assert.equal(ev?.metadata.namespace, 'default');
    assert.equal(ev?.involvedObject.namespace, undefined);
    assert.equal(ev?.involvedObject.kind, 'Node');
  });

  it('lets a source burst 25 events about one object, then one more every 5 minutes', async () => {
    const { clock, events, broadcaster, recorder } = setup();
    for (let i = 0; i < 30; i++) recorder.event(pod, 'Normal', `Reason${i}`, 'm');
    await broadcaster.flush();
    assert.equal(events.all().length, 25);
    // Other objects and other types have buckets of their own.
    recorder.event(node, 'Normal', 'Other', 'm');
    recorder.event(pod, 'Warning', 'Other', 'm');
    await broadcaster.flush();
    assert.equal(events.all().length, 27);

    clock.step(300_000);
    recorder.event(pod, 'Normal', 'Late1', 'm');
    recorder.event(pod, 'Normal', 'Late2', 'm');
    await broadcaster.flush();
    const late = events.all().filter((e) => e.reason.startsWith('Late'));
    assert.deepEqual(
      late.map((e) => e.reason),
      ['Late1'],
    );
  });

  it('writes from a queue, one request at a time, without blocking the caller', async () => {
    const { events, broadcaster, recorder } = setup();
    let inFlight = 0;
    let most = 0;
    events.prependReactor('*', async () => {
      inFlight++;
      most = Math.max(most, inFlight);
      await flush();
      inFlight--;
    });
    const objects = Array.from({ length: 40 }, (_, i) => ({
      ...pod,
      metadata: { ...pod.metadata, name: `web-${i}`, uid: `u${i}` },
    }));
    for (const o of objects) recorder.event(o, 'Normal', 'Created', 'Created container web');
    assert.equal(events.actions.length, 0, 'nothing is sent before the caller yields');
    await broadcaster.flush();
    assert.equal(events.all().length, 40);
    assert.equal(most, 1);
  });

  it('never throws at the caller', async () => {
    const { events, broadcaster, recorder, lines } = setup();
    assert.doesNotThrow(() => recorder.event({ metadata: { name: 'no-kind' } }, 'Normal', 'X', 'y'));
    assert.doesNotThrow(() => recorder.event(pod, 'Info', 'X', 'y'));
    assert.doesNotThrow(() => recorder.event(undefined as unknown as KubeObject, 'Normal', 'X', 'y'));
    await broadcaster.flush();
    assert.equal(events.actions.length, 0);
    assert.ok(lines.includes('Could not construct reference, will not report event'));
    assert.ok(lines.includes('Unsupported event type'));
  });

  it('gives an event up when the apiserver refuses it', async () => {
    const { events, broadcaster, recorder, lines } = setup();
    events.prependReactor('create', () => {
      throw new ApiError({
        kind: 'Status',
        apiVersion: 'v1',
        status: 'Failure',
        reason: 'Forbidden',
        code: 403,
        message:
          'events is forbidden: User "x" cannot create resource "events" in API group "" in the namespace "shop"',
      });
    });
    recorder.event(pod, 'Normal', 'Created', 'Created container web');
    await broadcaster.flush();
    assert.equal(events.actions.filter((a) => a.verb === 'create').length, 1);
    assert.ok(lines.includes('Server rejected event (will not retry!)'));
  });

  it('retries when the apiserver cannot be reached, waiting on the clock', async () => {
    const { clock, events, broadcaster, recorder } = setup({ random: () => 0.25 });
    let failures = 2;
    events.prependReactor('create', () => (failures-- > 0 ? transportError() : undefined));
    recorder.event(pod, 'Normal', 'Created', 'Created container web');
    await flush();
    assert.equal(events.actions.length, 1);
    clock.step(2_499); // the first wait is sleepDuration × random()
    await flush();
    assert.equal(events.actions.length, 1);
    clock.step(1);
    await flush();
    assert.equal(events.actions.length, 2);
    clock.step(10_000);
    await broadcaster.flush();
    assert.equal(events.actions.length, 3);
    assert.equal(events.all().length, 1);
  });

  it(`stops retrying after ${MAX_TRIES_PER_EVENT} tries`, async () => {
    const { clock, events, broadcaster, recorder, lines } = setup();
    events.prependReactor('create', transportError);
    recorder.event(pod, 'Normal', 'Created', 'Created container web');
    for (let i = 0; i < 20; i++) {
      await flush();
      clock.step(10_000);
    }
    await broadcaster.flush();
    assert.equal(events.actions.length, MAX_TRIES_PER_EVENT);
    assert.ok(lines.includes('Unable to write event (retry limit exceeded!)'));
  });

  it('shutdown() writes what is queued and gives up waiting retries', async () => {
    const { events, broadcaster, recorder } = setup();
    recorder.event(pod, 'Normal', 'A', 'a');
    recorder.event(pod, 'Normal', 'B', 'b');
    await broadcaster.shutdown();
    assert.equal(events.all().length, 2);
    recorder.event(pod, 'Normal', 'C', 'c');
    await flush();
    assert.equal(events.all().length, 2, 'nothing is taken after shutdown');

    const second = setup();
    second.events.prependReactor('create', transportError);
    second.recorder.event(pod, 'Normal', 'A', 'a');
    await flush();
    await second.broadcaster.shutdown();
    assert.ok(second.lines.includes('Unable to write event (broadcaster is shut down)'));
  });

  it('annotatedEventf sets annotations; startStructuredLogging logs each event', async () => {
    const { events, broadcaster, recorder, lines } = setup();
    broadcaster.startStructuredLogging(2);
    recorder.annotatedEventf(pod, { 'example.com/trace': 't-1' }, 'Normal', 'Synced', 'synced %d items', 3);
    await broadcaster.flush();
    const [ev] = events.all();
    assert.deepEqual(ev?.metadata.annotations, { 'example.com/trace': 't-1' });
    assert.equal(ev?.message, 'synced 3 items');
    assert.ok(lines.includes('Event occurred'));
  });

  it('gives each watcher its own copy of an event', async () => {
    const { broadcaster, recorder } = setup();
    const seen: CoreEvent[][] = [[], []];
    for (const list of seen) broadcaster.startEventWatcher((e) => void list.push(e));
    recorder.event(pod, 'Normal', 'Pulling', 'Pulling image "nginx"');
    await broadcaster.flush();
    const [a, b] = seen.map((list) => list[0]);
    assert.ok(a && b && a !== b);
    a.message = 'changed by the first watcher';
    assert.equal(b.message, 'Pulling image "nginx"');
  });

  it('accepts an ObjectReference as the subject', async () => {
    const { events, broadcaster, recorder } = setup();
    recorder.event(
      { kind: 'Pod', apiVersion: 'v1', name: 'web-1', namespace: 'shop', fieldPath: 'spec.containers{web}' },
      'Normal',
      'Pulling',
      'Pulling image "nginx"',
    );
    await broadcaster.flush();
    assert.equal(events.all()[0]?.involvedObject.fieldPath, 'spec.containers{web}');
  });
});

describe('FakeRecorder', () => {
  it('keeps "<type> <reason> <message>" strings as upstream', () => {
    const r = new FakeRecorder();
    r.event(pod, 'Normal', 'Created', 'Created pod: 100%');
    r.eventf(pod, 'Warning', 'FailedCreate', 'Error creating: %v', new Error('quota exceeded'));
    assert.deepEqual(r.events, [
      'Normal Created Created pod: 100%',
      'Warning FailedCreate Error creating: quota exceeded',
    ]);
    const withObject = new FakeRecorder(true);
    withObject.annotatedEventf(pod, { a: 'b' }, 'Normal', 'R', 'm');
    assert.deepEqual(withObject.events, ['Normal R m involvedObject{kind=Pod,apiVersion=v1} map[a:b]']);
  });
});
