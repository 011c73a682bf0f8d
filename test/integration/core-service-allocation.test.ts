import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type ControlPlane, startControlPlane } from '../../src/index.js';
import { apiRequest, kubectl } from '../../src/testing/api-client.js';
import assert from '../../src/testing/assert.js';

const SERVICES = '/api/v1/namespaces/default/services';
const service = (name: string, spec: Record<string, unknown> = {}) => ({
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { name },
  spec: { selector: { app: name }, ports: [{ port: 80 }], ...spec },
});

/** 10.96.0.0/12 runs from 10.96.0.0 to 10.111.255.255. */
function inServiceCIDR(ip: string): boolean {
  const [a, b] = ip.split('.').map(Number);
  return a === 10 && b !== undefined && b >= 96 && b <= 111;
}

describe('core/v1 services: ClusterIP and node-port allocation', () => {
  let cp: ControlPlane;
  before(async () => {
    cp = await startControlPlane();
  });
  after(async () => {
    await cp?.stop();
  });

  it('gives a service a ClusterIP from 10.96.0.0/12, and a NodePort service a node port', async () => {
    const res = await apiRequest(cp, 'POST', SERVICES, { body: service('web', { type: 'NodePort' }) });
    assert.equal(res.status, 201, res.text);
    const { spec } = res.body;
    assert.ok(inServiceCIDR(spec.clusterIP), spec.clusterIP);
    assert.deepEqual(spec.clusterIPs, [spec.clusterIP]);
    assert.deepEqual(spec.ipFamilies, ['IPv4']);
    assert.equal(spec.ipFamilyPolicy, 'SingleStack');
    assert.ok(spec.ports[0].nodePort >= 30000 && spec.ports[0].nodePort <= 32767, String(spec.ports[0].nodePort));
  });

  it('never gives two services the same address', async () => {
    const ips = new Set<string>();
    for (let i = 0; i < 20; i++) {
      const res = await apiRequest(cp, 'POST', SERVICES, { body: service(`many-${i}`) });
      assert.equal(res.status, 201, res.text);
      ips.add(res.body.spec.clusterIP);
    }
    assert.equal(ips.size, 20);
  });

  it("refuses taken and out-of-range addresses and ports with upstream's messages", async () => {
    assert.equal(
      (await apiRequest(cp, 'POST', SERVICES, { body: service('dns', { clusterIP: '10.96.0.10' }) })).status,
      201,
    );
    const taken = await apiRequest(cp, 'POST', SERVICES, { body: service('dns2', { clusterIP: '10.96.0.10' }) });
    assert.equal(taken.status, 422);
    assert.equal(
      taken.body.message,
      'Service "dns2" is invalid: spec.clusterIPs: Invalid value: []string{"10.96.0.10"}: failed to allocate IP 10.96.0.10: provided IP is already allocated',
    );
    const foreign = await apiRequest(cp, 'POST', SERVICES, { body: service('foreign', { clusterIP: '1.1.1.1' }) });
    assert.equal(
      foreign.body.message,
      'Service "foreign" is invalid: spec.clusterIPs: Invalid value: []string{"1.1.1.1"}: failed to allocate IP 1.1.1.1: the provided network does not match the current range',
    );
    const port = await apiRequest(cp, 'POST', SERVICES, {
      body: service('low', { type: 'NodePort', ports: [{ port: 80, nodePort: 8080 }] }),
    });
    assert.equal(
      port.body.message,
      'Service "low" is invalid: spec.ports[0].nodePort: Invalid value: 8080: provided port is not in the valid range. The range of valid ports is 30000-32767',
    );
    await apiRequest(cp, 'POST', SERVICES, {
      body: service('np1', { type: 'NodePort', ports: [{ port: 80, nodePort: 30555 }] }),
    });
    const portTaken = await apiRequest(cp, 'POST', SERVICES, {
      body: service('np2', { type: 'NodePort', ports: [{ port: 80, nodePort: 30555 }] }),
    });
    assert.equal(
      portTaken.body.message,
      'Service "np2" is invalid: spec.ports[0].nodePort: Invalid value: 30555: provided port is already allocated',
    );
  });

  it('keeps the first address, 10.96.0.1, for the kubernetes Service', async () => {
    const other = await apiRequest(cp, 'POST', SERVICES, { body: service('squatter', { clusterIP: '10.96.0.1' }) });
    assert.equal(other.status, 422);
    assert.match(other.body.message, /failed to allocate IP 10\.96\.0\.1: provided IP is already allocated$/);
    // The apiserver's bootstrap created default/kubernetes at that address.
    const kubernetes = await apiRequest(cp, 'GET', `${SERVICES}/kubernetes`);
    assert.equal(kubernetes.status, 200, kubernetes.text);
    assert.equal(kubernetes.body.spec.clusterIP, '10.96.0.1');
  });

  it('leaves headless services without an address', async () => {
    const res = await apiRequest(cp, 'POST', SERVICES, { body: service('headless', { clusterIP: 'None' }) });
    assert.equal(res.status, 201, res.text);
    assert.deepEqual(res.body.spec.clusterIPs, ['None']);
  });

  it('releases addresses and ports on delete and on type change', async () => {
    await apiRequest(cp, 'POST', SERVICES, {
      body: service('reuse', { clusterIP: '10.96.0.50', type: 'NodePort', ports: [{ port: 80, nodePort: 30600 }] }),
    });
    assert.equal((await apiRequest(cp, 'DELETE', `${SERVICES}/reuse`)).status, 200);
    const again = await apiRequest(cp, 'POST', SERVICES, {
      body: service('reuse2', { clusterIP: '10.96.0.50', type: 'NodePort', ports: [{ port: 80, nodePort: 30600 }] }),
    });
    assert.equal(again.status, 201, again.text);
    const toClusterIP = await apiRequest(cp, 'PATCH', `${SERVICES}/reuse2`, {
      body: { spec: { type: 'ClusterIP' } },
      contentType: 'application/merge-patch+json',
    });
    assert.equal(toClusterIP.status, 200, toClusterIP.text);
    assert.equal(toClusterIP.body.spec.ports[0].nodePort, undefined);
    assert.equal(toClusterIP.body.spec.clusterIP, '10.96.0.50', 'the address stays with the service');
    const port = await apiRequest(cp, 'POST', SERVICES, {
      body: service('takes-port', { type: 'NodePort', ports: [{ port: 80, nodePort: 30600 }] }),
    });
    assert.equal(port.status, 201, port.text);
  });

  it('keeps allocated values a replace leaves out, and refuses a changed cluster IP', async () => {
    const created = (await apiRequest(cp, 'POST', SERVICES, { body: service('replace', { type: 'NodePort' }) })).body;
    const replaced = await apiRequest(cp, 'PUT', `${SERVICES}/replace`, {
      body: {
        ...service('replace', { type: 'NodePort' }),
        metadata: { name: 'replace', resourceVersion: created.metadata.resourceVersion },
      },
    });
    assert.equal(replaced.status, 200, replaced.text);
    assert.equal(replaced.body.spec.clusterIP, created.spec.clusterIP);
    assert.equal(replaced.body.spec.ports[0].nodePort, created.spec.ports[0].nodePort);
    const moved = await apiRequest(cp, 'PUT', `${SERVICES}/replace`, {
      body: { ...replaced.body, spec: { ...replaced.body.spec, clusterIP: '10.96.0.77', clusterIPs: ['10.96.0.77'] } },
    });
    assert.equal(moved.status, 422);
    assert.match(
      moved.body.message,
      /spec\.clusterIPs\[0\]: Invalid value: \[\]string\{"10\.96\.0\.77"\}: may not change once set/,
    );
  });

  it('removes the endpoints of a deleted service', async () => {
    await apiRequest(cp, 'POST', SERVICES, { body: service('with-endpoints') });
    await apiRequest(cp, 'POST', '/api/v1/namespaces/default/endpoints', {
      body: {
        metadata: { name: 'with-endpoints' },
        subsets: [{ addresses: [{ ip: '10.244.0.3' }], ports: [{ port: 80 }] }],
      },
    });
    await apiRequest(cp, 'DELETE', `${SERVICES}/with-endpoints`);
    assert.equal((await apiRequest(cp, 'GET', '/api/v1/namespaces/default/endpoints/with-endpoints')).status, 404);
  });

  it('shows the cluster IP and node port to kubectl', async () => {
    const created = (await apiRequest(cp, 'POST', SERVICES, { body: service('shown', { type: 'NodePort' }) })).body;
    const res = await kubectl(cp, ['get', 'service', 'shown']);
    assert.equal(res.code, 0, res.stderr);
    const cells = res.stdout.trimEnd().split('\n')[1]?.split(/\s+/) ?? [];
    assert.deepEqual(cells.slice(0, 5), [
      'shown',
      'NodePort',
      created.spec.clusterIP,
      '<none>',
      `80:${created.spec.ports[0].nodePort}/TCP`,
    ]);
  });
});

