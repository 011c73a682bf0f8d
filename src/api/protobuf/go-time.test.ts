import { describe, it } from 'node:test';
import assert from '../../testing/assert.js';
import { formatGoDuration, formatRFC3339, GO_ZERO_TIME_UNIX_SECONDS } from './go-time.js';

describe('formatRFC3339', () => {
  it('writes UTC instants with second precision', () => {
    assert.equal(formatRFC3339(0n, 0, 0), '1970-01-01T00:00:00Z');
    assert.equal(formatRFC3339(1700000000n, 999_999_999, 0), '2023-11-14T22:13:20Z');
    assert.equal(formatRFC3339(951782400n, 0, 0), '2000-02-29T00:00:00Z');
    assert.equal(formatRFC3339(-1n, 0, 0), '1969-12-31T23:59:59Z');
  });

  it('writes exactly six fraction digits for microsecond precision', () => {
    assert.equal(formatRFC3339(1700000000n, 0, 6), '2023-11-14T22:13:20.000000Z');
    assert.equal(formatRFC3339(1700000000n, 123_456_000, 6), '2023-11-14T22:13:20.123456Z');
    assert.equal(formatRFC3339(1700000000n, 5_000, 6), '2023-11-14T22:13:20.000005Z');
  });

  it('writes years outside 1–9999 as Go does', () => {
    assert.equal(formatRFC3339(GO_ZERO_TIME_UNIX_SECONDS, 0, 0), '0001-01-01T00:00:00Z');
    assert.equal(formatRFC3339(253402300800n, 0, 0), '10000-01-01T00:00:00Z');
    assert.equal(formatRFC3339(GO_ZERO_TIME_UNIX_SECONDS - 367n * 86400n, 0, 0), '-0001-12-31T00:00:00Z');
  });
});

describe('formatGoDuration', () => {
  it('writes Go time.Duration String forms', () => {
    const cases: [bigint, string][] = [
      [0n, '0s'],
      [1n, '1ns'],
      [999n, '999ns'],
      [1_500n, '1.5µs'],
      [1_000_000n, '1ms'],
      [300_000_000n, '300ms'],
      [1_000_000_000n, '1s'],
      [1_500_000_000n, '1.5s'],
      [60_000_000_000n, '1m0s'],
      [3_600_000_000_000n, '1h0m0s'],
      [5_430_000_000_000n, '1h30m30s'],
      [-1_500_000_000n, '-1.5s'],
      [90_000_000_001n, '1m30.000000001s'],
      [-(2n ** 63n), '-2562047h47m16.854775808s'],
    ];
    for (const [nanos, text] of cases) assert.equal(formatGoDuration(nanos), text, String(nanos));
  });
});
