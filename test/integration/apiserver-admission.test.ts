import { after, before, describe, it } from 'node:test';
import { type ControlPlane, startControlPlane } from '../../src/index.js';
import { apiRequest } from '../../src/testing/api-client.js';
import assert from '../../src/testing/assert.js';
import { eventually } from '../../src/testing/controllers.js';

const PODS = (ns: string) => `/api/v1/namespaces/${ns}/pods`;
const PCS = '/apis/scheduling.k8s.io/v1/priorityclasses';

function pod(name: string, spec: Record<string, unknown> = {}) {
  return { metadata: { name }, spec: { containers: [{ name: 'c', image: 'nginx' }], ...spec } };
}

const DEFAULT_TOLERATIONS = (notReady: number, unreachable: number) => [
  { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: notReady },
  { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: unreachable },
];

describe('apiserver: the admission chain with upstream default plugins', () => {
  let cp: ControlPlane;
  before(async () => {
    cp = await startControlPlane();
  });
  after(async () => {
    await cp?.stop();
  });

  it('resolves system-cluster-critical into priority 2000000000 for a pod in kube-system', async () => {
    const res = await apiRequest(cp, 'POST', PODS('kube-system'), {
      body: pod('critical', { priorityClassName: 'system-cluster-critical' }),
    });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.spec.priority, 2000000000);
    assert.equal(res.body.spec.preemptionPolicy, 'PreemptLowerPriority');
    const stored = (await apiRequest(cp, 'GET', `${PODS('kube-system')}/critical`)).body;
    assert.equal(stored.spec.priority, 2000000000);
  });

  it('refuses an unknown class with upstream Forbidden message, dry-run included', async () => {
    for (const query of ['', '?dryRun=All']) {
      const res = await apiRequest(cp, 'POST', `${PODS('default')}${query}`, {
        body: pod('lost', { priorityClassName: 'foo' }),
      });
      assert.equal(res.status, 403, res.text);
      assert.equal(res.body.reason, 'Forbidden');
      assert.equal(res.body.message, 'pods "lost" is forbidden: no PriorityClass with name foo was found');
      assert.deepEqual(res.body.details, { name: 'lost', kind: 'pods' });
    }
  });

  it('gives pods priority 0 without a default class, and the global default class once there is one', async () => {
    const plain = await apiRequest(cp, 'POST', PODS('default'), { body: pod('plain') });
    assert.equal(plain.status, 201, plain.text);
    assert.equal(plain.body.spec.priority, 0);
    assert.equal(plain.body.spec.priorityClassName, undefined);
    const pc = await apiRequest(cp, 'POST', PCS, {
      body: { metadata: { name: 'everyday' }, value: 1000, globalDefault: true, preemptionPolicy: 'Never' },
    });
    assert.equal(pc.status, 201, pc.text);
    // The plugin reads classes from the watch cache, as upstream's reads an informer: wait until it has it.
    await eventually(async () => {
      const cached = (await apiRequest(cp, 'GET', `${PCS}?resourceVersion=0`)).body;
      assert.ok(cached.items.some((i: { metadata: { name: string } }) => i.metadata.name === 'everyday'));
    });
    const res = await apiRequest(cp, 'POST', PODS('default'), { body: pod('everyday-pod') });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.spec.priorityClassName, 'everyday');
    assert.equal(res.body.spec.priority, 1000);
    assert.equal(res.body.spec.preemptionPolicy, 'Never');
    const second = await apiRequest(cp, 'POST', PCS, {
      body: { metadata: { name: 'another' }, value: 5, globalDefault: true },
    });
    assert.equal(second.status, 403, second.text);
    assert.equal(
      second.body.message,
      'priorityclasses.scheduling.k8s.io "another" is forbidden: PriorityClass everyday is already marked as default. Only one default can exist',
    );
    const mismatch = await apiRequest(cp, 'POST', PODS('default'), {
      body: pod('self-made', { priorityClassName: 'everyday', priority: 7 }),
    });
    assert.equal(mismatch.status, 403);
    assert.match(mismatch.body.message, /the integer value of priority \(7\) must not be provided in pod spec/);
    assert.equal((await apiRequest(cp, 'DELETE', `${PCS}/everyday`)).status, 200);
  });

  it('adds the default NoExecute tolerations once, and keeps them through updates and patches', async () => {
    const res = await apiRequest(cp, 'POST', PODS('default'), { body: pod('tolerant') });
    assert.deepEqual(res.body.spec.tolerations, DEFAULT_TOLERATIONS(300, 300));
    const own = {
      key: 'node.kubernetes.io/unreachable',
      operator: 'Exists',
      effect: 'NoExecute',
      tolerationSeconds: 7,
    };
    const mine = await apiRequest(cp, 'POST', PODS('default'), { body: pod('own', { tolerations: [own] }) });
    assert.deepEqual(mine.body.spec.tolerations, [own, DEFAULT_TOLERATIONS(300, 300)[0]]);
    // An update that leaves out priority (set by admission on create) keeps it; tolerations are not duplicated.
    const current = res.body;
    const { priority: _p, preemptionPolicy: _pp, ...spec } = current.spec;
    const put = await apiRequest(cp, 'PUT', `${PODS('default')}/tolerant`, {
      body: { ...current, metadata: { ...current.metadata, labels: { a: 'b' } }, spec },
    });
    assert.equal(put.status, 200, put.text);
    assert.equal(put.body.spec.priority, 0);
    assert.deepEqual(put.body.spec.tolerations, DEFAULT_TOLERATIONS(300, 300));
    const patched = await apiRequest(cp, 'PATCH', `${PODS('default')}/tolerant`, {
      body: { metadata: { labels: { c: 'd' } } },
      contentType: 'application/merge-patch+json',
    });
    assert.equal(patched.status, 200, patched.text);
    assert.deepEqual(patched.body.spec.tolerations, DEFAULT_TOLERATIONS(300, 300));
  });

  it('creates nodes with the not-ready NoSchedule taint', async () => {
    const res = await apiRequest(cp, 'POST', '/api/v1/nodes', { body: { metadata: { name: 'node-x' } } });
    assert.equal(res.status, 201, res.text);
    assert.deepEqual(res.body.spec.taints, [{ key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule' }]);
    const dry = await apiRequest(cp, 'POST', '/api/v1/nodes?dryRun=All', {
      body: { metadata: { name: 'node-y' }, spec: { taints: [{ key: 'gpu', effect: 'NoSchedule' }] } },
    });
    assert.deepEqual(dry.body.spec.taints, [
      { key: 'gpu', effect: 'NoSchedule' },
      { key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule' },
    ]);
    // Only at creation: the node lifecycle controller removes it once the node is Ready.
    const patched = await apiRequest(cp, 'PATCH', '/api/v1/nodes/node-x', {
      body: { spec: { taints: null } },
      contentType: 'application/merge-patch+json',
    });
    assert.equal(patched.body.spec.taints, undefined);
  });
});

describe('apiserver: admission flags', () => {
  let cp: ControlPlane;
  before(async () => {
    cp = await startControlPlane({
      admission: {
        disablePlugins: ['TaintNodesByCondition', 'Priority'],
        defaultNotReadyTolerationSeconds: 30,
        defaultUnreachableTolerationSeconds: 60,
      },
    });
  });
  after(async () => {
    await cp?.stop();
  });

  it('runs only the enabled plugins, with the configured toleration seconds', async () => {
    const node = await apiRequest(cp, 'POST', '/api/v1/nodes', { body: { metadata: { name: 'bare' } } });
    assert.equal(node.body.spec?.taints, undefined);
    const res = await apiRequest(cp, 'POST', PODS('default'), { body: pod('p', { priorityClassName: 'anything' }) });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.spec.priority, undefined);
    assert.deepEqual(res.body.spec.tolerations, DEFAULT_TOLERATIONS(30, 60));
  });

  it('refuses unknown plugin names with upstream message', async () => {
    await assert.rejects(startControlPlane({ admission: { enablePlugins: ['NoSuchPlugin'] } }), {
      message: 'enable-admission-plugins plugin "NoSuchPlugin" is unknown',
    });
  });

  it('denies every write with AlwaysDeny', async () => {
    const deny = await startControlPlane({ admission: { enablePlugins: ['AlwaysDeny'] } });
    try {
      const res = await apiRequest(deny, 'POST', '/api/v1/namespaces/default/configmaps', {
        body: { metadata: { name: 'x' } },
      });
      assert.equal(res.status, 403);
      assert.equal(res.body.message, 'configmaps "x" is forbidden: admission control is denying all modifications');
      assert.equal((await apiRequest(deny, 'GET', '/api/v1/namespaces/default/configmaps')).status, 200);
    } finally {
      await deny.stop();
    }
  });
});
