import { hostname } from 'node:os';
import { describe, it } from 'node:test';
import assert from '../testing/assert.js';
import { MemoryResourceClient } from '../testing/memory-resource-client.js';
import { FakeClock } from '../util/clock.js';
import type { Logger } from '../util/logger.js';
import { FakeRecorder } from './events/fake-recorder.js';
import {
  defaultIdentity,
  LEADER_ELECTION_DEFAULTS,
  LEADER_ELECTION_FLAGS,
  LeaderElector,
  type LeaderElectorOptions,
} from './leader-election.js';
import type { KubeObject, ResourceClient } from './types.js';

const START = Date.parse('2025-03-01T10:00:00Z');
const flush = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Moves the fake clock forward in small steps, letting the promise chains run in between. */
async function advance(clock: FakeClock, ms: number, step = 100): Promise<void> {
  await flush();
  for (let done = 0; done < ms; done += step) {
    clock.step(Math.min(step, ms - done));
    await flush();
  }
}

type Mode = 'ok' | 'fail' | 'hang';

/** The candidate's own view of the leases client, whose calls can be made to fail or hang. */
function controllable(inner: ResourceClient): { client: ResourceClient; setMode(m: Mode): void } {
  let mode: Mode = 'ok';
  const client = new Proxy(inner, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver);
      if (typeof value !== 'function' || prop === 'namespace') return value;
      return (...args: unknown[]) => {
        if (mode === 'fail') return Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:6443'));
        if (mode === 'hang') return new Promise(() => {});
        return value.apply(target, args);
      };
    },
  });
  return { client, setMode: (m) => (mode = m) };
}

interface Candidate {
  elector: LeaderElector;
  setMode(m: Mode): void;
  leading: boolean;
  started: number;
  stopped: number;
  signal?: AbortSignal;
  newLeaders: string[];
  cancel: AbortController;
  done: Promise<void>;
}

function candidate(
  identity: string,
  leases: MemoryResourceClient,
  clock: FakeClock,
  extra: Partial<LeaderElectorOptions> = {},
): Candidate {
  const { client, setMode } = controllable(leases.namespace('kube-system'));
  const c = { setMode, leading: false, started: 0, stopped: 0, newLeaders: [] as string[] } as unknown as Candidate;
  c.elector = new LeaderElector({
    leases: client,
    lockName: 'kube-controller-manager',
    lockNamespace: 'kube-system',
    identity,
    clock,
    onStartedLeading(signal) {
      c.leading = true;
      c.started++;
      c.signal = signal;
      signal.addEventListener('abort', () => {
        c.leading = false;
      });
    },
    onStoppedLeading() {
      c.stopped++;
    },
    onNewLeader(id) {
      c.newLeaders.push(id);
    },
    ...extra,
  });
  c.cancel = new AbortController();
  c.done = c.elector.run(c.cancel.signal);
  return c;
}

function newLeases(): MemoryResourceClient {
  return new MemoryResourceClient({ group: 'coordination.k8s.io', resource: 'leases', kind: 'Lease' });
}

async function lease(leases: MemoryResourceClient): Promise<KubeObject> {
  return leases.namespace('kube-system').get('kube-controller-manager');
}

function capturingLogger(lines: string[]): Logger {
  const logger: Logger = {
    info: (msg) => lines.push(msg),
    error: (msg) => lines.push(msg),
    v: () => ({ info: (msg) => lines.push(msg) }),
    child: () => logger,
  };
  return logger;
}

