import { test } from 'node:test';
import assert from '../../testing/assert.js';
import { apiServerServiceIP } from './service-ip.js';

test('the kubernetes Service IP is the first address of the service CIDR', () => {
  assert.equal(apiServerServiceIP(), '10.96.0.1');
  assert.equal(apiServerServiceIP('10.0.0.0/24'), '10.0.0.1');
  assert.equal(apiServerServiceIP('172.20.255.255/16'), '172.20.0.1', 'host bits are masked off first');
  assert.equal(apiServerServiceIP('fd00::/108'), 'fd00::1');
  assert.equal(apiServerServiceIP('FD00:0:0:0:0:0:1:0/112'), 'fd00::1:1');
  assert.equal(apiServerServiceIP('10.0.0.0/31'), '10.0.0.1');
});

test('with two ranges (dual stack) the first one is the primary', () => {
  assert.equal(apiServerServiceIP('10.100.0.0/16,fd00::/108'), '10.100.0.1');
  assert.equal(apiServerServiceIP('fd12:3456::/108, 10.100.0.0/16'), 'fd12:3456::1');
});

test('ranges that are not CIDRs, or leave no room, are refused', () => {
  for (const bad of ['10.96.0.0', '10.96.0.0/33', 'not-an-ip/12', '10.96.0.0/x', '10.96.0.1/32', '', 'fd00::/129']) {
    assert.throws(() => apiServerServiceIP(bad), Error, bad);
  }
});
