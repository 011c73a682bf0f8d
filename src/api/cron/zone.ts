/**
 * Wall-clock arithmetic in an IANA time zone, as Go's `time` package does it for robfig/cron: the zone's offset at
 * an instant, an instant's local fields, `time.Date` (local fields to an instant, with Go's choice inside a DST
 * gap or overlap), `time.LoadLocation`'s answer to "is this a zone", and RFC 3339 text in a zone. The zone data
 * is Node's ICU copy of the IANA database, which stands in for Go's zoneinfo.
 */

/** Go's zero time.Time (0001-01-01T00:00:00Z) in ms since the epoch: robfig's answer when nothing matches. */
export const ZERO_TIME = -62_135_596_800_000;

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(zone: string): Intl.DateTimeFormat {
  let f = formatters.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      era: 'short',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(zone, f);
  }
  return f;
}

/** A location: `UTC` or an IANA zone name Intl knows. */
export type Location = string;

export const UTC: Location = 'UTC';

/** The zone's offset from UTC (ms) at an instant. */
export function offsetAt(zone: Location, ms: number): number {
  if (zone === UTC) return 0;
  const whole = Math.floor(ms / 1000) * 1000;
  const parts: Record<string, string> = {};
  for (const p of formatter(zone).formatToParts(new Date(whole))) parts[p.type] = p.value;
  let year = Number(parts.year);
  if (parts.era === 'BC' || parts.era === 'B') year = 1 - year;
  const local = utcFromFields(
    year,
    Number(parts.month) - 1,
    Number(parts.day),
    Number(parts.hour),
    Number(parts.minute),
    Number(parts.second),
  );
  return local - whole;
}

/** Date.UTC without its two-digit-year quirk: the fields overflow into each other as Go's time.Date lets them. */
function utcFromFields(year: number, month: number, day: number, hour: number, minute: number, second: number) {
  const d = new Date(0);
  d.setUTCFullYear(year, month, day);
  d.setUTCHours(hour, minute, second, 0);
  return d.getTime();
}

/** An instant's wall-clock fields in a zone (month 1–12, weekday 0 = Sunday). */
export interface LocalFields {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  weekday: number;
}

export function localFields(zone: Location, ms: number): LocalFields {
  const d = new Date(ms + offsetAt(zone, ms));
  return {
    year: d.getUTCFullYear(),
    month: d.getUTCMonth() + 1,
    day: d.getUTCDate(),
    hour: d.getUTCHours(),
    minute: d.getUTCMinutes(),
    second: d.getUTCSeconds(),
    weekday: d.getUTCDay(),
  };
}

/**
 * Go's time.Date(year, month, day, hour, min, sec, 0, loc): fields out of range carry over; a wall time that a DST
 * change skips or repeats resolves as Go resolves it (the offset in force at the wall time read as UTC, unless the
 * instant that gives falls outside that offset's period).
 */
export function dateIn(
  zone: Location,
  year: number,
  month: number,
  day: number,
  hour: number,
  minute: number,
  second: number,
): number {
  const local = utcFromFields(year, month - 1, day, hour, minute, second);
  if (zone === UTC) return local;
  let offset = offsetAt(zone, local);
  if (offset !== 0) {
    const utc = local - offset;
    const there = offsetAt(zone, utc);
    if (there !== offset) offset = there;
  }
  return local - offset;
}

/**
 * Whether Go's time.LoadLocation finds the zone: "" and "UTC" are UTC; "Local" is the machine's zone, never an
 * explicit one here; other names must be in the IANA database and, as zoneinfo file names are, spelled in the
 * right case (a canonical name differing only in case is refused; aliases are taken as ICU resolves them).
 */
export function isKnownTimeZone(zone: string): boolean {
  if (zone === '' || zone === 'UTC') return true;
  if (zone === 'Local') return false;
  let resolved: string;
  try {
    resolved = new Intl.DateTimeFormat('en-US', { timeZone: zone }).resolvedOptions().timeZone;
  } catch {
    return false;
  }
  return resolved === zone || resolved.toLowerCase() !== zone.toLowerCase();
}

/** Go's `unknown time zone X` error text, or undefined when the zone loads. */
export function loadLocationError(zone: string): string | undefined {
  return isKnownTimeZone(zone) ? undefined : `unknown time zone ${zone}`;
}

/** The Location for a zone name ("" is UTC, as Go's LoadLocation has it). */
export function location(zone: string | undefined): Location {
  return zone === undefined || zone === '' ? UTC : zone;
}

const pad = (n: number, w = 2) => String(Math.abs(n)).padStart(w, '0');

/** Go's t.In(loc).Format(time.RFC3339): `2006-01-02T15:04:05Z07:00` (Z for a zero offset). */
export function formatRFC3339(zone: Location, ms: number): string {
  const offset = offsetAt(zone, ms);
  const f = localFields(zone, ms);
  const date = `${pad(f.year, 4)}-${pad(f.month)}-${pad(f.day)}T${pad(f.hour)}:${pad(f.minute)}:${pad(f.second)}`;
  if (offset === 0) return `${date}Z`;
  const minutes = Math.round(Math.abs(offset) / 60_000);
  return `${date}${offset < 0 ? '-' : '+'}${pad(Math.floor(minutes / 60))}:${pad(minutes % 60)}`;
}
