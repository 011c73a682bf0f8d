import { describe, it } from 'node:test';
import assert from '../../testing/assert.js';
import { formatRFC3339, isKnownTimeZone, parseSchedule, scheduleError, ZERO_TIME } from './index.js';

/** "2012-07-09 23:35" read in UTC, or an RFC 3339 time with its offset. */
function at(text: string): number {
  const plain = /^(\d{4}-\d\d-\d\d) (\d\d:\d\d)$/.exec(text);
  const ms = Date.parse(plain ? `${plain[1]}T${plain[2]}:00Z` : text);
  assert.ok(!Number.isNaN(ms), `bad time ${text}`);
  return ms;
}

function next(spec: string, from: string): string {
  const t = parseSchedule(spec).next(at(from));
  return t === ZERO_TIME ? '' : new Date(t).toISOString();
}

const iso = (text: string) => (text === '' ? '' : new Date(at(text)).toISOString());

describe('cron schedules (robfig/cron v3 standard parser)', () => {
  it('finds the next activation as robfig does (its TestNext cases, five fields)', () => {
    const cases: [string, string, string][] = [
      ['2012-07-09 14:45', '0/15 * * * *', '2012-07-09 15:00'],
      ['2012-07-09 14:59', '0/15 * * * *', '2012-07-09 15:00'],
      ['2012-07-09T14:59:59Z', '0/15 * * * *', '2012-07-09 15:00'],
      ['2012-07-09 15:45', '20-35/15 * * * *', '2012-07-09 16:20'],
      ['2012-07-09 23:46', '*/15 * * * *', '2012-07-10 00:00'],
      ['2012-07-09 23:45', '20-35/15 * * * *', '2012-07-10 00:20'],
      ['2012-07-09 23:35', '0 0 9 Apr-Oct ?', '2012-08-09 00:00'],
      ['2012-07-09 23:35', '0 0 */5 Apr,Aug,Oct Mon', '2012-08-01 00:00'],
      ['2012-07-09 23:35', '0 0 */5 Oct Mon', '2012-10-01 00:00'],
      ['2012-07-09 23:35', '0 0 * Feb Mon', '2013-02-04 00:00'],
      ['2012-07-09 23:35', '0 0 * Feb Mon/2', '2013-02-01 00:00'],
      ['2012-12-31T23:59:45Z', '* * * * *', '2013-01-01 00:00'],
      ['2012-07-09 23:35', '0 0 29 Feb ?', '2016-02-29 00:00'],
      ['2012-07-09 23:35', '0 0 30 Feb ?', ''],
      ['2012-07-09 23:35', '0 0 31 Apr ?', ''],
    ];
    for (const [from, spec, want] of cases) assert.equal(next(spec, from), iso(want), `${spec} after ${from}`);
  });

  it('walks DST changes as robfig does: a skipped hour does not fire, a repeated hour fires twice', () => {
    const ny = 'TZ=America/New_York';
    const cases: [string, string, string][] = [
      ['2012-03-11T00:00:00-05:00', `${ny} 30 2 11 Mar ?`, '2013-03-11T02:30:00-04:00'],
      ['2012-03-11T00:00:00-05:00', `${ny} 0 * * * ?`, '2012-03-11T01:00:00-05:00'],
      ['2012-03-11T01:00:00-05:00', `${ny} 0 * * * ?`, '2012-03-11T03:00:00-04:00'],
      ['2012-03-11T03:00:00-04:00', `CRON_TZ=America/New_York 0 * * * ?`, '2012-03-11T04:00:00-04:00'],
      ['2012-03-11T00:00:00-05:00', `${ny} 0 1 * * ?`, '2012-03-11T01:00:00-05:00'],
      ['2012-03-11T01:00:00-05:00', `${ny} 0 1 * * ?`, '2012-03-12T01:00:00-04:00'],
      ['2012-03-11T00:00:00-05:00', `${ny} 0 2 * * ?`, '2012-03-12T02:00:00-04:00'],
      ['2012-11-04T00:00:00-04:00', `${ny} 30 2 04 Nov ?`, '2012-11-04T02:30:00-05:00'],
      ['2012-11-04T01:45:00-04:00', `${ny} 30 1 04 Nov ?`, '2012-11-04T01:30:00-05:00'],
      ['2012-11-04T00:00:00-04:00', `${ny} 0 * * * ?`, '2012-11-04T01:00:00-04:00'],
      ['2012-11-04T01:00:00-04:00', `${ny} 0 * * * ?`, '2012-11-04T01:00:00-05:00'],
      ['2012-11-04T01:00:00-05:00', `${ny} 0 * * * ?`, '2012-11-04T02:00:00-05:00'],
      ['2012-11-04T00:00:00-04:00', `${ny} 0 1 * * ?`, '2012-11-04T01:00:00-04:00'],
      ['2012-11-04T01:00:00-04:00', `${ny} 0 1 * * ?`, '2012-11-04T01:00:00-05:00'],
      ['2012-11-04T01:00:00-05:00', `${ny} 0 1 * * ?`, '2012-11-05T01:00:00-05:00'],
      ['2012-11-04T00:00:00-04:00', `${ny} 0 2 * * ?`, '2012-11-04T02:00:00-05:00'],
      ['2012-11-04T02:00:00-05:00', `${ny} 0 2 * * ?`, '2012-11-05T02:00:00-05:00'],
      ['2012-11-04T00:00:00-04:00', `${ny} 0 3 * * ?`, '2012-11-04T03:00:00-05:00'],
      ['2012-11-04T00:00:00-04:00', `${ny} 0 3 3 * ?`, '2012-12-03T03:00:00-05:00'],
      // Midnight that DST skips (robfig issue 157).
      ['2018-10-17T05:00:00-04:00', 'TZ=America/Sao_Paulo 0 9 10 * ?', '2018-11-10T06:00:00-05:00'],
      ['2018-02-14T05:00:00-05:00', 'TZ=America/Sao_Paulo 0 9 22 * ?', '2018-02-22T07:00:00-05:00'],
    ];
    for (const [from, spec, want] of cases) assert.equal(next(spec, from), iso(want), `${spec} after ${from}`);
  });

  it('matches days by day of month OR day of week unless one is written with * or ?', () => {
    const fires = (spec: string, time: string) => parseSchedule(spec).next(at(time) - 1000) === at(time);
    // Both restricted: either one is enough.
    assert.ok(fires('* * 1,15 * Sun', '2012-07-15 00:00'));
    assert.ok(fires('* * 1,15 * Sun', '2012-06-15 00:00'));
    assert.ok(fires('* * 1,15 * Sun', '2012-08-01 00:00'));
    assert.ok(fires('* * */2 * Sun', '2012-07-15 00:00'));
    assert.ok(fires('* * */10 * Sun', '2012-07-15 00:00'), 'a step over 1 makes */10 a restriction');
    assert.ok(fires('* * 1-31 * Mon', '2012-07-17 00:00'), 'a full range is still a restriction');
    // One of them starred: both must match.
    assert.ok(!fires('* * * * Mon', '2012-07-15 00:00'));
    assert.ok(!fires('* * 1,15 * *', '2012-07-09 00:00'));
    assert.ok(fires('* * 1,15 * *', '2012-07-15 00:00'));
    assert.ok(!fires('* * */1 * Mon', '2012-07-17 00:00'), '*/1 keeps the star');
    // Activation checks from robfig's TestActivation.
    assert.ok(fires('0/15 * * * *', '2012-07-09 15:45'));
    assert.ok(!fires('0/15 * * * *', '2012-07-09 15:40'));
    assert.ok(fires('5/15 * * * *', '2012-07-09 15:50'));
    assert.ok(fires('0/15 * * Jul *', '2012-07-15 15:00'));
    assert.ok(!fires('0/15 * * Jun *', '2012-07-15 15:00'));
    assert.ok(fires('30 08 ? Jul Sun', '2012-07-15 08:30'));
    assert.ok(!fires('30 08 15 Jul ?', '2012-07-16 08:30'));
    assert.ok(fires('0 0 1 jan,JUL mon-FRI', '2012-07-02 00:00'), 'names in any case');
  });

  it('knows the descriptors and @every', () => {
    const cases: [string, string, string][] = [
      ['2012-07-09 15:04', '@hourly', '2012-07-09 16:00'],
      ['2012-07-09 15:00', '@daily', '2012-07-10 00:00'],
      ['2012-07-09 15:00', '@midnight', '2012-07-10 00:00'],
      ['2012-07-09 00:00', '@weekly', '2012-07-15 00:00'],
      ['2012-07-08 00:00', '@monthly', '2012-08-01 00:00'],
      ['2012-07-08 00:00', '@yearly', '2013-01-01 00:00'],
      ['2012-07-08 00:00', '@annually', '2013-01-01 00:00'],
      ['2012-07-08T00:00:00.700Z', '@every 1h30m', '2012-07-08 01:30'],
      ['2012-07-08 00:00', '@every 90s', '2012-07-08T00:01:30Z'],
      ['2012-07-08 00:00', '@every 100ms', '2012-07-08T00:00:01Z'],
      ['2012-07-08 00:00', '@every 2.5s', '2012-07-08T00:00:02Z'],
      ['2012-07-08 00:00', 'TZ=Asia/Tokyo @daily', '2012-07-08T15:00:00Z'],
    ];
    for (const [from, spec, want] of cases) assert.equal(next(spec, from), iso(want), `${spec} after ${from}`);
  });

  it('reports what robfig/cron reports', () => {
    const cases: [string, string][] = [
      ['', 'empty spec string'],
      ['* * * *', 'expected exactly 5 fields, found 4: [* * * *]'],
      ['0 0 * * * *', 'expected exactly 5 fields, found 6: [0 0 * * * *]'],
      ['60 0 * * *', 'end of range (60) above maximum (59): 60'],
      ['0 24 * * *', 'end of range (24) above maximum (23): 24'],
      ['* * 0 * *', 'beginning of range (0) below minimum (1): 0'],
      ['* * * * 7', 'end of range (7) above maximum (6): 7'],
      ['5-2 * * * *', 'beginning of range (5) beyond end of range (2): 5-2'],
      ['*/0 * * * *', 'step of range should be a positive number: */0'],
      ['1/2/3 * * * *', 'too many slashes: 1/2/3'],
      ['1-2-3 * * * *', 'too many hyphens: 1-2-3'],
      ['0 0 * * XYZ', 'failed to parse int from XYZ: strconv.Atoi: parsing "XYZ": invalid syntax'],
      ['-1 * * * *', 'failed to parse int from : strconv.Atoi: parsing "": invalid syntax'],
      [
        '99999999999999999999 * * * *',
        'failed to parse int from 99999999999999999999: strconv.Atoi: parsing "99999999999999999999": value out of range',
      ],
      ['@fortnightly', 'unrecognized descriptor: @fortnightly'],
      ['@every soon', 'failed to parse duration @every soon: time: invalid duration "soon"'],
      ['@every 5', 'failed to parse duration @every 5: time: missing unit in duration "5"'],
      ['@every 5d', 'failed to parse duration @every 5d: time: unknown unit "d" in duration "5d"'],
      ['TZ=Mars/Olympus * * * * *', 'provided bad location Mars/Olympus: unknown time zone Mars/Olympus'],
      ['TZ=UTC 15/0 * * * *', 'step of range should be a positive number: 15/0'],
    ];
    for (const [spec, want] of cases) assert.equal(scheduleError(spec), want, spec);
    for (const ok of ['*/5 * * * *', '0 0 1 jan,JUL mon-fri', '? ? ? ? ?', '@every 1h30m', 'CRON_TZ=UTC 0 * * * *']) {
      assert.equal(scheduleError(ok), undefined, ok);
    }
  });

  it('knows time zones as Go does and writes RFC 3339 in them', () => {
    for (const zone of ['Europe/Paris', 'UTC', '', 'America/New_York', 'Etc/GMT+5', 'US/Eastern']) {
      assert.ok(isKnownTimeZone(zone), zone);
    }
    for (const zone of ['Mars/Olympus', 'Local', 'europe/paris', 'Europe/Paris/'])
      assert.ok(!isKnownTimeZone(zone), zone);
    const t = Date.parse('2012-11-04T06:30:00Z');
    assert.equal(formatRFC3339('America/New_York', t), '2012-11-04T01:30:00-05:00');
    assert.equal(formatRFC3339('America/New_York', t - 3_600_000), '2012-11-04T01:30:00-04:00');
    assert.equal(formatRFC3339('Asia/Kolkata', t), '2012-11-04T12:00:00+05:30');
    assert.equal(formatRFC3339('UTC', t), '2012-11-04T06:30:00Z');
  });
});
