/**
 * The IPAddress objects of Services' ClusterIPs (MultiCIDRServiceAllocator, GA and on in v1.33): one per held
 * address with the Service as parentRef, gone with the Service, and made to match the Services again at start.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { type ControlPlane, startControlPlane } from '../../src/index.js';
import { apiRequest, kubectl } from '../../src/testing/api-client.js';
import assert from '../../src/testing/assert.js';
import { eventually } from '../../src/testing/controllers.js';

const IPS = '/apis/networking.k8s.io/v1/ipaddresses';

describe('IPAddresses of Service ClusterIPs', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'wheelhouse-ipaddresses-'));
  let cp: ControlPlane | undefined;
  after(async () => {
    await cp?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });
  const parentOf = async (ip: string) => {
    const res = await apiRequest(cp as ControlPlane, 'GET', `${IPS}/${ip}`);
    return res.status === 200 ? res.body.spec.parentRef : res.status;
  };

  it('holds one per ClusterIP, labelled as the allocator, and lets it go with the Service', async () => {
    cp = await startControlPlane({ storage: 'sqlite', dataDir });
    const kubernetes = await eventually(async () => {
      const ip = await apiRequest(cp as ControlPlane, 'GET', `${IPS}/10.96.0.1`);
      assert.equal(ip.status, 200, ip.text);
      return ip.body;
    });
    assert.deepEqual(kubernetes.metadata.labels, {
      'ipaddress.kubernetes.io/ip-family': 'IPv4',
      'ipaddress.kubernetes.io/managed-by': 'ipallocator.k8s.io',
    });
    assert.deepEqual(kubernetes.spec.parentRef, {
      group: '',
      resource: 'services',
      namespace: 'default',
      name: 'kubernetes',
    });

    const made = await apiRequest(cp, 'POST', '/api/v1/namespaces/default/services', {
      body: { metadata: { name: 'web' }, spec: { selector: { app: 'web' }, ports: [{ port: 80 }] } },
    });
    assert.equal(made.status, 201, made.text);
    const ip = made.body.spec.clusterIP;
    await eventually(async () =>
      assert.deepEqual(await parentOf(ip), { group: '', resource: 'services', namespace: 'default', name: 'web' }),
    );
    const listed = await kubectl(cp, ['get', 'ipaddresses']);
    assert.equal(listed.code, 0, listed.stderr);
    assert.match(listed.stdout, /^NAME\s+PARENTREF\s*$/m);
    assert.match(listed.stdout, new RegExp(`^${ip.replaceAll('.', '\\.')}\\s+services/default/web\\s*$`, 'm'));

    // A headless Service holds none.
    const headless = await apiRequest(cp, 'POST', '/api/v1/namespaces/default/services', {
      body: { metadata: { name: 'db' }, spec: { clusterIP: 'None', selector: { app: 'db' }, ports: [{ port: 5432 }] } },
    });
    assert.equal(headless.status, 201, headless.text);

    const gone = await apiRequest(cp, 'DELETE', '/api/v1/namespaces/default/services/web');
    assert.equal(gone.status, 200, gone.text);
    await eventually(async () => assert.equal(await parentOf(ip), 404));
    const all = await apiRequest(cp, 'GET', IPS);
    assert.deepEqual(
      all.body.items.map((i: { metadata: { name: string } }) => i.metadata.name),
      ['10.96.0.1'],
    );
  });

  it('matches the stored Services again at start', async () => {
    const made = await apiRequest(cp as ControlPlane, 'POST', '/api/v1/namespaces/default/services', {
      body: { metadata: { name: 'api' }, spec: { selector: { app: 'api' }, ports: [{ port: 80 }] } },
    });
    assert.equal(made.status, 201, made.text);
    const ip = made.body.spec.clusterIP;
    await eventually(async () => assert.equal((await parentOf(ip)).name, 'api'));
    // Lost (deleted by hand) and stray (the allocator's, held by nobody) objects, then a restart.
    assert.equal((await apiRequest(cp as ControlPlane, 'DELETE', `${IPS}/${ip}`)).status, 200);
    const stray = await apiRequest(cp as ControlPlane, 'POST', IPS, {
      body: {
        metadata: { name: '10.96.0.99', labels: { 'ipaddress.kubernetes.io/managed-by': 'ipallocator.k8s.io' } },
        spec: { parentRef: { group: '', resource: 'services', namespace: 'default', name: 'nobody' } },
      },
    });
    assert.equal(stray.status, 201, stray.text);
    await cp?.stop();
    cp = await startControlPlane({ storage: 'sqlite', dataDir });
    // The first Service write loads the allocator, which reconciles.
    const other = await apiRequest(cp, 'POST', '/api/v1/namespaces/default/services', {
      body: { metadata: { name: 'other' }, spec: { selector: { app: 'x' }, ports: [{ port: 80 }] } },
    });
    assert.equal(other.status, 201, other.text);
    await eventually(async () => {
      assert.equal((await parentOf(ip)).name, 'api');
      assert.equal(await parentOf('10.96.0.99'), 404);
    });
  });
});
