import { after, before, describe, it } from 'node:test';
import { type ControlPlane, startControlPlane } from '../../src/index.js';
import { apiRequest } from '../../src/testing/api-client.js';
import assert from '../../src/testing/assert.js';

describe('apiserver: what a cluster has from the start', () => {
  let cp: ControlPlane;
  before(async () => {
    cp = await startControlPlane();
  });
  after(async () => {
    await cp?.stop();
  });

  it('has the kubernetes Service at the first service IP, with Endpoints and an EndpointSlice pointing at itself', async () => {
    const port = Number(new URL(cp.url).port);
    const svc = (await apiRequest(cp, 'GET', '/api/v1/namespaces/default/services/kubernetes')).body;
    assert.equal(svc.spec.clusterIP, '10.96.0.1');
    assert.deepEqual(
      svc.spec.ports.map((p: { name: string; port: number; targetPort: number }) => [p.name, p.port, p.targetPort]),
      [['https', 443, port]],
    );
    const ep = (await apiRequest(cp, 'GET', '/api/v1/namespaces/default/endpoints/kubernetes')).body;
    assert.deepEqual(ep.subsets, [
      { addresses: [{ ip: '127.0.0.1' }], ports: [{ name: 'https', port, protocol: 'TCP' }] },
    ]);
    const slice = (
      await apiRequest(cp, 'GET', '/apis/discovery.k8s.io/v1/namespaces/default/endpointslices/kubernetes')
    ).body;
    assert.equal(slice.metadata.labels['kubernetes.io/service-name'], 'kubernetes');
    assert.deepEqual(slice.endpoints[0].addresses, ['127.0.0.1']);
    assert.equal(slice.ports[0].port, port);
  });

  it('has the system priority classes and the kubernetes ServiceCIDR', async () => {
    const pcs = (await apiRequest(cp, 'GET', '/apis/scheduling.k8s.io/v1/priorityclasses')).body.items;
    const values = Object.fromEntries(
      pcs.map((p: { metadata: { name: string }; value: number }) => [p.metadata.name, p.value]),
    );
    assert.deepEqual(values, { 'system-cluster-critical': 2000000000, 'system-node-critical': 2000001000 });
    const cidr = (await apiRequest(cp, 'GET', '/apis/networking.k8s.io/v1/servicecidrs/kubernetes')).body;
    assert.deepEqual(cidr.spec.cidrs, ['10.96.0.0/12']);
  });

  it('gives the next Service another address than the kubernetes one', async () => {
    const res = await apiRequest(cp, 'POST', '/api/v1/namespaces/default/services', {
      body: { metadata: { name: 'web' }, spec: { selector: { app: 'web' }, ports: [{ port: 80 }] } },
    });
    assert.equal(res.status, 201, res.text);
    assert.notEqual(res.body.spec.clusterIP, '10.96.0.1');
    assert.match(res.body.spec.clusterIP, /^10\.(9[6-9]|10\d|11[01])\.\d+\.\d+$/);
  });
});
