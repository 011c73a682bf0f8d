/**
 * The Warning headers upstream's strategies answer writes with: a workload whose name is not a DNS label, and pod
 * templates using deprecated node labels — on create, and on an update that changes the spec.
 */
import { after, before, describe, it } from 'node:test';
import { type ControlPlane, startControlPlane } from '../../src/index.js';
import { apiRequest, kubectl } from '../../src/testing/api-client.js';
import assert from '../../src/testing/assert.js';

describe('strategy warnings', () => {
  let cp: ControlPlane;
  before(async () => {
    cp = await startControlPlane();
  });
  after(async () => {
    await cp?.stop();
  });

  it('kubectl shows the Job name and deprecated node label warnings', async () => {
    const job = {
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name: 'x.y.z' },
      spec: {
        template: {
          spec: {
            restartPolicy: 'Never',
            nodeSelector: { 'beta.kubernetes.io/arch': 'amd64' },
            containers: [{ name: 'c', image: 'busybox' }],
          },
        },
      },
    };
    const created = await kubectl(cp, ['create', '-f', '-'], { input: JSON.stringify(job) });
    assert.equal(created.code, 0, created.stderr);
    assert.match(
      created.stderr,
      /Warning: metadata.name: this is used in Pod names and hostnames, which can result in surprising behavior; a DNS label is recommended: \[must not contain dots\]/,
    );
    assert.match(
      created.stderr,
      /Warning: spec.template.spec.nodeSelector\[beta.kubernetes.io\/arch\]: deprecated since v1.14; use "kubernetes.io\/arch" instead/,
    );
  });

  it('every request to v1 Endpoints is answered with its deprecation warning', async () => {
    const list = await apiRequest(cp, 'GET', '/api/v1/namespaces/default/endpoints');
    assert.equal(list.status, 200);
    assert.equal(
      list.headers.warning,
      '299 - "v1 Endpoints is deprecated in v1.33+; use discovery.k8s.io/v1 EndpointSlice"',
    );
    const slices = await apiRequest(cp, 'GET', '/apis/discovery.k8s.io/v1/namespaces/default/endpointslices');
    assert.equal(slices.headers.warning, undefined);
  });

  it('a Deployment update warns when it changes the spec, not on a label change', async () => {
    const deployments = '/apis/apps/v1/namespaces/default/deployments';
    const body = {
      metadata: { name: 'web' },
      spec: {
        selector: { matchLabels: { app: 'web' } },
        template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } },
      },
    };
    assert.equal((await apiRequest(cp, 'POST', deployments, { body })).status, 201);
    const deprecated = await apiRequest(cp, 'PATCH', `${deployments}/web`, {
      contentType: 'application/merge-patch+json',
      body: { spec: { template: { spec: { nodeSelector: { 'beta.kubernetes.io/os': 'linux' } } } } },
    });
    assert.equal(deprecated.status, 200, deprecated.text);
    assert.match(
      String(deprecated.headers.warning),
      /spec.template.spec.nodeSelector\[beta.kubernetes.io\/os\]: deprecated since v1.14/,
    );
    const labelled = await apiRequest(cp, 'PATCH', `${deployments}/web`, {
      contentType: 'application/merge-patch+json',
      body: { metadata: { labels: { tier: 'front' } } },
    });
    assert.equal(labelled.status, 200, labelled.text);
    assert.equal(labelled.headers.warning, undefined);
  });
});
