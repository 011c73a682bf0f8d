import { after, before, describe, it } from 'node:test';
import { type ControlPlane, startControlPlane } from '../../src/index.js';
import { apiRequest, openWatch } from '../../src/testing/api-client.js';
import assert from '../../src/testing/assert.js';

const CMS = '/api/v1/namespaces/default/configmaps';

describe('apiserver: watch', () => {
  let cp: ControlPlane;
  before(async () => {
    cp = await startControlPlane();
  });
  after(async () => {
    await cp?.stop();
  });

  it('starts with the current state as ADDED events, then streams changes in order', async () => {
    await apiRequest(cp, 'POST', CMS, { body: { metadata: { name: 'w1' } } });
    const w = openWatch(cp, `${CMS}?watch=true`);
    const [first] = await w.waitFor(1);
    assert.equal(first.type, 'ADDED');
    assert.equal(first.object.metadata.name, 'w1');
    const created = (await apiRequest(cp, 'POST', CMS, { body: { metadata: { name: 'w2' } } })).body;
    await apiRequest(cp, 'PATCH', `${CMS}/w2`, {
      body: { data: { a: '1' } },
      contentType: 'application/merge-patch+json',
    });
    await apiRequest(cp, 'DELETE', `${CMS}/w2`);
    const events = await w.waitFor(4);
    assert.deepEqual(
      events.slice(1).map((e) => `${e.type} ${e.object.metadata.name}`),
      ['ADDED w2', 'MODIFIED w2', 'DELETED w2'],
    );
    assert.equal(events[1].object.metadata.resourceVersion, created.metadata.resourceVersion);
    assert.deepEqual(events[2].object.data, { a: '1' });
    w.stop();
  });

  it('resumes from a resourceVersion', async () => {
    const a = (await apiRequest(cp, 'POST', CMS, { body: { metadata: { name: 'r1' } } })).body;
    await apiRequest(cp, 'POST', CMS, { body: { metadata: { name: 'r2' } } });
    const w = openWatch(cp, `${CMS}?watch=1&resourceVersion=${a.metadata.resourceVersion}`);
    const [e] = await w.waitFor(1);
    assert.equal(`${e.type} ${e.object.metadata.name}`, 'ADDED r2');
    w.stop();
    const bad = await apiRequest(cp, 'GET', `${CMS}?watch=1&resourceVersion=abc`);
    assert.equal(bad.status, 400);
  });

  it('turns selector transitions into ADDED and DELETED for a filtered watcher', async () => {
    const rv = (await apiRequest(cp, 'GET', CMS)).body.metadata.resourceVersion;
    const w = openWatch(cp, `${CMS}?watch=1&labelSelector=color%3Dblue&resourceVersion=${rv}`);
    await apiRequest(cp, 'POST', CMS, { body: { metadata: { name: 'sel', labels: { color: 'red' } } } });
    const merge = (labels: Record<string, string>) =>
      apiRequest(cp, 'PATCH', `${CMS}/sel`, {
        body: { metadata: { labels } },
        contentType: 'application/merge-patch+json',
      });
    await merge({ color: 'blue' });
    await merge({ color: 'blue', size: 'big' });
    const green = await merge({ color: 'green' });
    const events = await w.waitFor(3);
    // The object that stopped matching leaves as it was (blue), with the resourceVersion of the change, as
    // upstream's watch cache sends it.
    assert.deepEqual(
      events.map((e) => `${e.type} ${e.object.metadata.labels.color}`),
      ['ADDED blue', 'MODIFIED blue', 'DELETED blue'],
    );
    assert.equal(events[2]?.object.metadata.resourceVersion, green.body.metadata.resourceVersion);
    w.stop();
  });

  it("gives a kubelet's spec.nodeName watch the pods bound to its node, and only those", async () => {
    const PODS = '/api/v1/namespaces/default/pods';
    const rv = (await apiRequest(cp, 'GET', PODS)).body.metadata.resourceVersion;
    const onNode = (node: string, extra = '') =>
      openWatch(cp, `${PODS}?watch=1&resourceVersion=${rv}&fieldSelector=spec.nodeName%3D${node}${extra}`);
    const a = onNode('node-a');
    const b = onNode('node-b');
    const aRunning = onNode('node-a', ',status.phase%3DRunning');
    const unbound = onNode('');
    const bound = openWatch(cp, `${PODS}?watch=1&resourceVersion=${rv}&fieldSelector=spec.nodeName!%3D`);
    const pod = (name: string) => ({ metadata: { name }, spec: { containers: [{ name: 'c', image: 'nginx' }] } });
    await apiRequest(cp, 'POST', PODS, { body: pod('k1') });
    await apiRequest(cp, 'POST', `${PODS}/k1/binding`, {
      body: { apiVersion: 'v1', kind: 'Binding', metadata: { name: 'k1' }, target: { kind: 'Node', name: 'node-a' } },
    });
    await apiRequest(cp, 'PATCH', `${PODS}/k1/status`, {
      body: { status: { phase: 'Running' } },
      contentType: 'application/merge-patch+json',
    });
    await apiRequest(cp, 'POST', PODS, { body: { ...pod('k2'), spec: { ...pod('k2').spec, nodeName: 'node-b' } } });
    await apiRequest(cp, 'DELETE', `${PODS}/k1?gracePeriodSeconds=0`);
    const seen = (w: ReturnType<typeof openWatch>, n: number) =>
      w.waitFor(n).then((events) => events.map((e) => `${e.type} ${e.object.metadata.name}`));
    // A delete with no grace period marks the pod (MODIFIED) before it goes (DELETED), as upstream.
    assert.deepEqual(await seen(a, 4), ['ADDED k1', 'MODIFIED k1', 'MODIFIED k1', 'DELETED k1']);
    assert.deepEqual(await seen(b, 1), ['ADDED k2']);
    assert.deepEqual(await seen(aRunning, 3), ['ADDED k1', 'MODIFIED k1', 'DELETED k1']);
    assert.deepEqual(await seen(unbound, 2), ['ADDED k1', 'DELETED k1'], 'unbound, then bound away');
    assert.deepEqual(
      await seen(bound, 5),
      ['ADDED k1', 'MODIFIED k1', 'ADDED k2', 'MODIFIED k1', 'DELETED k1'],
      'bound anywhere',
    );
    // Nothing more arrives for node-b's watcher than its own pod.
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(b.events.length, 1);
    for (const w of [a, b, aRunning, unbound, bound]) w.stop();
  });

  it('sends the initial state then an initial-events-end bookmark with sendInitialEvents', async () => {
    const w = openWatch(
      cp,
      '/api/v1/namespaces?watch=1&sendInitialEvents=true&allowWatchBookmarks=true&resourceVersionMatch=NotOlderThan',
    );
    const events = await w.waitFor(5);
    assert.deepEqual(
      events.slice(0, 4).map((e) => `${e.type} ${e.object.metadata.name}`),
      ['ADDED default', 'ADDED kube-node-lease', 'ADDED kube-public', 'ADDED kube-system'],
    );
    assert.equal(events[4].type, 'BOOKMARK');
    assert.equal(events[4].object.kind, 'Namespace');
    assert.equal(events[4].object.metadata.annotations['k8s.io/initial-events-end'], 'true');
    assert.match(events[4].object.metadata.resourceVersion, /^\d+$/);
    w.stop();
    const bad = await apiRequest(cp, 'GET', '/api/v1/namespaces?watch=1&sendInitialEvents=true');
    assert.equal(bad.status, 400);
  });

  it('ends a watch after timeoutSeconds, and streams one-row Tables to kubectl get -w', async () => {
    const t = openWatch(cp, `${CMS}?watch=1&timeoutSeconds=1&resourceVersion=0`);
    assert.ok(await t.waitForEnd(5000));
    const w = openWatch(cp, '/api/v1/namespaces?watch=1', {
      accept: 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json',
    });
    const [e] = await w.waitFor(1);
    assert.equal(e.object.kind, 'Table');
    assert.equal(e.object.rows.length, 1);
    assert.equal(e.object.rows[0].cells[0], 'default');
    w.stop();
  });
});
