import { describe, it } from 'node:test';
import { StatusError } from '../../../api/status-error.js';
import assert from '../../../testing/assert.js';
import type { KubeObject } from '../object.js';
import { ServiceAllocations } from './core-service-allocation.js';
import { defaultService } from './core-service-defaults.js';
import { normalizeClusterIPs } from './core-service-update.js';

function svc(name: string, spec: Record<string, unknown>): KubeObject {
  const s: KubeObject = {
    metadata: { name, namespace: 'default' },
    spec: { selector: { app: name }, ports: [{ port: 80 }], ...spec },
  };
  defaultService(s);
  normalizeClusterIPs(s);
  return s;
}
const spec = (s: KubeObject) => s.spec as Record<string, unknown>;
const nodePorts = (s: KubeObject) => (spec(s).ports as Array<{ nodePort?: number }>).map((p) => p.nodePort);

function statusOf(fn: () => unknown): StatusError {
  try {
    fn();
  } catch (err) {
    if (err instanceof StatusError) return err;
    throw err;
  }
  assert.fail('expected a StatusError');
}

describe('service allocations', () => {
  it('gives a ClusterIP service an address and single-stack IPv4 fields', () => {
    const alloc = new ServiceAllocations();
    const s = svc('web', {});
    alloc.allocateCreate(s, false).commit();
    assert.equal(spec(s).ipFamilyPolicy, 'SingleStack');
    assert.deepEqual(spec(s).ipFamilies, ['IPv4']);
    assert.match(String(spec(s).clusterIP), /^10\.(9[6-9]|10[0-9]|11[01])\.\d+\.\d+$/);
    assert.deepEqual(spec(s).clusterIPs, [spec(s).clusterIP]);
    assert.equal(alloc.ips.used, 2, 'the service and the kubernetes Service address');
  });

  it('gives NodePort services node ports, one per service port number', () => {
    const alloc = new ServiceAllocations();
    const s = svc('dns', {
      type: 'NodePort',
      ports: [
        { name: 'udp', port: 53, protocol: 'UDP' },
        { name: 'tcp', port: 53, protocol: 'TCP' },
        { name: 'web', port: 80, nodePort: 30080 },
      ],
    });
    alloc.allocateCreate(s, false).commit();
    const [udp, tcp, web] = nodePorts(s);
    assert.equal(udp, tcp);
    assert.ok(udp !== undefined && udp >= 30000 && udp <= 32767);
    assert.equal(web, 30080);
    assert.equal(alloc.ports.used, 2);
  });

  it('leaves headless and ExternalName services without addresses', () => {
    const alloc = new ServiceAllocations();
    const headless = svc('h', { clusterIP: 'None' });
    alloc.allocateCreate(headless, false).commit();
    assert.deepEqual(spec(headless).clusterIPs, ['None']);
    const selectorless = svc('hs', { clusterIP: 'None', selector: undefined });
    alloc.allocateCreate(selectorless, false).commit();
    assert.equal(spec(selectorless).ipFamilyPolicy, 'RequireDualStack');
    assert.deepEqual(spec(selectorless).ipFamilies, ['IPv4', 'IPv6']);
    const ext = svc('e', { type: 'ExternalName', externalName: 'example.com', ports: [] });
    alloc.allocateCreate(ext, false).commit();
    assert.equal(spec(ext).clusterIP, undefined);
    assert.equal(alloc.ips.used, 1);
  });

  it("refuses taken and foreign addresses and ports with upstream's errors", () => {
    const alloc = new ServiceAllocations();
    alloc.allocateCreate(svc('a', { clusterIP: '10.96.0.10' }), false).commit();
    const taken = statusOf(() => alloc.allocateCreate(svc('b', { clusterIP: '10.96.0.10' }), false));
    assert.equal(taken.code, 422);
    assert.equal(
      taken.message,
      'Service "b" is invalid: spec.clusterIPs: Invalid value: []string{"10.96.0.10"}: failed to allocate IP 10.96.0.10: provided IP is already allocated',
    );
    const foreign = statusOf(() => alloc.allocateCreate(svc('c', { clusterIP: '192.168.0.1' }), false));
    assert.match(
      foreign.message,
      /failed to allocate IP 192\.168\.0\.1: the provided network does not match the current range$/,
    );
    const kubernetes = statusOf(() => alloc.allocateCreate(svc('d', { clusterIP: '10.96.0.1' }), false));
    assert.match(kubernetes.message, /provided IP is already allocated$/);
    const port = statusOf(() =>
      alloc.allocateCreate(svc('e', { type: 'NodePort', ports: [{ port: 80, nodePort: 8080 }] }), false),
    );
    assert.equal(
      port.message,
      'Service "e" is invalid: spec.ports[0].nodePort: Invalid value: 8080: provided port is not in the valid range. The range of valid ports is 30000-32767',
    );
    assert.equal(alloc.ips.used, 2, 'failed creates reserved nothing');
  });

  it('gives back what a failed write reserved, and reserves nothing on a dry run', () => {
    const alloc = new ServiceAllocations();
    alloc.allocateCreate(svc('a', { type: 'NodePort' }), false).revert();
    assert.equal(alloc.ips.used, 1);
    assert.equal(alloc.ports.used, 0);
    const dry = svc('b', { type: 'NodePort' });
    alloc.allocateCreate(dry, true).commit();
    assert.ok(spec(dry).clusterIP, 'a dry run still shows an address');
    assert.equal(alloc.ips.used, 1);
    assert.equal(alloc.ports.used, 0);
  });

  it('releases node ports when a service stops being NodePort, and everything on delete', () => {
    const alloc = new ServiceAllocations();
    const old = svc('web', { type: 'NodePort' });
    alloc.allocateCreate(old, false).commit();
    assert.equal(alloc.ports.used, 1);
    const next = structuredClone(old);
    spec(next).type = 'ClusterIP';
    for (const p of spec(next).ports as Array<Record<string, unknown>>) delete p.nodePort;
    const txn = alloc.allocateUpdate(next, old, false);
    assert.equal(alloc.ports.used, 1, 'released only when the update is stored');
    txn.commit();
    assert.equal(alloc.ports.used, 0);
    alloc.release(next);
    assert.equal(alloc.ips.used, 1);
  });

  it('restores what stored services hold', async () => {
    const alloc = new ServiceAllocations();
    const stored = svc('web', { type: 'NodePort', clusterIP: '10.96.5.5', ports: [{ port: 80, nodePort: 30500 }] });
    spec(stored).clusterIPs = ['10.96.5.5'];
    await alloc.load(async () => [stored]);
    assert.equal(alloc.ips.check('10.96.5.5')?.message, 'provided IP is already allocated');
    assert.equal(alloc.ports.check(30500)?.message, 'provided port is already allocated');
  });
});
