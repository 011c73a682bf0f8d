import { describe, it } from 'node:test';
import assert from '../testing/assert.js';
import { formatGoTime, parseGoTime, reencodeGoTime } from './go-time.js';

const TIME = '"2006-01-02T15:04:05Z07:00"';
const MICRO = '"2006-01-02T15:04:05.000000Z07:00"';

describe('Go time: time.Parse and MarshalJSON of metav1.Time and MicroTime', () => {
  it('keeps a time already written as the type writes it, and rewrites others in UTC', () => {
    assert.deepEqual(reencodeGoTime('2024-01-02T03:04:05Z', 'time'), { value: '2024-01-02T03:04:05Z' });
    assert.deepEqual(reencodeGoTime('2024-01-02T03:04:05.999Z', 'time'), { value: '2024-01-02T03:04:05Z' });
    assert.deepEqual(reencodeGoTime('2024-01-02T03:04:05+02:00', 'time'), { value: '2024-01-02T01:04:05Z' });
    assert.deepEqual(reencodeGoTime('2024-03-01T00:30:00+01:00', 'time'), { value: '2024-02-29T23:30:00Z' });
    assert.deepEqual(reencodeGoTime('2024-01-02T03:04:05.123456Z', 'microtime'), {
      value: '2024-01-02T03:04:05.123456Z',
    });
    assert.deepEqual(reencodeGoTime('2024-01-02T03:04:05.000001-00:30', 'microtime'), {
      value: '2024-01-02T03:34:05.000001Z',
    });
  });

  it("takes what Go's parser takes beyond RFC 3339", () => {
    // A one-digit hour, a comma before the fraction, and offsets up to 24 hours or 60 minutes.
    assert.deepEqual(reencodeGoTime('2024-01-01T1:00:00Z', 'time'), { value: '2024-01-01T01:00:00Z' });
    assert.deepEqual(reencodeGoTime('2024-01-01T00:00:00,5+24:00', 'time'), { value: '2023-12-31T00:00:00Z' });
    assert.deepEqual(reencodeGoTime('2024-01-01T00:00:00-00:60', 'time'), { value: '2024-01-01T01:00:00Z' });
    // Years beyond four digits once in UTC are written whole, before year 0 with a sign.
    assert.deepEqual(reencodeGoTime('9999-12-31T23:59:59-01:00', 'time'), { value: '10000-01-01T00:59:59Z' });
    assert.deepEqual(reencodeGoTime('0000-01-01T00:00:00+01:00', 'time'), { value: '-0001-12-31T23:00:00Z' });
  });

  it("writes Go's zero time as null", () => {
    assert.deepEqual(reencodeGoTime('0001-01-01T00:00:00Z', 'time'), { value: null });
    assert.deepEqual(reencodeGoTime('0001-01-01T01:00:00+01:00', 'time'), { value: null });
    assert.deepEqual(reencodeGoTime('0001-01-01T00:00:00.000000Z', 'microtime'), { value: null });
    assert.equal(formatGoTime({ seconds: 0, nanos: 0 }, 'time'), '1970-01-01T00:00:00Z');
  });

  it("refuses with time.Parse's messages", () => {
    const error = (value: string, layout: 'time' | 'microtime' = 'time') => {
      const t = parseGoTime(value, layout);
      return 'error' in t ? t.error : 'parsed';
    };
    assert.equal(error('abc'), `parsing time "abc" as ${TIME}: cannot parse "abc" as "2006"`);
    assert.equal(error(''), `parsing time "" as ${TIME}: cannot parse "" as "2006"`);
    assert.equal(
      error('2024-01-01 10:00:00Z'),
      `parsing time "2024-01-01 10:00:00Z" as ${TIME}: cannot parse " 10:00:00Z" as "T"`,
    );
    assert.equal(
      error('2024-1-01T00:00:00Z'),
      `parsing time "2024-1-01T00:00:00Z" as ${TIME}: cannot parse "1-01T00:00:00Z" as "01"`,
    );
    assert.equal(
      error('2024-01-01T00:00:00'),
      `parsing time "2024-01-01T00:00:00" as ${TIME}: cannot parse "" as "Z07:00"`,
    );
    assert.equal(
      error('2024-01-01T00:00:00+0100'),
      `parsing time "2024-01-01T00:00:00+0100" as ${TIME}: cannot parse "+0100" as "Z07:00"`,
    );
    assert.equal(error('2024-13-01T00:00:00Z'), 'parsing time "2024-13-01T00:00:00Z": month out of range');
    assert.equal(error('2023-02-29T00:00:00Z'), 'parsing time "2023-02-29T00:00:00Z": day out of range');
    assert.equal(error('2024-01-01T24:00:00Z'), 'parsing time "2024-01-01T24:00:00Z": hour out of range');
    assert.equal(error('2024-01-01T00:60:00Z'), 'parsing time "2024-01-01T00:60:00Z": minute out of range');
    assert.equal(error('2024-01-01T00:00:60Z'), 'parsing time "2024-01-01T00:00:60Z": second out of range');
    assert.equal(
      error('2024-01-01T00:00:00+25:00'),
      'parsing time "2024-01-01T00:00:00+25:00": time zone offset hour out of range',
    );
    assert.equal(error('2024-01-01T00:00:00Zjunk'), 'parsing time "2024-01-01T00:00:00Zjunk": extra text: "junk"');
    // Text that is not ASCII is quoted byte by byte.
    assert.equal(
      error('2024-01-01T00:00:00é'),
      `parsing time "2024-01-01T00:00:00\\xc3\\xa9" as ${TIME}: cannot parse "\\xc3\\xa9" as "Z07:00"`,
    );
    // Positions count UTF-8 bytes, as Go's do: 'é' takes two of the offset's six.
    assert.equal(
      error('2024-01-01T00:00:00é25:00'),
      `parsing time "2024-01-01T00:00:00\\xc3\\xa925:00" as ${TIME}: cannot parse "\\xc3\\xa925:00" as "Z07:00"`,
    );
    // MicroTime's fraction is exactly six digits.
    assert.equal(
      error('2024-01-01T00:00:00Z', 'microtime'),
      `parsing time "2024-01-01T00:00:00Z" as ${MICRO}: cannot parse "Z" as ".000000"`,
    );
    assert.equal(
      error('2024-01-01T00:00:00.123Z', 'microtime'),
      `parsing time "2024-01-01T00:00:00.123Z" as ${MICRO}: cannot parse ".123Z" as ".000000"`,
    );
    assert.equal(
      error('2024-01-01T00:00:00.1234567Z', 'microtime'),
      `parsing time "2024-01-01T00:00:00.1234567Z" as ${MICRO}: cannot parse "7Z" as "Z07:00"`,
    );
  });

  it('reads the instant and its nanoseconds', () => {
    assert.deepEqual(parseGoTime('1970-01-01T00:00:01.5Z', 'time'), { seconds: 1, nanos: 500_000_000 });
    assert.deepEqual(parseGoTime('1969-12-31T23:59:59.000000001Z', 'time'), { seconds: -1, nanos: 1 });
    assert.deepEqual(parseGoTime('2000-03-01T00:00:00+01:00', 'time'), { seconds: 951865200, nanos: 0 });
  });
});
