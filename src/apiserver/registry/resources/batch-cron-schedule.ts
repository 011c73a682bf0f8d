/**
 * Checks a CronJob schedule the way upstream does (robfig/cron v3's ParseStandard): five fields (minute, hour,
 * day of month, month, day of week) or a descriptor such as `@hourly` or `@every 1h30m`, with the same error
 * texts. It only validates; computing the next run is the CronJob controller's business.
 */
import { goQuote } from '../../../api/validation/go-format.js';

interface Bounds {
  min: number;
  max: number;
  names?: Record<string, number>;
}

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const DAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];

const FIELDS: Bounds[] = [
  { min: 0, max: 59 },
  { min: 0, max: 23 },
  { min: 1, max: 31 },
  { min: 1, max: 12, names: Object.fromEntries(MONTHS.map((m, i) => [m, i + 1])) },
  { min: 0, max: 6, names: Object.fromEntries(DAYS.map((d, i) => [d, i])) },
];

const DESCRIPTORS = ['@yearly', '@annually', '@monthly', '@weekly', '@daily', '@midnight', '@hourly'];

class ScheduleError extends Error {}

/** Go's strconv.Atoi, with its error text. */
function atoi(expr: string): number {
  if (!/^[+-]?[0-9]+$/.test(expr)) throw new ScheduleError(`strconv.Atoi: parsing ${goQuote(expr)}: invalid syntax`);
  const n = Number(expr);
  if (!Number.isSafeInteger(n) || Math.abs(n) > 2 ** 63 - 1) {
    throw new ScheduleError(`strconv.Atoi: parsing ${goQuote(expr)}: value out of range`);
  }
  return n;
}

function parseNumber(expr: string): number {
  let n: number;
  try {
    n = atoi(expr);
  } catch (err) {
    throw new ScheduleError(`failed to parse int from ${expr}: ${(err as Error).message}`);
  }
  if (n < 0) throw new ScheduleError(`negative number (${n}) not allowed: ${expr}`);
  return n;
}

function parseIntOrName(expr: string, names: Record<string, number> | undefined): number {
  const named = names?.[expr.toLowerCase()];
  return named ?? parseNumber(expr);
}

function checkRange(expr: string, r: Bounds): void {
  const rangeAndStep = expr.split('/');
  const lowAndHigh = (rangeAndStep[0] ?? '').split('-');
  let start: number;
  let end: number;
  if (lowAndHigh[0] === '*' || lowAndHigh[0] === '?') {
    start = r.min;
    end = r.max;
  } else {
    start = parseIntOrName(lowAndHigh[0] ?? '', r.names);
    if (lowAndHigh.length === 1) end = start;
    else if (lowAndHigh.length === 2) end = parseIntOrName(lowAndHigh[1] ?? '', r.names);
    else throw new ScheduleError(`too many hyphens: ${expr}`);
  }
  let step = 1;
  if (rangeAndStep.length === 2) {
    step = parseNumber(rangeAndStep[1] ?? '');
    if (lowAndHigh.length === 1) end = r.max;
  } else if (rangeAndStep.length > 2) {
    throw new ScheduleError(`too many slashes: ${expr}`);
  }
  if (start < r.min) throw new ScheduleError(`beginning of range (${start}) below minimum (${r.min}): ${expr}`);
  if (end > r.max) throw new ScheduleError(`end of range (${end}) above maximum (${r.max}): ${expr}`);
  if (start > end) throw new ScheduleError(`beginning of range (${start}) beyond end of range (${end}): ${expr}`);
  if (step === 0) throw new ScheduleError(`step of range should be a positive number: ${expr}`);
}

const UNITS = ['ns', 'us', 'µs', 'μs', 'ms', 's', 'm', 'h'];

/** Go's time.ParseDuration, for its error texts only. */
function checkDuration(text: string): void {
  const quoted = goQuote(text);
  let s = text.replace(/^[+-]/, '');
  if (s === '0') return;
  if (s === '') throw new ScheduleError(`time: invalid duration ${quoted}`);
  while (s !== '') {
    const number = /^([0-9]*)(\.[0-9]*)?/.exec(s)?.[0] ?? '';
    if (number === '' || number === '.') throw new ScheduleError(`time: invalid duration ${quoted}`);
    s = s.slice(number.length);
    const unit = /^[^0-9.]*/.exec(s)?.[0] ?? '';
    if (unit === '') throw new ScheduleError(`time: missing unit in duration ${quoted}`);
    if (!UNITS.includes(unit)) throw new ScheduleError(`time: unknown unit ${goQuote(unit)} in duration ${quoted}`);
    s = s.slice(unit.length);
  }
}

/** Whether Go's time.LoadLocation would find the zone (Node's ICU data stands in for the zoneinfo database). */
export function isKnownTimeZone(zone: string): boolean {
  if (zone === '' || zone === 'UTC') return true;
  if (zone === 'Local') return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/** Upstream's error text for a schedule that does not parse, or undefined when it parses. */
export function scheduleError(schedule: string): string | undefined {
  try {
    checkSchedule(schedule);
    return undefined;
  } catch (err) {
    if (err instanceof ScheduleError) return err.message;
    throw err;
  }
}

function checkSchedule(input: string): void {
  let spec = input;
  if (spec.length === 0) throw new ScheduleError('empty spec string');
  if (spec.startsWith('TZ=') || spec.startsWith('CRON_TZ=')) {
    const space = spec.indexOf(' ');
    const zone = spec.slice(spec.indexOf('=') + 1, space < 0 ? undefined : space);
    if (space < 0 || !isKnownTimeZone(zone)) {
      throw new ScheduleError(`provided bad location ${zone}: unknown time zone ${zone}`);
    }
    spec = spec.slice(space).trim();
  }
  if (spec.startsWith('@')) {
    if (DESCRIPTORS.includes(spec)) return;
    if (spec.startsWith('@every ')) {
      try {
        checkDuration(spec.slice('@every '.length));
      } catch (err) {
        throw new ScheduleError(`failed to parse duration ${spec}: ${(err as Error).message}`);
      }
      return;
    }
    throw new ScheduleError(`unrecognized descriptor: ${spec}`);
  }
  const fields = spec.split(/\s+/).filter((f) => f !== '');
  if (fields.length !== 5)
    throw new ScheduleError(`expected exactly 5 fields, found ${fields.length}: [${fields.join(' ')}]`);
  fields.forEach((field, i) => {
    const bounds = FIELDS[i] as Bounds;
    for (const expr of field.split(',').filter((e) => e !== '')) checkRange(expr, bounds);
  });
}
