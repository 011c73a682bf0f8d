import { test } from 'node:test';
import assert from '../../testing/assert.js';
import { apiserverAltNames, canonicalIP, coversAltNames, isValidDnsSan } from './alt-names.js';

test('the serving certificate names loopback, the host, the kubernetes Service and its IP', () => {
  const names = apiserverAltNames({ hostname: 'Node-1.Example.com' });
  assert.deepEqual(names.dnsNames, [
    'localhost',
    'kubernetes',
    'kubernetes.default',
    'kubernetes.default.svc',
    'kubernetes.default.svc.cluster.local',
    'node-1.example.com',
  ]);
  assert.deepEqual(names.ips, ['127.0.0.1', '10.96.0.1']);
});

test('cluster domain, service range and extra names change the list', () => {
  const names = apiserverAltNames({
    hostname: 'box',
    clusterDomain: 'corp.internal',
    serviceClusterIpRange: '10.32.0.0/16',
    extraSans: ['192.168.1.10', 'API.example.com', '*.apps.example.com', '2001:DB8::0:1', '127.0.0.1'],
  });
  assert.ok(names.dnsNames.includes('kubernetes.default.svc.corp.internal'));
  assert.ok(!names.dnsNames.includes('kubernetes.default.svc.cluster.local'));
  assert.ok(names.dnsNames.includes('api.example.com'));
  assert.ok(names.dnsNames.includes('*.apps.example.com'));
  assert.deepEqual(names.ips, ['127.0.0.1', '10.32.0.1', '192.168.1.10', '2001:db8::1']);
});

test('a host name that cannot be a DNS name is left out; a bad extra name is an error', () => {
  assert.ok(!apiserverAltNames({ hostname: 'my_laptop' }).dnsNames.includes('my_laptop'));
  assert.throws(() => apiserverAltNames({ hostname: 'h', extraSans: ['not a name'] }), /not a name/);
  assert.throws(() => apiserverAltNames({ hostname: 'h', extraSans: ['-bad.example.com'] }));
});

test('DNS SAN syntax and IP canonical form', () => {
  assert.ok(isValidDnsSan('a.b-c.d'));
  assert.ok(isValidDnsSan('*.example.com'));
  assert.ok(!isValidDnsSan('*'));
  assert.ok(!isValidDnsSan('a..b'));
  assert.ok(!isValidDnsSan('UPPER'));
  assert.equal(canonicalIP('FD00:0:0:0:0:0:0:1'), 'fd00::1');
  assert.equal(canonicalIP('::ffff:10.0.0.1'), '::ffff:a00:1');
  assert.equal(canonicalIP('10.0.0.1'), '10.0.0.1');
  assert.equal(canonicalIP('localhost'), undefined);
});

test('coverage: every wanted name must be present; extra ones are fine', () => {
  const have = { dnsNames: ['a', 'b'], ips: ['10.0.0.1', 'fd00::1'] };
  assert.ok(coversAltNames(have, { dnsNames: ['b'], ips: ['fd00::1'] }));
  assert.ok(!coversAltNames(have, { dnsNames: ['c'], ips: [] }));
  assert.ok(!coversAltNames(have, { dnsNames: [], ips: ['10.0.0.2'] }));
});
