/**
 * Which scheduled time a CronJob should run now, and when to look at it next (upstream's
 * mostRecentScheduleTime, nextScheduleTime and nextScheduleTimeDuration). The count of missed times is upstream's
 * estimate (elapsed time over the gap between two activations), so a schedule stuck for decades costs nothing;
 * only the most recent missed time is run. Times are ms since the epoch.
 */
import type { CronSchedule } from '../../api/cron/index.js';
import type { KubeObject } from '../../client/types.js';

/** Upstream's nextScheduleDelta: requeues land this much after the activation, against clock skew. */
export const NEXT_SCHEDULE_DELTA_MS = 100;

/** More missed start times than this raise TooManyMissedTimes. */
export const TOO_MANY_MISSED = 100;

export type MissedSchedules = 'none' | 'few' | 'many';

export interface MostRecent {
  /** The last schedule time, or the creation time, possibly moved up to now minus startingDeadlineSeconds. */
  earliest: number;
  /** The latest activation at or before now, if any. */
  mostRecent: number | undefined;
  missed: MissedSchedules;
  /** Set when the schedule cannot run (two activations less than a second apart, e.g. `0 0 31 2 *`). */
  error?: string;
}

type Rec = Record<string, unknown>;
const rec = (v: unknown): Rec => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Rec) : {});

function parseTime(value: unknown): number | undefined {
  if (typeof value !== 'string' || value === '') return undefined;
  const t = Date.parse(value);
  return Number.isNaN(t) ? undefined : t;
}

export function startingDeadlineSeconds(cj: KubeObject): number | undefined {
  const v = rec(cj.spec).startingDeadlineSeconds;
  return typeof v === 'number' ? v : undefined;
}

export function lastScheduleTime(cj: KubeObject): number | undefined {
  return parseTime(rec(cj.status).lastScheduleTime);
}

export function mostRecentScheduleTime(
  cj: KubeObject,
  now: number,
  schedule: CronSchedule,
  includeStartingDeadlineSeconds: boolean,
): MostRecent {
  let earliest = lastScheduleTime(cj) ?? parseTime(cj.metadata.creationTimestamp) ?? now;
  const deadline = startingDeadlineSeconds(cj);
  if (includeStartingDeadlineSeconds && deadline !== undefined) {
    const schedulingDeadline = now - deadline * 1000;
    if (schedulingDeadline > earliest) earliest = schedulingDeadline;
  }
  const t1 = schedule.next(earliest);
  const t2 = schedule.next(t1);
  if (now < t1) return { earliest, mostRecent: undefined, missed: 'none' };
  if (now < t2) return { earliest, mostRecent: t1, missed: 'none' };

  const between = Math.round((t2 - t1) / 1000);
  if (between < 1) {
    return {
      earliest,
      mostRecent: undefined,
      missed: 'none',
      error: 'time difference between two schedules is less than 1 second',
    };
  }
  const elapsed = Math.trunc((now - t1) / 1000);
  const missedCount = Math.trunc(elapsed / between) + 1;
  // Start one interval before the estimate and let the schedule find the real activations up to now.
  const potentialEarliest = t1 + (missedCount - 2) * between * 1000;
  let mostRecent: number | undefined;
  for (let t = schedule.next(potentialEarliest); t <= now; t = schedule.next(t)) mostRecent = t;
  const missed: MissedSchedules = missedCount > TOO_MANY_MISSED ? 'many' : missedCount > 0 ? 'few' : 'none';
  return { earliest, mostRecent, missed };
}

/** How long until the key should be synced again: the next activation after the most recent one, plus the delta. */
export function nextScheduleTimeDuration(cj: KubeObject, now: number, schedule: CronSchedule): number {
  const r = mostRecentScheduleTime(cj, now, schedule, false);
  let from: number;
  if (r.error !== undefined) from = now;
  else if (r.mostRecent !== undefined) from = r.mostRecent;
  else from = r.missed === 'none' ? r.earliest : now;
  return schedule.next(from) + NEXT_SCHEDULE_DELTA_MS - now;
}

/** Go's time.RFC1123Z in UTC: `Mon, 02 Jan 2006 15:04:05 +0000`. */
export function formatRFC1123Z(ms: number): string {
  const d = new Date(ms);
  const [weekday, day, month, year, time] = d.toUTCString().replace(',', '').split(' ');
  return `${weekday}, ${day} ${month} ${year} ${time} +0000`;
}
