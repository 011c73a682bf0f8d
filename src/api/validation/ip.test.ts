import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { path } from '../field-errors.js';
import { isValidCIDR, isValidCIDRForLegacyField, isValidIP, isValidIPForLegacyField } from './ip.js';

const p = path('spec', 'clusterIP');
const details = (errs: { detail: string }[]) => errs.map((e) => e.detail);

describe('isValidIP', () => {
  it('accepts canonical IPv4 and IPv6', () => {
    for (const ip of ['10.0.0.1', '0.0.0.0', '::', '::1', '2001:db8::1', '1:2:3:4:5:6:7:8', '2001:db8::1:0:0:1']) {
      assert.deepEqual(isValidIP(p, ip), [], ip);
    }
  });

  it('refuses with upstream messages', () => {
    assert.deepEqual(details(isValidIP(p, 'x')), ['must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)']);
    assert.deepEqual(details(isValidIP(p, '1.2.3')), ['must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)']);
    assert.deepEqual(details(isValidIP(p, '010.0.0.1')), ['must not have leading 0s']);
    assert.deepEqual(details(isValidIP(p, '::ffff:1.2.3.4')), ['must not be an IPv4-mapped IPv6 address']);
    assert.deepEqual(details(isValidIP(p, '2001:DB8::1')), ['must be in canonical form ("2001:db8::1")']);
    assert.deepEqual(details(isValidIP(p, '2001:db8:0:0:0:0:0:1')), ['must be in canonical form ("2001:db8::1")']);
    assert.deepEqual(details(isValidIP(p, '2001:db8::0:1')), ['must be in canonical form ("2001:db8::1")']);
    assert.deepEqual(isValidIP(p, '1:0:2::3'), []);
    assert.deepEqual(details(isValidIP(p, '1:0:0:2:0:0:0:3')), ['must be in canonical form ("1:0:0:2::3")']);
  });

  it('is lenient on legacy fields unless strict', () => {
    assert.deepEqual(isValidIPForLegacyField(p, '010.0.0.1', false), []);
    assert.deepEqual(isValidIPForLegacyField(p, '2001:DB8::1', true), []);
    assert.deepEqual(details(isValidIPForLegacyField(p, '010.0.0.1', true)), ['must not have leading 0s']);
    assert.deepEqual(isValidIPForLegacyField(p, 'junk', true, ['junk']), []);
  });
});

describe('isValidCIDR', () => {
  it('accepts canonical subnets', () => {
    for (const c of ['10.0.0.0/8', '0.0.0.0/0', '2001:db8::/64', '::/0', '10.1.2.3/32'])
      assert.deepEqual(isValidCIDR(p, c), [], c);
  });

  it('refuses with upstream messages', () => {
    const invalidCIDR = 'must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)';
    assert.deepEqual(details(isValidCIDR(p, '10.0.0.0')), [invalidCIDR]);
    assert.deepEqual(details(isValidCIDR(p, '10.0.0.0/33')), [invalidCIDR]);
    assert.deepEqual(details(isValidCIDR(p, '10.0.0.0/08')), ['must not have leading 0s in IP or prefix length']);
    assert.deepEqual(details(isValidCIDR(p, '::ffff:10.0.0.0/104')), ['must not have an IPv4-mapped IPv6 address']);
    assert.deepEqual(details(isValidCIDR(p, '10.0.0.1/8')), ['must not have bits set beyond the prefix length']);
    assert.deepEqual(details(isValidCIDR(p, '2001:DB8::/64')), ['must be in canonical form ("2001:db8::/64")']);
  });

  it('is lenient on legacy fields unless strict', () => {
    assert.deepEqual(isValidCIDRForLegacyField(p, '10.0.0.1/8', false), []);
    assert.deepEqual(details(isValidCIDRForLegacyField(p, '10.0.0.1/8', true)), [
      'must not have bits set beyond the prefix length',
    ]);
  });
});
