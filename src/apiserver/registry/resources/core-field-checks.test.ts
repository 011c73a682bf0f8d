import { describe, it } from 'node:test';
import { path } from '../../../api/field-errors.js';
import assert from '../../../testing/assert.js';
import { validateNonSpecialIP } from './core-field-checks.js';

describe('validateNonSpecialIP', () => {
  const details = (ip: string) => validateNonSpecialIP(ip, path('ip')).map((e) => e.detail);

  it('accepts ordinary addresses', () => {
    for (const ip of ['10.0.0.1', '8.8.8.8', '2001:db8::1', 'fd00::1', '169.253.0.1', 'ff05::1']) {
      assert.deepEqual(details(ip), [], ip);
    }
  });

  it('refuses unspecified, loopback and link-local addresses as Go judges them', () => {
    const cases: Array<[string, string]> = [
      ['0.0.0.0', 'may not be unspecified (0.0.0.0)'],
      ['::', 'may not be unspecified (::)'],
      ['127.0.0.1', 'may not be in the loopback range (127.0.0.0/8, ::1/128)'],
      ['::1', 'may not be in the loopback range (127.0.0.0/8, ::1/128)'],
      ['::ffff:127.0.0.1', 'may not be in the loopback range (127.0.0.0/8, ::1/128)'],
      ['169.254.169.254', 'may not be in the link-local range (169.254.0.0/16, fe80::/10)'],
      ['fe80::1', 'may not be in the link-local range (169.254.0.0/16, fe80::/10)'],
      ['febf::1', 'may not be in the link-local range (169.254.0.0/16, fe80::/10)'],
      ['224.0.0.251', 'may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)'],
      ['ff02::fb', 'may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)'],
      ['ff12::1', 'may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)'],
      ['example.com', 'must be a valid IP address'],
    ];
    for (const [ip, want] of cases) assert.deepEqual(details(ip), [want], ip);
  });
});
