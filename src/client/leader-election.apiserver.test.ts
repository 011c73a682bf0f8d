/**
 * Leader election against a real in-process control plane: the Lease is written through the apiserver, a
 * release hands it over, and the LeaderElection event lands in kube-system.
 */
import { after, before, describe, it } from 'node:test';
import { type ControlPlane, startControlPlane } from '../index.js';
import assert from '../testing/assert.js';
import { EventBroadcaster } from './events/broadcaster.js';
import type { CoreEvent } from './events/event.js';
import { LeaderElector } from './leader-election.js';

let cp: ControlPlane;
before(async () => {
  cp = await startControlPlane({ storage: 'memory' });
});
after(() => cp?.stop());

/** Polls `check` until it holds (the elector runs on the real clock here, with short periods). */
async function eventually(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('LeaderElector against the apiserver', () => {
  it('elects one leader, hands over on release, and records LeaderElection events', async () => {
    const leases = cp.client.leases('kube-system');
    const broadcaster = new EventBroadcaster({ sink: cp.client.events() });
    const leading = new Set<string>();
    const elector = (identity: string) => {
      const cancel = new AbortController();
      const e = new LeaderElector({
        leases,
        lockName: 'wheelhouse-test',
        lockNamespace: 'kube-system',
        identity,
        leaseDurationMs: 3_000,
        renewDeadlineMs: 2_000,
        retryPeriodMs: 500,
        releaseOnCancel: true,
        eventRecorder: broadcaster.recorder('wheelhouse-test'),
        onStartedLeading: (signal) => {
          leading.add(identity);
          signal.addEventListener('abort', () => leading.delete(identity));
        },
        onStoppedLeading: () => {},
      });
      return { cancel, done: e.run(cancel.signal) };
    };

    const a = elector('a');
    await eventually(() => leading.has('a'), 'a to lead');
    const b = elector('b');
    let lease = await leases.get('wheelhouse-test');
    assert.equal(lease.spec.holderIdentity, 'a');
    assert.equal(lease.spec.leaseDurationSeconds, 3);
    assert.match(lease.spec.renewTime, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    assert.equal(leading.has('b'), false);

    a.cancel.abort();
    await a.done;
    await eventually(() => leading.has('b'), 'b to lead after a released the lease');
    lease = await leases.get('wheelhouse-test');
    assert.equal(lease.spec.holderIdentity, 'b');
    assert.equal(lease.spec.leaseTransitions, 1);

    b.cancel.abort();
    await b.done;
    await broadcaster.shutdown();
    const events = (await cp.client.events('kube-system').list()).items as CoreEvent[];
    const messages = events.filter((e) => e.reason === 'LeaderElection').map((e) => e.message);
    for (const m of ['a became leader', 'a stopped leading', 'b became leader', 'b stopped leading']) {
      assert.ok(messages.includes(m), `event "${m}" in ${JSON.stringify(messages)}`);
    }
    const became = events.find((e) => e.message === 'b became leader');
    assert.equal(became?.involvedObject.kind, 'Lease');
    assert.equal(became?.involvedObject.apiVersion, 'coordination.k8s.io/v1');
    assert.equal(became?.involvedObject.namespace, 'kube-system');
    assert.equal(became?.involvedObject.name, 'wheelhouse-test');
  });
});
