/**
 * The next activation of a parsed schedule, as robfig/cron v3 computes it (SpecSchedule.Next and
 * ConstantDelaySchedule.Next). Its walk matters, not only its matches: it steps months and days on the wall
 * clock of the schedule's zone but hours, minutes and seconds in absolute time, so on a spring-forward day a time
 * inside the skipped hour does not fire at all, and on a fall-back day a time inside the repeated hour fires twice.
 * A day matches when both day of month and day of week match, unless neither was written as `*`/`?`: then either
 * one matching is enough. No activation within five years answers ZERO_TIME, as robfig answers Go's zero time.
 */
import type { ConstantDelay, Field, SpecFields } from './parse.js';
import { dateIn, type LocalFields, localFields, ZERO_TIME } from './zone.js';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

const has = (f: Field, v: number) => f.values.has(v);

function dayMatches(s: SpecFields, t: LocalFields): boolean {
  const domMatch = has(s.dom, t.day);
  const dowMatch = has(s.dow, t.weekday);
  if (s.dom.star || s.dow.star) return domMatch && dowMatch;
  return domMatch || dowMatch;
}

/** SpecSchedule.Next: the first activation strictly after `from` (ms since the epoch). */
export function nextSpec(s: SpecFields, from: number): number {
  const zone = s.location;
  const fields = (ms: number) => localFields(zone, ms);
  // Start at the next whole second.
  let t = Math.floor(from / SECOND) * SECOND + SECOND;
  let added = false;
  const yearLimit = fields(t).year + 5;

  wrap: for (;;) {
    let f = fields(t);
    if (f.year > yearLimit) return ZERO_TIME;

    while (!has(s.month, f.month)) {
      if (!added) {
        added = true;
        t = dateIn(zone, f.year, f.month, 1, 0, 0, 0);
        f = fields(t);
      }
      t = dateIn(zone, f.year, f.month + 1, f.day, f.hour, f.minute, f.second);
      f = fields(t);
      if (f.month === 1) continue wrap;
    }

    while (!dayMatches(s, f)) {
      if (!added) {
        added = true;
        t = dateIn(zone, f.year, f.month, f.day, 0, 0, 0);
        f = fields(t);
      }
      t = dateIn(zone, f.year, f.month, f.day + 1, f.hour, f.minute, f.second);
      f = fields(t);
      // Where DST moved midnight, pull back to the start of the day (or on to the next one).
      if (f.hour !== 0) {
        t += f.hour > 12 ? (24 - f.hour) * HOUR : -f.hour * HOUR;
        f = fields(t);
      }
      if (f.day === 1) continue wrap;
    }

    while (!has(s.hour, f.hour)) {
      if (!added) {
        added = true;
        t = dateIn(zone, f.year, f.month, f.day, f.hour, 0, 0);
      }
      t += HOUR;
      f = fields(t);
      if (f.hour === 0) continue wrap;
    }

    while (!has(s.minute, f.minute)) {
      if (!added) {
        added = true;
        t = Math.floor(t / MINUTE) * MINUTE;
      }
      t += MINUTE;
      f = fields(t);
      if (f.minute === 0) continue wrap;
    }

    while (!has(s.second, f.second)) {
      if (!added) {
        added = true;
        t = Math.floor(t / SECOND) * SECOND;
      }
      t += SECOND;
      f = fields(t);
      if (f.second === 0) continue wrap;
    }
    return t;
  }
}

/** ConstantDelaySchedule.Next: `from` plus the delay, dropping from's fraction of a second. */
export function nextEvery(s: ConstantDelay, from: number): number {
  return Math.floor(from / SECOND) * SECOND + s.delayMs;
}
