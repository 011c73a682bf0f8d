import { after, before, describe, it } from 'node:test';
import { type ControlPlane, startControlPlane } from '../../src/index.js';
import { apiRequest, kubectl } from '../../src/testing/api-client.js';
import assert from '../../src/testing/assert.js';

describe('apiserver: metadata.managedFields for each manager', () => {
  let cp: ControlPlane;
  before(async () => {
    cp = await startControlPlane();
  });
  after(async () => {
    await cp?.stop();
  });

  it('records who set which fields, and moves a field to whoever changes it', async () => {
    assert.equal((await kubectl(cp, ['create', 'configmap', 'c', '--from-literal=a=b'])).code, 0);
    assert.equal((await kubectl(cp, ['label', 'cm', 'c', 'team=blue'])).code, 0);
    let cm = (await apiRequest(cp, 'GET', '/api/v1/namespaces/default/configmaps/c')).body;
    const byManager = () =>
      Object.fromEntries(
        cm.metadata.managedFields.map((e: { manager: string; operation: string; fieldsV1: unknown }) => [
          e.manager,
          [e.operation, e.fieldsV1],
        ]),
      );
    assert.deepEqual(byManager(), {
      'kubectl-create': ['Update', { 'f:data': { '.': {}, 'f:a': {} } }],
      'kubectl-label': ['Update', { 'f:metadata': { 'f:labels': { '.': {}, 'f:team': {} } } }],
    });
    // Another manager changes data.a: it owns it now, and kubectl-create keeps only the map itself.
    const res = await apiRequest(cp, 'PATCH', '/api/v1/namespaces/default/configmaps/c?fieldManager=robot', {
      body: { data: { a: 'changed' } },
      contentType: 'application/merge-patch+json',
    });
    assert.equal(res.status, 200, res.text);
    cm = res.body;
    assert.deepEqual(byManager().robot, ['Update', { 'f:data': { 'f:a': {} } }]);
    assert.deepEqual(byManager()['kubectl-create'], ['Update', { 'f:data': { '.': {} } }]);
  });

  it('keys list elements by their merge key, and records status writes with their subresource', async () => {
    assert.equal((await kubectl(cp, ['create', 'deployment', 'web', '--image=nginx'])).code, 0);
    const dep = (await apiRequest(cp, 'GET', '/apis/apps/v1/namespaces/default/deployments/web')).body;
    const entry = dep.metadata.managedFields.find((e: { manager: string }) => e.manager === 'kubectl-create');
    const containers = entry.fieldsV1['f:spec']['f:template']['f:spec']['f:containers'];
    assert.ok(containers['k:{"name":"nginx"}'], JSON.stringify(containers));
    assert.deepEqual(containers['k:{"name":"nginx"}']['.'], {});
    assert.ok(containers['k:{"name":"nginx"}']['f:image']);
    assert.equal(entry.fieldsV1['f:status'], undefined, 'status is not owned through the main resource');
    const st = await apiRequest(
      cp,
      'PATCH',
      '/apis/apps/v1/namespaces/default/deployments/web/status?fieldManager=ctl',
      {
        body: { status: { observedGeneration: 1 } },
        contentType: 'application/merge-patch+json',
      },
    );
    assert.equal(st.status, 200, st.text);
    const statusEntry = st.body.metadata.managedFields.find((e: { manager: string }) => e.manager === 'ctl');
    assert.equal(statusEntry.subresource, 'status');
    assert.deepEqual(statusEntry.fieldsV1, { 'f:status': { 'f:observedGeneration': {} } });
  });

  it('gives the writer of a create only what it sent and the defaults, not what mutating admission added', async () => {
    const res = await apiRequest(cp, 'POST', '/api/v1/namespaces/default/pods?fieldManager=maker', {
      body: { metadata: { name: 'owned', labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'x' }] } },
    });
    assert.equal(res.status, 201, res.text);
    const pod = res.body;
    // The admission plugins did add these (DefaultTolerationSeconds, Priority)…
    assert.ok(pod.spec.tolerations?.length >= 2, JSON.stringify(pod.spec));
    assert.equal(pod.spec.priority, 0);
    const entry = pod.metadata.managedFields.find((e: { manager: string }) => e.manager === 'maker');
    const spec = entry.fieldsV1['f:spec'];
    // …but the creator's entry holds its own fields and the defaults, as upstream's managedFields of a new pod.
    assert.deepEqual(Object.keys(spec).sort(), [
      'f:containers',
      'f:dnsPolicy',
      'f:enableServiceLinks',
      'f:restartPolicy',
      'f:schedulerName',
      'f:securityContext',
      'f:terminationGracePeriodSeconds',
    ]);
    assert.deepEqual(entry.fieldsV1['f:metadata'], { 'f:labels': { '.': {}, 'f:a': {} } });
  });

  it('refuses a fieldManager over 128 bytes, and cuts a User-Agent to whole characters within them', async () => {
    const CMS = '/api/v1/namespaces/default/configmaps';
    const long = await apiRequest(cp, 'POST', `${CMS}?fieldManager=${'m'.repeat(129)}`, {
      body: { metadata: { name: 'long' } },
    });
    assert.equal(long.status, 422, long.text);
    assert.equal(
      long.body.message,
      'CreateOptions.meta.k8s.io "" is invalid: fieldManager: Too long: may not be more than 128 bytes',
    );
    // The scale subresource's writes too.
    const scale = await apiRequest(
      cp,
      'PATCH',
      `/apis/apps/v1/namespaces/default/deployments/none/scale?fieldManager=${'m'.repeat(129)}`,
      { body: { spec: { replicas: 1 } }, contentType: 'application/merge-patch+json' },
    );
    assert.equal(scale.status, 422, scale.text);
    assert.equal(
      scale.body.message,
      'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Too long: may not be more than 128 bytes',
    );
    const accented = await apiRequest(cp, 'POST', CMS, {
      body: { metadata: { name: 'accented' }, data: { a: 'b' } },
      headers: { 'user-agent': `${'é'.repeat(100)}/v1.0` },
    });
    assert.equal(accented.status, 201, accented.text);
    assert.equal(accented.body.metadata.managedFields[0].manager, 'é'.repeat(64));
  });
});
