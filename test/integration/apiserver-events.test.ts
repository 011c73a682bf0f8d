import { after, before, describe, it } from 'node:test';
import { type ControlPlane, startControlPlane } from '../../src/index.js';
import { apiRequest, kubectl } from '../../src/testing/api-client.js';
import assert from '../../src/testing/assert.js';

describe('apiserver: core/v1 events', () => {
  let cp: ControlPlane;
  before(async () => {
    cp = await startControlPlane();
  });
  after(async () => {
    await cp?.stop();
  });

  const uids: Record<string, string> = {};
  const event = (name: string, objectName: string, reason: string) => ({
    metadata: { name, namespace: 'default' },
    involvedObject: {
      kind: 'ConfigMap',
      namespace: 'default',
      name: objectName,
      apiVersion: 'v1',
      uid: uids[objectName] ?? '',
    },
    reason,
    message: `${reason} happened to ${objectName}`,
    type: 'Normal',
    source: { component: 'tester' },
    firstTimestamp: new Date(Date.now() - 60_000).toISOString().replace(/\.\d+Z$/, 'Z'),
    lastTimestamp: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
    count: 2,
  });

  it('selects events by involvedObject fields as kubectl describe does', async () => {
    const target = await apiRequest(cp, 'POST', '/api/v1/namespaces/default/configmaps', {
      body: { metadata: { name: 'target' } },
    });
    uids.target = target.body.metadata.uid;
    for (const [n, obj, reason] of [
      ['e1', 'target', 'Created'],
      ['e2', 'other', 'Created'],
      ['e3', 'target', 'Updated'],
    ]) {
      const res = await apiRequest(cp, 'POST', '/api/v1/namespaces/default/events', {
        body: event(n as string, obj as string, reason as string),
      });
      assert.equal(res.status, 201);
    }
    const sel = encodeURIComponent('involvedObject.name=target,involvedObject.kind=ConfigMap');
    const res = await apiRequest(cp, 'GET', `/api/v1/namespaces/default/events?fieldSelector=${sel}`);
    assert.deepEqual(
      res.body.items.map((e: { metadata: { name: string } }) => e.metadata.name),
      ['e1', 'e3'],
    );
    const described = await kubectl(cp, ['describe', 'configmap', 'target']);
    assert.equal(described.code, 0, described.stderr);
    assert.match(described.stdout, /Events:\s+Type\s+Reason\s+Age\s+From\s+Message/);
    assert.match(described.stdout, /Normal\s+Created\s+\S+ \(x2 over \S+\)\s+tester\s+Created happened to target/);
    assert.match(described.stdout, /Normal\s+Updated\s+/);
    assert.doesNotMatch(described.stdout, /happened to other/);
  });

  it('prints the columns of kubectl get events', async () => {
    const res = await kubectl(cp, ['get', 'events', '-o', 'wide']);
    assert.equal(res.code, 0, res.stderr);
    const header = res.stdout.split('\n')[0] ?? '';
    assert.match(
      header,
      /^LAST SEEN\s+TYPE\s+REASON\s+OBJECT\s+SUBOBJECT\s+SOURCE\s+MESSAGE\s+FIRST SEEN\s+COUNT\s+NAME$/,
    );
    assert.match(res.stdout, /Normal\s+Created\s+configmap\/target\s+tester\s+Created happened to target/);
  });

  it('refuses an event whose involved object is in another namespace', async () => {
    const bad = event('e4', 'target', 'Odd');
    bad.involvedObject.namespace = 'kube-system';
    const res = await apiRequest(cp, 'POST', '/api/v1/namespaces/default/events', { body: bad });
    assert.equal(res.status, 422);
    assert.match(
      res.body.message,
      /involvedObject.namespace: Invalid value: "kube-system": does not match event.namespace/,
    );
  });

  it('serves the same events as events.k8s.io/v1, converted field by field, both ways', async () => {
    const v1 = {
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      metadata: { name: 'new-style', namespace: 'default' },
      eventTime: '2026-12-02T10:00:00.000000Z',
      reportingController: 'example.com/ctl',
      reportingInstance: 'ctl-1',
      action: 'Reconcile',
      reason: 'Synced',
      note: 'all good',
      type: 'Normal',
      regarding: { kind: 'ConfigMap', namespace: 'default', name: 'target' },
    };
    const created = await apiRequest(cp, 'POST', '/apis/events.k8s.io/v1/namespaces/default/events', { body: v1 });
    assert.equal(created.status, 201, created.text);
    assert.equal(created.body.apiVersion, 'events.k8s.io/v1');
    assert.equal(created.body.note, 'all good');
    const asCore = (await apiRequest(cp, 'GET', '/api/v1/namespaces/default/events/new-style')).body;
    assert.equal(asCore.apiVersion, 'v1');
    assert.equal(asCore.message, 'all good');
    assert.equal(asCore.reportingComponent, 'example.com/ctl');
    assert.equal(asCore.involvedObject.name, 'target');
    assert.equal(asCore.note, undefined);
    const fromCore = (await apiRequest(cp, 'GET', '/apis/events.k8s.io/v1/namespaces/default/events/e1')).body;
    assert.equal(fromCore.kind, 'Event');
    assert.equal(fromCore.regarding.name, 'target');
    assert.equal(fromCore.deprecatedCount, 2);
    assert.equal(fromCore.note, 'Created happened to target');
    const sel = encodeURIComponent('regarding.name=target,reason=Synced');
    const listed = await apiRequest(cp, 'GET', `/apis/events.k8s.io/v1/namespaces/default/events?fieldSelector=${sel}`);
    assert.deepEqual(
      listed.body.items.map((e: { metadata: { name: string } }) => e.metadata.name),
      ['new-style'],
    );
    const missing = await apiRequest(cp, 'POST', '/apis/events.k8s.io/v1/namespaces/default/events', {
      body: { metadata: { name: 'incomplete' }, reason: 'X' },
    });
    assert.equal(missing.status, 422);
    assert.match(missing.body.message, /eventTime: Required value/);
  });
});
