import { after, before, describe, it } from 'node:test';
import { type ControlPlane, startControlPlane } from '../../src/index.js';
import { apiRequest, kubectl } from '../../src/testing/api-client.js';
import assert from '../../src/testing/assert.js';

const SERVICES = '/api/v1/namespaces/default/services';
const service = (name: string, spec: Record<string, unknown>) => ({
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { name },
  spec,
});

describe('core/v1 services through the API: defaulting, validation, printing', () => {
  let cp: ControlPlane;
  before(async () => {
    cp = await startControlPlane();
  });
  after(async () => {
    await cp?.stop();
  });

  it("stores a service with upstream's defaults and an empty load-balancer status", async () => {
    const res = await apiRequest(cp, 'POST', SERVICES, {
      body: service('web', { selector: { app: 'web' }, ports: [{ port: 80 }], type: 'NodePort' }),
    });
    assert.equal(res.status, 201, res.text);
    const { spec, status } = res.body;
    assert.equal(spec.sessionAffinity, 'None');
    assert.equal(spec.internalTrafficPolicy, 'Cluster');
    assert.equal(spec.externalTrafficPolicy, 'Cluster');
    assert.deepEqual(spec.ports[0].protocol, 'TCP');
    assert.deepEqual(spec.ports[0].targetPort, 80);
    assert.deepEqual(status, { loadBalancer: {} });
    assert.equal(res.body.metadata.generation, undefined);
  });

  it("refuses bad services with upstream's messages", async () => {
    const noPorts = await apiRequest(cp, 'POST', SERVICES, { body: service('empty', { selector: { app: 'x' } }) });
    assert.equal(noPorts.status, 422);
    assert.equal(noPorts.body.message, 'Service "empty" is invalid: spec.ports: Required value');
    const badName = await apiRequest(cp, 'POST', SERVICES, { body: service('1web', { ports: [{ port: 80 }] }) });
    assert.equal(badName.status, 422);
    assert.match(
      badName.body.message,
      /^Service "1web" is invalid: metadata\.name: Invalid value: "1web": a DNS-1035 label must consist of/,
    );
    const badType = await apiRequest(cp, 'POST', SERVICES, {
      body: service('typed', { type: 'Internal', ports: [{ port: 80 }] }),
    });
    assert.equal(
      badType.body.message,
      'Service "typed" is invalid: spec.type: Unsupported value: "Internal": supported values: "ClusterIP", "ExternalName", "LoadBalancer", "NodePort"',
    );
  });

  it('selects on spec.type and answers a DELETE with the deleted service', async () => {
    await apiRequest(cp, 'POST', SERVICES, { body: service('plain', { ports: [{ port: 8080 }] }) });
    const nodePorts = await apiRequest(cp, 'GET', `${SERVICES}?fieldSelector=spec.type%3DNodePort`);
    assert.deepEqual(
      nodePorts.body.items.map((s: { metadata: { name: string } }) => s.metadata.name),
      ['web'],
    );
    const deleted = await apiRequest(cp, 'DELETE', `${SERVICES}/plain`);
    assert.equal(deleted.status, 200);
    assert.equal(deleted.body.kind, 'Service');
  });

  it('prints services for kubectl get -o wide', async () => {
    await apiRequest(cp, 'POST', SERVICES, {
      body: service('external', { type: 'ExternalName', externalName: 'db.example.com' }),
    });
    const res = await kubectl(cp, ['get', 'services', 'external', '-o', 'wide']);
    assert.equal(res.code, 0, res.stderr);
    const [header, row] = res.stdout.trimEnd().split('\n');
    assert.deepEqual(header?.split(/\s{2,}/), [
      'NAME',
      'TYPE',
      'CLUSTER-IP',
      'EXTERNAL-IP',
      'PORT(S)',
      'AGE',
      'SELECTOR',
    ]);
    const cells = row?.split(/\s+/) ?? [];
    assert.deepEqual(
      [cells[0], cells[1], cells[2], cells[3], cells[4], cells[6]],
      ['external', 'ExternalName', '<none>', 'db.example.com', '<none>', '<none>'],
    );
  });
});
