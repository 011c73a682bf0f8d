import { after, before, describe, it } from 'node:test';
import { type ControlPlane, startControlPlane } from '../../src/index.js';
import { apiRequest } from '../../src/testing/api-client.js';
import assert from '../../src/testing/assert.js';

// No disruption controller runs here: each test writes the budgets' status itself, as the controller would.
const NS = 'evict';
const PODS = `/api/v1/namespaces/${NS}/pods`;
const PDBS = `/apis/policy/v1/namespaces/${NS}/poddisruptionbudgets`;

async function createPod(
  cp: ControlPlane,
  name: string,
  opts: { labels?: Record<string, string>; ready?: boolean; running?: boolean; finalizers?: string[] } = {},
) {
  const res = await apiRequest(cp, 'POST', PODS, {
    body: {
      metadata: { name, labels: opts.labels ?? {}, ...(opts.finalizers ? { finalizers: opts.finalizers } : {}) },
      spec: { containers: [{ name: 'c', image: 'nginx' }] },
    },
  });
  assert.equal(res.status, 201, res.text);
  if (opts.running === false) return res.body;
  // What a kubelet would report: Running, and Ready unless asked otherwise.
  const status = await apiRequest(cp, 'PUT', `${PODS}/${name}/status`, {
    body: {
      ...res.body,
      status: {
        ...res.body.status,
        phase: 'Running',
        conditions: [{ type: 'Ready', status: opts.ready === false ? 'False' : 'True' }],
      },
    },
  });
  assert.equal(status.status, 200, status.text);
  return status.body;
}

async function createBudget(
  cp: ControlPlane,
  name: string,
  app: string,
  status: Record<string, unknown>,
  spec: Record<string, unknown> = {},
) {
  const res = await apiRequest(cp, 'POST', PDBS, {
    body: { metadata: { name }, spec: { minAvailable: 1, selector: { matchLabels: { app } }, ...spec } },
  });
  assert.equal(res.status, 201, res.text);
  const put = await apiRequest(cp, 'PUT', `${PDBS}/${name}/status`, {
    body: {
      ...res.body,
      status: { observedGeneration: 1, expectedPods: 2, currentHealthy: 2, desiredHealthy: 1, ...status },
    },
  });
  assert.equal(put.status, 200, put.text);
  return put.body;
}

function evict(cp: ControlPlane, name: string, extra: Record<string, unknown> = {}, query = '') {
  return apiRequest(cp, 'POST', `${PODS}/${name}/eviction${query}`, {
    body: { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name, namespace: NS }, ...extra },
  });
}

async function exists(cp: ControlPlane, path: string): Promise<boolean> {
  return (await apiRequest(cp, 'GET', path)).status === 200;
}

