import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isKnownTimeZone, scheduleError } from './batch-cron-schedule.js';

describe('cron schedules', () => {
  it('accepts standard schedules and descriptors', () => {
    for (const s of [
      '*/5 * * * *',
      '0 0 1 jan,JUL mon-fri',
      '15 3 * * 0',
      '@hourly',
      '@every 1h30m',
      '0 0 L * *'.replace('L', '1'),
    ]) {
      assert.equal(scheduleError(s), undefined, s);
    }
  });

  it('reports what robfig/cron reports', () => {
    assert.equal(scheduleError('* * * *'), 'expected exactly 5 fields, found 4: [* * * *]');
    assert.equal(scheduleError('61 * * * *'), 'end of range (61) above maximum (59): 61');
    assert.equal(scheduleError('* * 0 * *'), 'beginning of range (0) below minimum (1): 0');
    assert.equal(scheduleError('5-2 * * * *'), 'beginning of range (5) beyond end of range (2): 5-2');
    assert.equal(scheduleError('*/0 * * * *'), 'step of range should be a positive number: */0');
    assert.equal(scheduleError('x * * * *'), 'failed to parse int from x: strconv.Atoi: parsing "x": invalid syntax');
    assert.equal(scheduleError('1-2-3 * * * *'), 'too many hyphens: 1-2-3');
    assert.equal(scheduleError('@fortnightly'), 'unrecognized descriptor: @fortnightly');
    assert.equal(scheduleError('@every soon'), 'failed to parse duration @every soon: time: invalid duration "soon"');
    assert.equal(scheduleError(''), 'empty spec string');
  });

  it('knows time zones as Go does', () => {
    assert.ok(isKnownTimeZone('Europe/Paris'));
    assert.ok(isKnownTimeZone('UTC'));
    assert.ok(!isKnownTimeZone('Mars/Olympus'));
    assert.ok(!isKnownTimeZone('Local'));
  });
});
