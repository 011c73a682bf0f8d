import { after, before, describe, it } from 'node:test';
import { type ControlPlane, startControlPlane } from '../../src/index.js';
import { apiRequest, kubectl } from '../../src/testing/api-client.js';
import assert from '../../src/testing/assert.js';

const PODS = '/api/v1/namespaces/default/pods';

describe('apiserver: pods/binding, as the scheduler uses it', () => {
  let cp: ControlPlane;
  before(async () => {
    cp = await startControlPlane();
  });
  after(async () => {
    await cp?.stop();
  });

  it('binds a pod to a node once, and refuses to bind it again', async () => {
    const created = await apiRequest(cp, 'POST', PODS, {
      body: { metadata: { name: 'web' }, spec: { containers: [{ name: 'c', image: 'nginx' }] } },
    });
    assert.equal(created.status, 201, created.text);
    const binding = {
      apiVersion: 'v1',
      kind: 'Binding',
      metadata: { name: 'web' },
      target: { kind: 'Node', name: 'node-1' },
    };
    const res = await apiRequest(cp, 'POST', `${PODS}/web/binding`, { body: binding });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.status, 'Success');
    const pod = (await apiRequest(cp, 'GET', `${PODS}/web`)).body;
    assert.equal(pod.spec.nodeName, 'node-1');
    const scheduled = pod.status.conditions.find((c: { type: string }) => c.type === 'PodScheduled');
    assert.equal(scheduled.status, 'True');
    const again = await apiRequest(cp, 'POST', `${PODS}/web/binding`, {
      body: { ...binding, target: { kind: 'Node', name: 'node-2' } },
    });
    assert.equal(again.status, 409);
    assert.equal(
      again.body.message,
      'Operation cannot be fulfilled on pods/binding "web": pod web is already assigned to node "node-1"',
    );
    const mismatch = await apiRequest(cp, 'POST', `${PODS}/web/binding`, {
      body: { ...binding, metadata: { name: 'other' } },
    });
    assert.equal(mismatch.status, 400);
    const v1 = (await apiRequest(cp, 'GET', '/api/v1')).body;
    assert.ok(v1.resources.some((r: { name: string }) => r.name === 'pods/binding'));
  });

  it('serves the legacy bindings collection: kubectl create -f a Binding schedules the pod it names', async () => {
    const created = await apiRequest(cp, 'POST', PODS, {
      body: { metadata: { name: 'manual' }, spec: { containers: [{ name: 'c', image: 'nginx' }] } },
    });
    assert.equal(created.status, 201, created.text);
    const manifest =
      'apiVersion: v1\nkind: Binding\nmetadata:\n  name: manual\ntarget:\n  kind: Node\n  name: node-3\n';
    const made = await kubectl(cp, ['create', '-f', '-'], { input: manifest });
    assert.equal(made.code, 0, made.stderr);
    // The answer is a Status, not the Binding, so kubectl prints what upstream's users see.
    assert.equal(made.stdout.trim(), 'status/<unknown> created');
    assert.equal((await apiRequest(cp, 'GET', `${PODS}/manual`)).body.spec.nodeName, 'node-3');
    const again = await kubectl(cp, ['create', '-f', '-'], { input: manifest });
    assert.notEqual(again.code, 0);
    assert.match(
      again.stderr,
      /Operation cannot be fulfilled on pods\/binding "manual": pod manual is already assigned to node "node-3"/,
    );
    const v1 = (await apiRequest(cp, 'GET', '/api/v1')).body;
    const bindings = v1.resources.find((r: { name: string }) => r.name === 'bindings');
    assert.deepEqual([bindings?.kind, bindings?.namespaced, bindings?.verbs], ['Binding', true, ['create']]);
    const listed = await apiRequest(cp, 'GET', '/api/v1/namespaces/default/bindings');
    assert.equal(listed.status, 405, listed.text);
  });
});