describe('apiserver: pods/eviction', () => {
  let cp: ControlPlane;
  before(async () => {
    cp = await startControlPlane();
    await apiRequest(cp, 'POST', '/api/v1/namespaces', { body: { metadata: { name: NS } } });
  });
  after(async () => {
    await cp?.stop();
  });

  it('is listed by discovery as kubectl drain looks for it', async () => {
    const v1 = (await apiRequest(cp, 'GET', '/api/v1')).body;
    const sub = v1.resources.find((r: { name: string }) => r.name === 'pods/eviction');
    assert.deepEqual(sub, {
      name: 'pods/eviction',
      singularName: '',
      namespaced: true,
      group: 'policy',
      version: 'v1',
      kind: 'Eviction',
      verbs: ['create'],
    });
  });

  it('deletes a pod no budget covers, honouring the delete options, and marks it DisruptionTarget', async () => {
    await createPod(cp, 'free', { labels: { app: 'none' } });
    const res = await evict(cp, 'free');
    assert.equal(res.status, 201, res.text);
    assert.deepEqual(res.body, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 });
    assert.equal(await exists(cp, `${PODS}/free`), false);
    // A finalizer keeps the pod to show what the eviction wrote.
    const held = await createPod(cp, 'held', { labels: { app: 'none' }, finalizers: ['example.com/hold'] });
    const stale = await evict(cp, 'held', {
      deleteOptions: { preconditions: { resourceVersion: String(Number(held.metadata.resourceVersion) - 1) } },
    });
    assert.equal(stale.status, 409, stale.text);
    assert.equal((await evict(cp, 'held', { deleteOptions: { gracePeriodSeconds: 0 } })).status, 201);
    const pod = (await apiRequest(cp, 'GET', `${PODS}/held`)).body;
    assert.ok(pod.metadata.deletionTimestamp);
    const condition = pod.status.conditions.find((c: { type: string }) => c.type === 'DisruptionTarget');
    assert.equal(condition.status, 'True');
    assert.equal(condition.reason, 'EvictionByEvictionAPI');
    assert.equal(condition.message, 'Eviction API: evicting');
    await apiRequest(cp, 'PATCH', `${PODS}/held`, {
      body: { metadata: { finalizers: null } },
      contentType: 'application/merge-patch+json',
    });
  });

  it('refuses with 429 when the budget allows no disruption', async () => {
    await createPod(cp, 'guarded', { labels: { app: 'web' } });
    await createBudget(cp, 'web-pdb', 'web', { disruptionsAllowed: 0, currentHealthy: 1, desiredHealthy: 1 });
    const res = await evict(cp, 'guarded');
    assert.equal(res.status, 429, res.text);
    assert.equal(res.body.reason, 'TooManyRequests');
    assert.equal(res.body.message, "Cannot evict pod as it would violate the pod's disruption budget.");
    assert.deepEqual(res.body.details, {
      causes: [
        {
          reason: 'DisruptionBudget',
          message: 'The disruption budget web-pdb needs 1 healthy pods and has 1 currently',
        },
      ],
    });
    assert.equal(await exists(cp, `${PODS}/guarded`), true);
  });

  it('spends one disruption, records the pod in disruptedPods, then deletes it', async () => {
    await createPod(cp, 'api-1', { labels: { app: 'api' } });
    await createBudget(cp, 'api-pdb', 'api', { disruptionsAllowed: 1 });
    const dry = await evict(cp, 'api-1', {}, '?dryRun=All');
    assert.equal(dry.status, 201, dry.text);
    assert.equal(await exists(cp, `${PODS}/api-1`), true);
    let pdb = (await apiRequest(cp, 'GET', `${PDBS}/api-pdb`)).body;
    assert.equal(pdb.status.disruptionsAllowed, 1, 'a dry run spends nothing');
    const res = await evict(cp, 'api-1');
    assert.equal(res.status, 201, res.text);
    assert.equal(await exists(cp, `${PODS}/api-1`), false);
    pdb = (await apiRequest(cp, 'GET', `${PDBS}/api-pdb`)).body;
    assert.equal(pdb.status.disruptionsAllowed, 0);
    assert.deepEqual(Object.keys(pdb.status.disruptedPods), ['api-1']);
    const allowed = pdb.status.conditions.find((c: { type: string }) => c.type === 'DisruptionAllowed');
    assert.equal(allowed.status, 'False');
    assert.equal(allowed.reason, 'InsufficientPods');
    // The next one is refused until the disruption controller gives the budget back.
    await createPod(cp, 'api-2', { labels: { app: 'api' } });
    assert.equal((await evict(cp, 'api-2')).status, 429);
  });

  it('asks to retry while the budget status is behind its spec', async () => {
    await createPod(cp, 'db-1', { labels: { app: 'db' } });
    await createBudget(cp, 'db-pdb', 'db', { disruptionsAllowed: 3, observedGeneration: 0 });
    const res = await evict(cp, 'db-1');
    assert.equal(res.status, 429, res.text);
    assert.equal(res.headers['retry-after'], '10');
    assert.deepEqual(res.body.details, {
      causes: [
        { reason: 'DisruptionBudget', message: 'The disruption budget db-pdb is still being processed by the server.' },
      ],
      retryAfterSeconds: 10,
    });
  });

  it('answers 500 for a pod covered by two budgets', async () => {
    await createPod(cp, 'twice', { labels: { app: 'twice', tier: 'x' } });
    await createBudget(cp, 'twice-a', 'twice', { disruptionsAllowed: 1 });
    await apiRequest(cp, 'POST', PDBS, {
      body: { metadata: { name: 'twice-b' }, spec: { maxUnavailable: 1, selector: { matchLabels: { tier: 'x' } } } },
    });
    const res = await evict(cp, 'twice');
    assert.equal(res.status, 500, res.text);
    assert.deepEqual(res.body, {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.',
      code: 500,
    });
  });

  it('deletes pods that are not Ready without spending the budget when the policy allows it', async () => {
    // IfHealthyBudget (the default): allowed while the application is healthy enough.
    await createPod(cp, 'cache-1', { labels: { app: 'cache' }, ready: false });
    await createBudget(cp, 'cache-pdb', 'cache', { disruptionsAllowed: 0, currentHealthy: 2, desiredHealthy: 2 });
    assert.equal((await evict(cp, 'cache-1')).status, 201);
    // …not when it is not.
    await createPod(cp, 'queue-1', { labels: { app: 'queue' }, ready: false });
    await createBudget(cp, 'queue-pdb', 'queue', { disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 1 });
    assert.equal((await evict(cp, 'queue-1')).status, 429);
    // AlwaysAllow: always.
    await createPod(cp, 'stuck-1', { labels: { app: 'stuck' }, ready: false });
    await createBudget(
      cp,
      'stuck-pdb',
      'stuck',
      { disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 1 },
      { unhealthyPodEvictionPolicy: 'AlwaysAllow' },
    );
    assert.equal((await evict(cp, 'stuck-1')).status, 201);
    assert.equal((await apiRequest(cp, 'GET', `${PDBS}/stuck-pdb`)).body.status.disruptionsAllowed, 0);
    // A pod not running yet (Pending) was never available: no budget is asked.
    await createPod(cp, 'web-pending', { labels: { app: 'web' }, running: false });
    assert.equal((await evict(cp, 'web-pending')).status, 201);
  });

  it('refuses malformed evictions as upstream', async () => {
    const mismatch = await apiRequest(cp, 'POST', `${PODS}/guarded/eviction`, {
      body: { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'other' } },
    });
    assert.equal(mismatch.status, 400);
    assert.equal(mismatch.body.message, 'name in URL does not match name in Eviction object');
    const missing = await evict(cp, 'nobody');
    assert.equal(missing.status, 404);
    assert.equal(missing.body.message, 'pods "nobody" not found');
    const beta = await apiRequest(cp, 'POST', `${PODS}/guarded/eviction`, {
      body: { apiVersion: 'policy/v1beta1', kind: 'Eviction', metadata: { name: 'guarded' } },
    });
    assert.equal(beta.status, 429, 'a policy/v1beta1 Eviction is accepted too');
  });
});
