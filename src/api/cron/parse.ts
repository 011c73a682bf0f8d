/**
 * robfig/cron v3's ParseStandard, the parser upstream's CronJob validation and controller both use: an optional
 * `TZ=`/`CRON_TZ=` prefix, then five fields (minute, hour, day of month, month, day of week) with `*`, `?`, names
 * (jan–dec, sun–sat, any case), ranges, steps and lists, or a descriptor (`@yearly`, `@annually`, `@monthly`,
 * `@weekly`, `@daily`, `@midnight`, `@hourly`, `@every <duration>`). Errors carry robfig's texts.
 */
import { goQuote } from '../validation/go-format.js';
import { type Location, loadLocationError, location } from './zone.js';

export class ScheduleParseError extends Error {}

/** One field's allowed values, and whether it was written as `*` or `?` (robfig's star bit). */
export interface Field {
  values: ReadonlySet<number>;
  star: boolean;
}

/** A schedule of fields (robfig's SpecSchedule); seconds are always 0 under the standard parser. */
export interface SpecFields {
  kind: 'spec';
  second: Field;
  minute: Field;
  hour: Field;
  dom: Field;
  month: Field;
  dow: Field;
  location: Location;
}

/** `@every <duration>` (robfig's ConstantDelaySchedule): whole seconds, at least one. */
export interface ConstantDelay {
  kind: 'every';
  delayMs: number;
}

export type ParsedSchedule = SpecFields | ConstantDelay;

interface Bounds {
  min: number;
  max: number;
  names?: Readonly<Record<string, number>>;
}

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const DAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];

const SECONDS: Bounds = { min: 0, max: 59 };
const MINUTES: Bounds = { min: 0, max: 59 };
const HOURS: Bounds = { min: 0, max: 23 };
const DOM: Bounds = { min: 1, max: 31 };
const MONTH: Bounds = { min: 1, max: 12, names: Object.fromEntries(MONTHS.map((m, i) => [m, i + 1])) };
const DOW: Bounds = { min: 0, max: 6, names: Object.fromEntries(DAYS.map((d, i) => [d, i])) };

const GO_MAX_INT = 2n ** 63n - 1n;

/** Go's strconv.Atoi with its error texts. */
function atoi(expr: string): number {
  const quoted = goQuote(expr);
  if (!/^[+-]?[0-9]+$/.test(expr)) throw new ScheduleParseError(`strconv.Atoi: parsing ${quoted}: invalid syntax`);
  const n = BigInt(expr);
  if (n > GO_MAX_INT || n < -GO_MAX_INT - 1n) {
    throw new ScheduleParseError(`strconv.Atoi: parsing ${quoted}: value out of range`);
  }
  return Number(n);
}

function mustParseInt(expr: string): number {
  let n: number;
  try {
    n = atoi(expr);
  } catch (err) {
    throw new ScheduleParseError(`failed to parse int from ${expr}: ${(err as Error).message}`);
  }
  if (n < 0) throw new ScheduleParseError(`negative number (${n}) not allowed: ${expr}`);
  return n;
}

function parseIntOrName(expr: string, names: Bounds['names']): number {
  const named = names?.[expr.toLowerCase()];
  return named ?? mustParseInt(expr);
}

function addRange(expr: string, r: Bounds, into: Set<number>): boolean {
  const rangeAndStep = expr.split('/');
  const lowAndHigh = (rangeAndStep[0] as string).split('-');
  const single = lowAndHigh.length === 1;
  let start: number;
  let end: number;
  let star = false;
  if (lowAndHigh[0] === '*' || lowAndHigh[0] === '?') {
    start = r.min;
    end = r.max;
    star = true;
  } else {
    start = parseIntOrName(lowAndHigh[0] as string, r.names);
    if (lowAndHigh.length === 1) end = start;
    else if (lowAndHigh.length === 2) end = parseIntOrName(lowAndHigh[1] as string, r.names);
    else throw new ScheduleParseError(`too many hyphens: ${expr}`);
  }
  let step = 1;
  if (rangeAndStep.length === 2) {
    step = mustParseInt(rangeAndStep[1] as string);
    // `N/step` runs from N to the field's maximum.
    if (single) end = r.max;
    if (step > 1) star = false;
  } else if (rangeAndStep.length > 2) {
    throw new ScheduleParseError(`too many slashes: ${expr}`);
  }
  if (start < r.min) throw new ScheduleParseError(`beginning of range (${start}) below minimum (${r.min}): ${expr}`);
  if (end > r.max) throw new ScheduleParseError(`end of range (${end}) above maximum (${r.max}): ${expr}`);
  if (start > end) throw new ScheduleParseError(`beginning of range (${start}) beyond end of range (${end}): ${expr}`);
  if (step === 0) throw new ScheduleParseError(`step of range should be a positive number: ${expr}`);
  for (let v = start; v <= end; v += step) into.add(v);
  return star;
}

