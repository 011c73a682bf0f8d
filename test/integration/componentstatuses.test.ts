import { createServer as createHttpsServer } from 'node:https';
import { type AddressInfo, createServer } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { httpsHealthProbe } from '../../src/apiserver/component-status.js';
import { type ControlPlane, startControlPlane } from '../../src/index.js';
import { apiRequest, kubectl } from '../../src/testing/api-client.js';
import assert from '../../src/testing/assert.js';
import { selfSignedServing } from '../../src/util/component-server.js';

const CS = '/api/v1/componentstatuses';
const DEPRECATION = '299 - "v1 ComponentStatus is deprecated in v1.19+"';

describe('componentstatuses: the health of the control plane, probed when asked', () => {
  let cp: ControlPlane;
  before(async () => {
    cp = await startControlPlane({ controllers: true, scheduler: true });
  });
  after(async () => {
    await cp?.stop();
  });

  it('lists the controller manager, the scheduler and the storage as kubectl get cs shows them', async () => {
    const list = await apiRequest(cp, 'GET', CS);
    assert.equal(list.status, 200, list.text);
    assert.equal(list.headers.warning, DEPRECATION);
    assert.equal(list.body.kind, 'ComponentStatusList');
    assert.deepEqual(
      list.body.items.map((i: { metadata: { name: string } }) => i.metadata.name),
      ['controller-manager', 'scheduler', 'memory-0'],
    );
    assert.deepEqual(list.body.items[1], {
      metadata: { name: 'scheduler', creationTimestamp: null },
      conditions: [{ type: 'Healthy', status: 'True', message: 'ok' }],
    });
    const out = await kubectl(cp, ['get', 'componentstatuses']);
    assert.equal(out.code, 0, out.stderr);
    assert.match(out.stderr, /Warning: v1 ComponentStatus is deprecated in v1\.19\+/);
    assert.match(out.stdout, /^NAME\s+STATUS\s+MESSAGE\s+ERROR$/m);
    assert.match(out.stdout, /^controller-manager\s+Healthy\s+ok\s*$/m);
    assert.match(out.stdout, /^scheduler\s+Healthy\s+ok\s*$/m);
    assert.match(out.stdout, /^memory-0\s+Healthy\s+ok\s*$/m);
  });

  it('gets one by name, filters by field selector, and refuses the rest as upstream does', async () => {
    const one = await kubectl(cp, ['get', 'cs', 'scheduler', '-o', 'jsonpath={.kind} {.conditions[0].status}']);
    assert.equal(one.stdout, 'ComponentStatus True');
    const unknown = await apiRequest(cp, 'GET', `${CS}/nope`);
    assert.equal(unknown.status, 500);
    assert.equal(unknown.body.message, 'Component not found: nope');
    const byName = await apiRequest(cp, 'GET', `${CS}?fieldSelector=metadata.name%3Dmemory-0`);
    assert.deepEqual(
      byName.body.items.map((i: { metadata: { name: string } }) => i.metadata.name),
      ['memory-0'],
    );
    const labelled = await apiRequest(cp, 'GET', `${CS}?labelSelector=tier%3Dcontrol-plane`);
    assert.deepEqual(labelled.body.items, [], 'no component has labels');
    const deleted = await apiRequest(cp, 'DELETE', `${CS}/scheduler`);
    assert.equal(deleted.status, 405);
    assert.equal(deleted.body.reason, 'MethodNotAllowed');
  });
});

describe('componentstatuses: the HTTPS health probe', () => {
  it('is healthy on 2xx with the body as message, unhealthy on other codes and when nothing listens', async () => {
    const tls = await selfSignedServing('probe-test');
    let code = 200;
    const server = createHttpsServer({ cert: tls.certPem, key: tls.keyPem }, (_req, res) => {
      res.writeHead(code);
      res.end(code === 200 ? 'ok' : 'broken');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/healthz`;
    try {
      assert.deepEqual(await httpsHealthProbe('x', url).probe(), { status: 'True', message: 'ok', error: '' });
      code = 500;
      assert.deepEqual(await httpsHealthProbe('x', url).probe(), {
        status: 'False',
        message: 'HTTP probe failed with statuscode: 500',
        error: '',
      });
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
    // A port nobody listens on: Go's client error, as upstream shows it.
    const free = createServer();
    await new Promise<void>((resolve) => free.listen(0, '127.0.0.1', resolve));
    const port = (free.address() as AddressInfo).port;
    await new Promise((resolve) => free.close(resolve));
    const refused = `https://127.0.0.1:${port}/healthz`;
    assert.deepEqual(await httpsHealthProbe('x', refused).probe(), {
      status: 'False',
      message: `Get "${refused}": dial tcp 127.0.0.1:${port}: connect: connection refused`,
      error: '',
    });
  });
});
