import { after, before, describe, it } from 'node:test';
import { type ControlPlane, startControlPlane } from '../../src/index.js';
import { apiRequest } from '../../src/testing/api-client.js';
import assert from '../../src/testing/assert.js';
import { eventually } from '../../src/testing/controllers.js';

const PODS = (ns: string) => `/api/v1/namespaces/${ns}/pods`;
const pod = (name: string, spec: Record<string, unknown> = {}) => ({
  metadata: { name },
  spec: { containers: [{ name: 'c', image: 'nginx' }], ...spec },
});

describe('built-in admission plugins through the HTTP API, with the controllers they pair with', () => {
  let cp: ControlPlane;
  before(async () => {
    cp = await startControlPlane({
      controllers: {
        controllers: [
          'serviceaccount-controller',
          'resourcequota-controller',
          'root-ca-certificate-publisher-controller',
        ],
        leaderElect: false,
      },
    });
  });
  after(async () => {
    await cp?.stop();
  });

  it('ResourceQuota refuses the pod over quota (403, upstream message) once the controller has counted the quota', async () => {
    assert.equal(
      (await apiRequest(cp, 'POST', '/api/v1/namespaces', { body: { metadata: { name: 'quota' } } })).status,
      201,
    );
    const q = await apiRequest(cp, 'POST', '/api/v1/namespaces/quota/resourcequotas', {
      body: { metadata: { name: 'q' }, spec: { hard: { pods: '1' } } },
    });
    assert.equal(q.status, 201, q.text);
    await eventually(async () => {
      const got = await apiRequest(cp, 'GET', '/api/v1/namespaces/quota/resourcequotas/q');
      assert.deepEqual(got.body.status?.used, { pods: '0' });
    });
    // A namespace made a moment ago: the plugin waits for its default ServiceAccount as upstream's does.
    const first = await apiRequest(cp, 'POST', PODS('quota'), { body: pod('first') });
    assert.equal(first.status, 201, first.text);
    const second = await apiRequest(cp, 'POST', PODS('quota'), { body: pod('second') });
    assert.equal(second.status, 403, second.text);
    assert.equal(second.body.reason, 'Forbidden');
    assert.equal(
      second.body.message,
      'pods "second" is forbidden: exceeded quota: q, requested: pods=1, used: pods=1, limited: pods=1',
    );
    const used = await apiRequest(cp, 'GET', '/api/v1/namespaces/quota/resourcequotas/q');
    assert.deepEqual(used.body.status.used, { pods: '1' });
  });

  it('ServiceAccount gives pods the default account and its projected token volume', async () => {
    const res = await apiRequest(cp, 'POST', PODS('default'), { body: pod('sa') });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.spec.serviceAccountName, 'default');
    const volume = res.body.spec.volumes.find((v: { name: string }) => v.name.startsWith('kube-api-access-'));
    assert.ok(volume, res.text);
    assert.equal(volume.projected.sources[0].serviceAccountToken.expirationSeconds, 3607);
    assert.deepEqual(res.body.spec.containers[0].volumeMounts, [
      { name: volume.name, readOnly: true, mountPath: '/var/run/secrets/kubernetes.io/serviceaccount' },
    ]);
    const missing = await apiRequest(cp, 'POST', PODS('default'), {
      body: pod('ghost', { serviceAccountName: 'ghost' }),
    });
    assert.equal(missing.status, 403);
    assert.equal(
      missing.body.message,
      'pods "ghost" is forbidden: error looking up service account default/ghost: serviceaccount "ghost" not found',
    );
  });

  it('serves node.k8s.io/v1 runtimeclasses, and RuntimeClass admission gives pods the class overhead', async () => {
    const bad = await apiRequest(cp, 'POST', '/apis/node.k8s.io/v1/runtimeclasses', {
      body: { metadata: { name: 'broken' }, handler: 'Not_A_Label' },
    });
    assert.equal(bad.status, 422, bad.text);
    assert.match(
      bad.body.message,
      /^RuntimeClass.node.k8s.io "broken" is invalid: handler: Invalid value: "Not_A_Label"/,
    );
    const rc = await apiRequest(cp, 'POST', '/apis/node.k8s.io/v1/runtimeclasses', {
      body: { metadata: { name: 'gvisor' }, handler: 'runsc', overhead: { podFixed: { cpu: '0.25' } } },
    });
    assert.equal(rc.status, 201, rc.text);
    assert.deepEqual(rc.body.overhead, { podFixed: { cpu: '250m' } });
    const res = await apiRequest(cp, 'POST', PODS('default'), {
      body: pod('sandboxed', { runtimeClassName: 'gvisor' }),
    });
    assert.equal(res.status, 201, res.text);
    assert.deepEqual(res.body.spec.overhead, { cpu: '250m' });
    const missing = await apiRequest(cp, 'POST', PODS('default'), { body: pod('nope', { runtimeClassName: 'kata' }) });
    assert.equal(missing.status, 403);
    assert.equal(missing.body.message, 'pods "nope" is forbidden: pod rejected: RuntimeClass "kata" not found');
  });

  it('NamespaceLifecycle refuses to delete kube-system', async () => {
    const res = await apiRequest(cp, 'DELETE', '/api/v1/namespaces/kube-system');
    assert.equal(res.status, 403);
    assert.equal(res.body.message, 'namespaces "kube-system" is forbidden: this namespace may not be deleted');
  });
});

describe('--disable-admission-plugins=NamespaceLifecycle', () => {
  let cp: ControlPlane;
  before(async () => {
    cp = await startControlPlane({ admission: { disablePlugins: ['NamespaceLifecycle'] } });
  });
  after(async () => {
    await cp?.stop();
  });

  it('lets objects be created in a namespace that does not exist, as upstream without the plugin', async () => {
    const res = await apiRequest(cp, 'POST', '/api/v1/namespaces/nowhere/configmaps', {
      body: { metadata: { name: 'c' } },
    });
    assert.equal(res.status, 201, res.text);
  });
});