function parseField(field: string, r: Bounds): Field {
  const values = new Set<number>();
  let star = false;
  for (const expr of field.split(',')) {
    if (expr === '') continue;
    if (addRange(expr, r, values)) star = true;
  }
  return { values, star };
}

const only = (v: number): Field => ({ values: new Set([v]), star: false });
const all = (r: Bounds): Field => ({
  values: new Set(Array.from({ length: r.max - r.min + 1 }, (_, i) => r.min + i)),
  star: true,
});

const GO_UNITS: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  μs: 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

/** Go's time.ParseDuration, in ms, with its error texts. */
export function parseGoDuration(text: string): number {
  const quoted = goQuote(text);
  let s = text;
  let sign = 1;
  if (s.startsWith('-') || s.startsWith('+')) {
    if (s[0] === '-') sign = -1;
    s = s.slice(1);
  }
  if (s === '0') return 0;
  if (s === '') throw new ScheduleParseError(`time: invalid duration ${quoted}`);
  let total = 0;
  while (s !== '') {
    const number = /^[0-9]*(\.[0-9]*)?/.exec(s)?.[0] ?? '';
    if (number === '' || number === '.') throw new ScheduleParseError(`time: invalid duration ${quoted}`);
    s = s.slice(number.length);
    const unit = /^[^0-9.]*/.exec(s)?.[0] ?? '';
    if (unit === '') throw new ScheduleParseError(`time: missing unit in duration ${quoted}`);
    const scale = GO_UNITS[unit];
    if (scale === undefined) throw new ScheduleParseError(`time: unknown unit ${goQuote(unit)} in duration ${quoted}`);
    total += Number(number) * scale;
    if (total > 9_223_372_036_854) throw new ScheduleParseError(`time: invalid duration ${quoted}`);
    s = s.slice(unit.length);
  }
  return sign * total;
}

function parseDescriptor(descriptor: string, loc: Location): ParsedSchedule {
  const daily = { second: only(0), minute: only(0), hour: only(0), location: loc };
  switch (descriptor) {
    case '@yearly':
    case '@annually':
      return { kind: 'spec', ...daily, dom: only(1), month: only(1), dow: all(DOW) };
    case '@monthly':
      return { kind: 'spec', ...daily, dom: only(1), month: all(MONTH), dow: all(DOW) };
    case '@weekly':
      return { kind: 'spec', ...daily, dom: all(DOM), month: all(MONTH), dow: only(0) };
    case '@daily':
    case '@midnight':
      return { kind: 'spec', ...daily, dom: all(DOM), month: all(MONTH), dow: all(DOW) };
    case '@hourly':
      return { kind: 'spec', ...daily, hour: all(HOURS), dom: all(DOM), month: all(MONTH), dow: all(DOW) };
  }
  const every = '@every ';
  if (descriptor.startsWith(every)) {
    let ms: number;
    try {
      ms = parseGoDuration(descriptor.slice(every.length));
    } catch (err) {
      throw new ScheduleParseError(`failed to parse duration ${descriptor}: ${(err as Error).message}`);
    }
    // robfig's Every: under a second counts as one; otherwise whole seconds.
    const delayMs = ms < 1000 ? 1000 : Math.floor(ms / 1000) * 1000;
    return { kind: 'every', delayMs };
  }
  throw new ScheduleParseError(`unrecognized descriptor: ${descriptor}`);
}

/** Parses a schedule as cron.ParseStandard does; throws ScheduleParseError with robfig's text. */
export function parseStandard(input: string): ParsedSchedule {
  let spec = input;
  if (spec.length === 0) throw new ScheduleParseError('empty spec string');
  let loc = location(undefined);
  if (spec.startsWith('TZ=') || spec.startsWith('CRON_TZ=')) {
    const space = spec.indexOf(' ');
    const zone = spec.slice(spec.indexOf('=') + 1, space < 0 ? undefined : space);
    const err = space < 0 ? `unknown time zone ${zone}` : loadLocationError(zone);
    if (err !== undefined) throw new ScheduleParseError(`provided bad location ${zone}: ${err}`);
    loc = location(zone);
    spec = spec.slice(space).trim();
  }
  if (spec.startsWith('@')) return parseDescriptor(spec, loc);
  const fields = spec.split(/\s+/).filter((f) => f !== '');
  if (fields.length !== 5) {
    throw new ScheduleParseError(`expected exactly 5 fields, found ${fields.length}: [${fields.join(' ')}]`);
  }
  const [minute, hour, dom, month, dow] = fields as [string, string, string, string, string];
  return {
    kind: 'spec',
    second: parseField('0', SECONDS),
    minute: parseField(minute, MINUTES),
    hour: parseField(hour, HOURS),
    dom: parseField(dom, DOM),
    month: parseField(month, MONTH),
    dow: parseField(dow, DOW),
    location: loc,
  };
}
