import { describe, it } from 'node:test';
import { parseSchedule } from '../../api/cron/index.js';
import type { KubeObject } from '../../client/types.js';
import assert from '../../testing/assert.js';
import { formatRFC1123Z, mostRecentScheduleTime, nextScheduleTimeDuration } from './schedule-times.js';

const T = (s: string) => Date.parse(s);

function cronJob(schedule: string, created: string, last?: string, deadline?: number): KubeObject {
  return {
    metadata: { name: 'cj', namespace: 'ns', creationTimestamp: created },
    spec: { schedule, ...(deadline !== undefined ? { startingDeadlineSeconds: deadline } : {}) },
    status: last ? { lastScheduleTime: last } : {},
  };
}

describe('cronjob schedule times', () => {
  it('finds the most recent unmet time and counts the missed ones as upstream estimates', () => {
    const hourly = parseSchedule('0 * * * *');
    const cj = cronJob('0 * * * *', '2016-05-19T09:30:00Z');
    assert.deepEqual(mostRecentScheduleTime(cj, T('2016-05-19T09:59:00Z'), hourly, true), {
      earliest: T('2016-05-19T09:30:00Z'),
      mostRecent: undefined,
      missed: 'none',
    });
    assert.equal(
      mostRecentScheduleTime(cj, T('2016-05-19T10:00:30Z'), hourly, true).mostRecent,
      T('2016-05-19T10:00:00Z'),
    );
    const few = mostRecentScheduleTime(cj, T('2016-05-19T13:30:00Z'), hourly, true);
    assert.equal(few.mostRecent, T('2016-05-19T13:00:00Z'));
    assert.equal(few.missed, 'few');
    const many = mostRecentScheduleTime(cj, T('2016-06-30T13:30:00Z'), hourly, true);
    assert.equal(many.mostRecent, T('2016-06-30T13:00:00Z'));
    assert.equal(many.missed, 'many');
    // A starting deadline moves the earliest time up to now minus the deadline.
    const late = cronJob('0 * * * *', '2016-05-19T09:30:00Z', undefined, 600);
    assert.equal(mostRecentScheduleTime(late, T('2016-06-30T13:30:00Z'), hourly, true).mostRecent, undefined);
    assert.equal(
      mostRecentScheduleTime(late, T('2016-06-30T13:05:00Z'), hourly, true).mostRecent,
      T('2016-06-30T13:00:00Z'),
    );
  });

  it('handles @every and schedules that never run', () => {
    const every = parseSchedule('@every 1h');
    const cj = cronJob('@every 1h', '2016-05-19T09:30:00Z', '2016-05-19T10:30:00Z');
    assert.equal(
      mostRecentScheduleTime(cj, T('2016-05-19T14:45:00Z'), every, true).mostRecent,
      T('2016-05-19T14:30:00Z'),
    );
    const feb31 = parseSchedule('59 23 31 2 *');
    assert.equal(
      mostRecentScheduleTime(cronJob('59 23 31 2 *', '2016-05-19T09:30:00Z'), T('2016-05-19T10:00:00Z'), feb31, true)
        .error,
      'time difference between two schedules is less than 1 second',
    );
  });

  it('requeues 100 ms after the next scheduled time', () => {
    const cj = cronJob('*/5 * * * *', '2016-05-19T09:30:00Z', '2016-05-19T09:55:00Z');
    assert.equal(
      nextScheduleTimeDuration(cj, T('2016-05-19T09:56:00Z'), parseSchedule('*/5 * * * *')),
      4 * 60_000 + 100,
    );
  });

  it('writes Go RFC1123Z times', () => {
    assert.equal(formatRFC1123Z(T('2024-03-05T07:08:09Z')), 'Tue, 05 Mar 2024 07:08:09 +0000');
  });
});
