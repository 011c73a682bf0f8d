/**
 * Go's text forms of instants and durations, as Kubernetes writes them in JSON: RFC 3339 in UTC ("Z") with no
 * fraction (metav1.Time) or exactly six fraction digits (metav1.MicroTime), and time.Duration's String form
 * ("1h2m3.5s", "300ms", "1.5µs", "0s"). Seconds are 64-bit, so years far outside 1–9999 are written as Go writes
 * them: at least four digits, a minus sign before negative years.
 */

/** Seconds between 0001-01-01T00:00:00Z (Go's zero time) and the Unix epoch. */
export const GO_ZERO_TIME_UNIX_SECONDS = -62135596800n;

const SECONDS_PER_DAY = 86400n;

/** Days from 1970-01-01 to a proleptic Gregorian date (any year). */
export function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

/** Proleptic Gregorian year, month and day of a count of days since 1970-01-01 (H. Hinnant's algorithm). */
function civilFromDays(days: number): [number, number, number] {
  const z = days + 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  return [era * 400 + yoe + (month <= 2 ? 1 : 0), month, day];
}

const pad = (n: number, width: number): string => String(n).padStart(width, '0');

/**
 * `seconds` since the Unix epoch plus `nanos` (0 ≤ nanos < 1e9) as RFC 3339 in UTC, with `fractionDigits`
 * digits of fraction (0: none and no dot).
 */
export function formatRFC3339(seconds: bigint, nanos: number, fractionDigits: 0 | 6): string {
  let days = seconds / SECONDS_PER_DAY;
  let rest = seconds % SECONDS_PER_DAY;
  if (rest < 0n) {
    rest += SECONDS_PER_DAY;
    days -= 1n;
  }
  const [year, month, day] = civilFromDays(Number(days));
  const secs = Number(rest);
  const yearText = year < 0 ? `-${pad(-year, 4)}` : pad(year, 4);
  const date = `${yearText}-${pad(month, 2)}-${pad(day, 2)}`;
  const clock = `${pad(Math.floor(secs / 3600), 2)}:${pad(Math.floor(secs / 60) % 60, 2)}:${pad(secs % 60, 2)}`;
  const fraction =
    fractionDigits === 0 ? '' : `.${pad(Math.floor(nanos / 10 ** (9 - fractionDigits)), fractionDigits)}`;
  return `${date}T${clock}${fraction}Z`;
}

/** The digits of v / 10^prec's fraction without trailing zeros (no dot when it is zero), and v / 10^prec. */
function fraction(v: bigint, prec: number): [string, bigint] {
  let digits = '';
  let printing = false;
  let rest = v;
  for (let i = 0; i < prec; i++) {
    const digit = rest % 10n;
    printing ||= digit !== 0n;
    if (printing) digits = `${digit}${digits}`;
    rest /= 10n;
  }
  return [printing ? `.${digits}` : '', rest];
}

/** A signed 64-bit count of nanoseconds in Go's time.Duration String form. */
export function formatGoDuration(nanos: bigint): string {
  if (nanos === 0n) return '0s';
  const sign = nanos < 0n ? '-' : '';
  const u = nanos < 0n ? -nanos : nanos;
  if (u < 1_000_000_000n) {
    if (u < 1_000n) return `${sign}${u}ns`;
    const [prec, unit] = u < 1_000_000n ? [3, 'µs'] : [6, 'ms'];
    const [frac, whole] = fraction(u, prec);
    return `${sign}${whole}${frac}${unit}`;
  }
  const [frac, wholeSeconds] = fraction(u, 9);
  let text = `${wholeSeconds % 60n}${frac}s`;
  const minutes = wholeSeconds / 60n;
  if (minutes > 0n) {
    text = `${minutes % 60n}m${text}`;
    const hours = minutes / 60n;
    if (hours > 0n) text = `${hours}h${text}`;
  }
  return `${sign}${text}`;
}
