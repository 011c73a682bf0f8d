/**
 * The event recorder against a real in-process control plane: a create, then a strategic merge patch of the count,
 * the default namespace for cluster-scoped objects, and what `kubectl get events` reads back.
 */
import { after, before, describe, it } from 'node:test';
import { type ControlPlane, startControlPlane } from '../../index.js';
import assert from '../../testing/assert.js';
import { FakeClock } from '../../util/clock.js';
import { EventBroadcaster } from './broadcaster.js';
import type { CoreEvent } from './event.js';

let cp: ControlPlane;
before(async () => {
  cp = await startControlPlane({ storage: 'memory' });
});
after(() => cp?.stop());

describe('EventBroadcaster against the apiserver', () => {
  it('creates, then patches the count, in the object namespace or default', async () => {
    const clock = new FakeClock(Date.parse('2025-03-01T10:00:00Z'));
    const broadcaster = new EventBroadcaster({ sink: cp.client.events(), clock });
    const recorder = broadcaster.recorder('replicaset-controller');
    const cm = await cp.client.configMaps('default').create({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'settings' },
      data: { a: '1' },
    });
    const ns = await cp.client.namespaces().get('kube-system');

    recorder.event(cm, 'Warning', 'FailedCreate', 'Error creating: pods "web-" is forbidden');
    await broadcaster.flush();
    clock.step(7_000);
    recorder.eventf(cm, 'Warning', 'FailedCreate', 'Error creating: %s', 'pods "web-" is forbidden');
    recorder.event(ns, 'Normal', 'Checked', 'namespace looked at');
    await broadcaster.shutdown();

    const events = (await cp.client.events('default').list()).items as CoreEvent[];
    const failed = events.filter((e) => e.reason === 'FailedCreate');
    assert.equal(failed.length, 1);
    assert.equal(failed[0]?.count, 2);
    assert.equal(failed[0]?.firstTimestamp, '2025-03-01T10:00:00Z');
    assert.equal(failed[0]?.lastTimestamp, '2025-03-01T10:00:07Z');
    assert.equal(failed[0]?.involvedObject.uid, cm.metadata.uid);
    assert.equal(failed[0]?.source.component, 'replicaset-controller');
    assert.equal(failed[0]?.reportingComponent, 'replicaset-controller');

    const checked = events.find((e) => e.reason === 'Checked');
    assert.equal(checked?.metadata.namespace, 'default');
    assert.equal(checked?.involvedObject.kind, 'Namespace');
    assert.equal(checked?.involvedObject.namespace, undefined);
  });
});