describe('LeaderElector', () => {
  it('lets exactly one of two candidates lead, and writes the Lease as upstream does', async () => {
    const clock = new FakeClock(START);
    const leases = newLeases();
    const a = candidate('a', leases, clock);
    const b = candidate('b', leases, clock);
    await advance(clock, 30_000);

    assert.equal([a, b].filter((c) => c.leading).length, 1);
    const leader = a.leading ? a : b;
    const other = a.leading ? b : a;
    assert.equal(leader.started, 1);
    assert.equal(other.started, 0);
    assert.ok(leader.elector.isLeader());
    assert.equal(other.elector.getLeader(), leader.elector.getLeader());

    const l = await lease(leases);
    assert.equal(l.apiVersion, 'coordination.k8s.io/v1');
    assert.equal(l.kind, 'Lease');
    assert.equal(l.spec.holderIdentity, leader === a ? 'a' : 'b');
    assert.equal(l.spec.leaseDurationSeconds, 15);
    assert.equal(l.spec.leaseTransitions, 0);
    assert.match(l.spec.acquireTime, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    assert.equal(l.spec.acquireTime, '2025-03-01T10:00:00.000000Z');
    // Renewed every retryPeriod: the last renewal is at most 2 s old.
    assert.ok(clock.now() - Date.parse(l.spec.renewTime) <= 2_000);
    assert.deepEqual(a.newLeaders, [l.spec.holderIdentity]);
    assert.deepEqual(b.newLeaders, [l.spec.holderIdentity]);

    a.cancel.abort();
    b.cancel.abort();
    await Promise.all([a.done, b.done]);
  });

  it('hands over when the leader hangs: its signal aborts after renewDeadline, the other takes over after leaseDuration', async () => {
    const clock = new FakeClock(START);
    const leases = newLeases();
    const a = candidate('a', leases, clock);
    await advance(clock, 1_000);
    assert.ok(a.leading);
    const b = candidate('b', leases, clock);
    await advance(clock, 20_000);
    assert.ok(a.leading && !b.leading);

    const hungAt = clock.now();
    const lastRenewal = Date.parse((await lease(leases)).spec.renewTime);
    a.setMode('hang');
    await advance(clock, 9_900);
    assert.equal(a.signal?.aborted, false, 'still leading before renewDeadline');
    assert.equal(a.stopped, 0);
    await advance(clock, 2_200); // the renewal attempt that hangs starts within one retryPeriod of hungAt
    assert.equal(a.signal?.aborted, true, 'the leading signal aborts once renewDeadline has passed');
    assert.equal(a.stopped, 1);
    await a.done;
    assert.equal(b.leading, false, 'the lease is still valid for b');

    await advance(clock, hungAt + 25_000 - clock.now());
    assert.ok(b.leading);
    const l = await lease(leases);
    assert.equal(l.spec.holderIdentity, 'b');
    assert.equal(l.spec.leaseTransitions, 1);
    assert.ok(
      Date.parse(l.spec.acquireTime) >= lastRenewal + 15_000,
      'not before leaseDuration since the last renewal',
    );
    assert.deepEqual(b.newLeaders, ['a', 'b']);

    b.cancel.abort();
    await b.done;
  });

  it('stops leading when renewals fail, and records the LeaderElection events', async () => {
    const clock = new FakeClock(START);
    const leases = newLeases();
    const recorder = new FakeRecorder(true);
    const lines: string[] = [];
    const a = candidate('a', leases, clock, { eventRecorder: recorder, logger: capturingLogger(lines) });
    await advance(clock, 5_000);
    assert.ok(a.leading);
    assert.deepEqual(recorder.events, [
      'Normal LeaderElection a became leader involvedObject{kind=Lease,apiVersion=coordination.k8s.io/v1}',
    ]);

    a.setMode('fail');
    await advance(clock, 12_200);
    assert.equal(a.leading, false);
    assert.equal(a.stopped, 1);
    await a.done;
    assert.equal(
      recorder.events.at(-1),
      'Normal LeaderElection a stopped leading involvedObject{kind=Lease,apiVersion=coordination.k8s.io/v1}',
    );
    assert.ok(lines.includes('attempting to acquire leader lease kube-system/kube-controller-manager...'));
    assert.ok(lines.includes('failed to renew lease kube-system/kube-controller-manager: context deadline exceeded'));
  });

  it('releases the lease on cancel so that another candidate takes it at once', async () => {
    const clock = new FakeClock(START);
    const leases = newLeases();
    const a = candidate('a', leases, clock, { releaseOnCancel: true });
    await advance(clock, 1_000);
    const b = candidate('b', leases, clock);
    await advance(clock, 10_000);
    assert.ok(a.leading && !b.leading);

    a.cancel.abort();
    await a.done; // the release needs no time to pass
    assert.equal(a.stopped, 1);
    const released = await lease(leases);
    assert.equal(released.spec.holderIdentity, '');
    assert.equal(released.spec.leaseDurationSeconds, 1);
    assert.equal(released.spec.leaseTransitions, 0);

    const releasedAt = clock.now();
    await advance(clock, 4_500); // one jittered retry period, far less than leaseDuration
    assert.ok(b.leading);
    const l = await lease(leases);
    assert.equal(l.spec.holderIdentity, 'b');
    assert.equal(l.spec.leaseTransitions, 1);
    assert.ok(clock.now() - releasedAt < 15_000);

    b.cancel.abort();
    await b.done;
  });

  it('without releaseOnCancel the lease stays held until it expires', async () => {
    const clock = new FakeClock(START);
    const leases = newLeases();
    const a = candidate('a', leases, clock);
    await advance(clock, 1_000);
    const b = candidate('b', leases, clock);
    await advance(clock, 5_000);
    a.cancel.abort();
    await advance(clock, 100);
    await a.done;
    assert.equal((await lease(leases)).spec.holderIdentity, 'a');
    await advance(clock, 8_000);
    assert.equal(b.leading, false);
    await advance(clock, 15_000);
    assert.equal(b.leading, true);
    b.cancel.abort();
    await b.done;
  });

  it('uses resourceVersion: of two candidates taking an expired lease at the same moment, one gets a Conflict', async () => {
    const clock = new FakeClock(START);
    const leases = newLeases();
    await leases.namespace('kube-system').create({
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name: 'kube-controller-manager' },
      spec: {
        holderIdentity: 'gone',
        leaseDurationSeconds: 15,
        acquireTime: '2025-03-01T09:00:00.000000Z',
        renewTime: '2025-03-01T09:00:00.000000Z',
        leaseTransitions: 4,
      },
    });
    const lines: string[] = [];
    const opts = { random: () => 0, logger: capturingLogger(lines) };
    const a = candidate('a', leases, clock, opts);
    const b = candidate('b', leases, clock, opts);
    // Both judge expiry by when they saw the record, not by its renewTime: nobody takes it for 15 s.
    await advance(clock, 14_000);
    assert.ok(!a.leading && !b.leading);
    await advance(clock, 6_000);
    assert.equal([a, b].filter((c) => c.leading).length, 1);
    assert.ok(lines.some((l) => l.startsWith('Failed to update lock: Operation cannot be fulfilled on leases')));
    const l = await lease(leases);
    assert.equal(l.spec.leaseTransitions, 5);
    a.cancel.abort();
    b.cancel.abort();
    await Promise.all([a.done, b.done]);
  });

  it('calls onStoppedLeading when cancelled before ever leading, as upstream', async () => {
    const clock = new FakeClock(START);
    const leases = newLeases();
    const a = candidate('a', leases, clock);
    await advance(clock, 1_000);
    const b = candidate('b', leases, clock);
    await advance(clock, 3_000);
    b.cancel.abort();
    await b.done;
    assert.equal(b.started, 0);
    assert.equal(b.stopped, 1);
    a.cancel.abort();
    await a.done;
  });

  it('checks its options as upstream', () => {
    const base = {
      leases: newLeases(),
      lockName: 'x',
      identity: 'me',
      onStartedLeading: () => {},
      onStoppedLeading: () => {},
    };
    assert.throws(
      () => new LeaderElector({ ...base, leaseDurationMs: 10_000 }),
      /leaseDuration must be greater than renewDeadline/,
    );
    assert.throws(
      () => new LeaderElector({ ...base, retryPeriodMs: 9_000 }),
      /renewDeadline must be greater than retryPeriod\*JitterFactor/,
    );
    assert.throws(() => new LeaderElector({ ...base, identity: '' }), /Lock identity is empty/);
    assert.doesNotThrow(() => new LeaderElector(base));
  });

  it('names the identity and flags as kube-controller-manager does', () => {
    assert.match(defaultIdentity(), new RegExp(`^${hostname()}_[0-9a-f-]{36}$`));
    assert.equal(LEADER_ELECTION_FLAGS.leaseDuration, 'leader-elect-lease-duration');
    assert.equal(LEADER_ELECTION_DEFAULTS.resourceNamespace, 'kube-system');
    assert.equal(LEADER_ELECTION_DEFAULTS.leaseDurationMs, 15_000);
    assert.equal(LEADER_ELECTION_DEFAULTS.renewDeadlineMs, 10_000);
    assert.equal(LEADER_ELECTION_DEFAULTS.retryPeriodMs, 2_000);
  });
});
