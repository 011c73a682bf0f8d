/**
 * Cron schedules as upstream Kubernetes reads them (robfig/cron v3's standard parser): the apiserver's CronJob
 * validation asks for the error text, the cronjob-controller for the activation times. Times are ms since the
 * epoch; a schedule without a zone runs in UTC (kube-controller-manager's local zone in a typical deployment).
 */
import { type ParsedSchedule, parseStandard, ScheduleParseError } from './parse.js';
import { nextEvery, nextSpec } from './schedule.js';

export { parseGoDuration, ScheduleParseError } from './parse.js';
export { formatRFC3339, isKnownTimeZone, loadLocationError, ZERO_TIME } from './zone.js';

/** A parsed schedule (robfig's cron.Schedule). */
export interface CronSchedule {
  readonly parsed: ParsedSchedule;
  /** The first activation strictly after `from`; ZERO_TIME when there is none within five years. */
  next(from: number): number;
}

/** cron.ParseStandard: throws ScheduleParseError with robfig's text when the schedule does not parse. */
export function parseSchedule(spec: string): CronSchedule {
  const parsed = parseStandard(spec);
  return {
    parsed,
    next: (from) => (parsed.kind === 'every' ? nextEvery(parsed, from) : nextSpec(parsed, from)),
  };
}

/** robfig's error text for a schedule that does not parse, or undefined when it parses. */
export function scheduleError(spec: string): string | undefined {
  try {
    parseStandard(spec);
    return undefined;
  } catch (err) {
    if (err instanceof ScheduleParseError) return err.message;
    throw err;
  }
}
