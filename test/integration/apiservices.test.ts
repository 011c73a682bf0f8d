/**
 * APIServices: the Local ones this apiserver registers for what it serves (built-in group versions at start, the
 * metrics API, and each group version a CRD serves, while it does), marked Available; validation as upstream's;
 * and `kubectl get apiservices` as upstream prints it.
 */
import { after, before, describe, it } from 'node:test';
import { type ControlPlane, startControlPlane } from '../../src/index.js';
import { apiRequest, kubectl } from '../../src/testing/api-client.js';
import assert from '../../src/testing/assert.js';
import { eventually } from '../../src/testing/controllers.js';
import { crdManifest, servedVersions } from '../../src/testing/crd-fixtures.js';

const APISERVICES = '/apis/apiregistration.k8s.io/v1/apiservices';
const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';

describe('APIServices', () => {
  let cp: ControlPlane;
  before(async () => {
    cp = await startControlPlane();
  });
  after(async () => {
    await cp?.stop();
  });

  it('registers every served built-in group version as a Local, Available APIService with upstream priorities', async () => {
    const core = await eventually(async () => {
      const res = await apiRequest(cp, 'GET', `${APISERVICES}/v1.`);
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.status?.conditions?.[0]?.status, 'True');
      return res.body;
    });
    assert.deepEqual(core.metadata.labels, { 'kube-aggregator.kubernetes.io/automanaged': 'onstart' });
    assert.deepEqual(core.spec, { group: '', version: 'v1', groupPriorityMinimum: 18000, versionPriority: 1 });
    const [available] = core.status.conditions;
    assert.deepEqual(
      [available.type, available.status, available.reason, available.message],
      ['Available', 'True', 'Local', 'Local APIServices are always available'],
    );
    const names = (await apiRequest(cp, 'GET', APISERVICES)).body.items.map(
      (s: { metadata: { name: string } }) => s.metadata.name,
    );
    for (const name of ['v1.apps', 'v2.autoscaling', 'v1.rbac.authorization.k8s.io', 'v1beta1.metrics.k8s.io']) {
      assert.ok(names.includes(name), `${name} in ${names.join()}`);
    }
    const autoscaling = (await apiRequest(cp, 'GET', `${APISERVICES}/v2.autoscaling`)).body;
    assert.deepEqual([autoscaling.spec.groupPriorityMinimum, autoscaling.spec.versionPriority], [17500, 30]);
    await eventually(async () => {
      const table = (await kubectl(cp, ['get', 'apiservices'])).stdout.split('\n');
      assert.match(table[0] ?? '', /^NAME\s+SERVICE\s+AVAILABLE\s+AGE$/);
      assert.ok(
        table.some((l) => /^v1\.apps\s+Local\s+True\s+\S+$/.test(l)),
        table.join('\n'),
      );
    });
  });

  it('stays ready once the start-up APIServices were seen Available, even when one is deleted', async () => {
    assert.equal((await apiRequest(cp, 'GET', '/readyz/autoregister-completion')).text, 'ok');
    assert.equal((await apiRequest(cp, 'DELETE', `${APISERVICES}/v1.coordination.k8s.io`)).status, 200);
    assert.equal((await apiRequest(cp, 'GET', '/readyz/autoregister-completion')).text, 'ok');
    assert.equal((await apiRequest(cp, 'GET', `${APISERVICES}/v1.coordination.k8s.io`)).status, 404);
  });

  it('registers the group versions a CRD serves while it serves them', async () => {
    const crd = crdManifest('widgets', 'Widget', 'stable.example.com', servedVersions('v1', 'v2'));
    assert.equal((await apiRequest(cp, 'POST', CRDS, { body: crd })).status, 201);
    const v2 = await eventually(async () => {
      const res = await apiRequest(cp, 'GET', `${APISERVICES}/v2.stable.example.com`);
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.status?.conditions?.[0]?.reason, 'Local');
      return res.body;
    });
    assert.deepEqual(v2.metadata.labels, { 'kube-aggregator.kubernetes.io/automanaged': 'true' });
    assert.deepEqual([v2.spec.groupPriorityMinimum, v2.spec.versionPriority], [1000, 100]);
    // v2 no longer served: its APIService goes; v1 stays.
    const current = (await apiRequest(cp, 'GET', `${CRDS}/widgets.stable.example.com`)).body;
    current.spec.versions[1].served = false;
    assert.equal((await apiRequest(cp, 'PUT', `${CRDS}/widgets.stable.example.com`, { body: current })).status, 200);
    await eventually(async () => {
      assert.equal((await apiRequest(cp, 'GET', `${APISERVICES}/v2.stable.example.com`)).status, 404);
      assert.equal((await apiRequest(cp, 'GET', `${APISERVICES}/v1.stable.example.com`)).status, 200);
    });
    assert.equal((await apiRequest(cp, 'DELETE', `${CRDS}/widgets.stable.example.com`)).status, 200);
    await eventually(async () =>
      assert.equal((await apiRequest(cp, 'GET', `${APISERVICES}/v1.stable.example.com`)).status, 404),
    );
    // One marked as a CRD's with no CRD serving it (its CRD went while no apiserver ran) goes too.
    const ghost = await apiRequest(cp, 'POST', APISERVICES, {
      body: {
        metadata: { name: 'v1.ghost.example.com', labels: { 'kube-aggregator.kubernetes.io/automanaged': 'true' } },
        spec: { group: 'ghost.example.com', version: 'v1', groupPriorityMinimum: 1000, versionPriority: 100 },
      },
    });
    assert.equal(ghost.status, 201, ghost.text);
    await eventually(async () =>
      assert.equal((await apiRequest(cp, 'GET', `${APISERVICES}/v1.ghost.example.com`)).status, 404),
    );
  });

  it('validates as upstream does, and leaves APIServices naming a Service as they are', async () => {
    const bad = await apiRequest(cp, 'POST', APISERVICES, {
      body: {
        metadata: { name: 'v1.wrong.example.com' },
        spec: {
          group: 'custom.example.com',
          version: 'v1',
          groupPriorityMinimum: 0,
          versionPriority: 5000,
          insecureSkipTLSVerify: true,
        },
      },
    });
    assert.equal(bad.status, 422);
    assert.equal(
      bad.body.message,
      'APIService.apiregistration.k8s.io "v1.wrong.example.com" is invalid: [metadata.name: Invalid value: "v1.wrong.example.com": must be `spec.version+"."+spec.group`: "v1.custom.example.com", spec.groupPriorityMinimum: Invalid value: 0: must be positive and less than 20000, spec.versionPriority: Invalid value: 5000: must be positive and less than 1000, spec.insecureSkipTLSVerify: Invalid value: true: local APIServices may not have insecureSkipTLSVerify]',
    );
    const remote = await apiRequest(cp, 'POST', APISERVICES, {
      body: {
        metadata: { name: 'v1beta1.custom.example.com' },
        spec: {
          group: 'custom.example.com',
          version: 'v1beta1',
          groupPriorityMinimum: 100,
          versionPriority: 100,
          service: { namespace: 'kube-system', name: 'custom-api' },
        },
      },
    });
    assert.equal(remote.status, 201, remote.text);
    assert.equal(remote.body.spec.service.port, 443, 'the port defaults to 443');
    // A CRD of that group version does not take the user's APIService over.
    const crd = crdManifest('gadgets', 'Gadget', 'custom.example.com', servedVersions('v1beta1'));
    assert.equal((await apiRequest(cp, 'POST', CRDS, { body: crd })).status, 201);
    await eventually(async () => {
      const gadgets = await apiRequest(cp, 'GET', '/apis/custom.example.com/v1beta1/namespaces/default/gadgets');
      assert.equal(gadgets.status, 200, gadgets.text);
    });
    const kept = (await apiRequest(cp, 'GET', `${APISERVICES}/v1beta1.custom.example.com`)).body;
    assert.deepEqual([kept.spec.service?.name, kept.metadata.labels], ['custom-api', undefined]);
    const table = (await kubectl(cp, ['get', 'apiservice', 'v1beta1.custom.example.com', '--no-headers'])).stdout;
    assert.match(table.trim(), /^v1beta1\.custom\.example\.com\s+kube-system\/custom-api\s+Unknown\s+\S+$/);
  });
});