describe('core/v1 services: allocations survive a restart', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'wheelhouse-svc-'));
  after(() => rmSync(dataDir, { recursive: true, force: true }));

  it('remembers taken addresses and ports from the stored services', async () => {
    let cp = await startControlPlane({ storage: 'sqlite', dataDir });
    let first: { spec: { clusterIP: string; ports: Array<{ nodePort: number }> } };
    try {
      const res = await apiRequest(cp, 'POST', SERVICES, { body: service('durable', { type: 'NodePort' }) });
      assert.equal(res.status, 201, res.text);
      first = res.body;
    } finally {
      await cp.stop();
    }
    cp = await startControlPlane({ storage: 'sqlite', dataDir });
    try {
      const ip = first.spec.clusterIP;
      const nodePort = first.spec.ports[0]?.nodePort;
      const sameIP = await apiRequest(cp, 'POST', SERVICES, { body: service('copy', { clusterIP: ip }) });
      assert.equal(sameIP.status, 422);
      assert.match(sameIP.body.message, /provided IP is already allocated$/);
      const samePort = await apiRequest(cp, 'POST', SERVICES, {
        body: service('copy2', { type: 'NodePort', ports: [{ port: 80, nodePort }] }),
      });
      assert.match(samePort.body.message, /provided port is already allocated$/);
      const read = await apiRequest(cp, 'GET', `${SERVICES}/durable`);
      assert.equal(read.body.spec.clusterIP, ip);
    } finally {
      await cp.stop();
    }
  });
});
