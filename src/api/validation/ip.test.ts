import { describe, it } from 'node:test';
import assert from '../../testing/assert.js';
import { path } from '../field-errors.js';
import {
  canonicalCIDR,
  formatIP,
  isIPv4,
  isValidCIDR,
  isValidCIDRForLegacyField,
  isValidIP,
  isValidIPForLegacyField,
  parseIP,
} from './ip.js';

const p = path('spec', 'clusterIP');
const details = (errs: { detail: string }[]) => errs.map((e) => e.detail);

describe('parseIP', () => {
  it('parses as Go does, sloppily unless strict, and prints as net.IP does', () => {
    const print = (text: string, strict = false) => {
      const ip = parseIP(text, strict);
      return ip && { text: formatIP(ip), v4: isIPv4(ip) };
    };
    assert.deepEqual(print('010.0.0.1'), { text: '10.0.0.1', v4: true });
    assert.equal(print('010.0.0.1', true), undefined);
    assert.deepEqual(print('FD00:0:0::0001'), { text: 'fd00::1', v4: false });
    assert.deepEqual(print('00001::'), { text: '1::', v4: false });
    assert.equal(print('00001::', true), undefined);
    assert.deepEqual(print('::ffff:10.1.2.3'), { text: '10.1.2.3', v4: true });
    assert.deepEqual(print('::ffff:a01:203'), { text: '10.1.2.3', v4: true });
    assert.deepEqual(print('::10.1.2.3'), { text: '::a01:203', v4: false });
    for (const bad of ['256.0.0.1', '1.2.3', 'host.example', 'fe80::1%eth0', '1::2::3', '[::1]', '']) {
      assert.equal(parseIP(bad), undefined, bad);
    }
  });
});

describe('canonicalCIDR', () => {
  it('clears host bits and prints as Go does, parsing sloppily', () => {
    assert.equal(canonicalCIDR('2001:db8:0:0:1:0:0:1/64'), '2001:db8::/64');
    assert.equal(canonicalCIDR('10.96.0.10/12'), '10.96.0.0/12');
    assert.equal(canonicalCIDR('010.96.0.10/012'), '10.96.0.0/12');
    assert.equal(canonicalCIDR('fd00:0:0:0:0:0:0:1/108'), 'fd00::/108');
    assert.equal(canonicalCIDR('10.0.0.0/33'), undefined);
    assert.equal(canonicalCIDR('10.0.0.0'), undefined);
  });
});

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
