/**
 * metav1.Time and metav1.MicroTime as kube-apiserver reads and writes them in JSON. Reading is Go's time.Parse with
 * the type's layout (RFC 3339 for Time; for MicroTime RFC 3339 with exactly six fraction digits), including its
 * leniencies (a one-digit hour, a comma before the fraction, offsets up to 24:60) and its error messages
 * (`parsing time "x" as "2006-01-02T15:04:05Z07:00": cannot parse "x" as "2006"`). Writing is the type's MarshalJSON:
 * the instant in UTC, to the second (Time) or microsecond (MicroTime), and null for Go's zero time.
 */

import { daysFromCivil, formatRFC3339, GO_ZERO_TIME_UNIX_SECONDS } from './protobuf/go-time.js';

export type GoTimeLayout = 'time' | 'microtime';

const RFC3339 = '2006-01-02T15:04:05Z07:00';
const RFC3339_MICRO = '2006-01-02T15:04:05.000000Z07:00';

/** An instant: whole seconds since the Unix epoch and the nanoseconds after them. */
export interface GoInstant {
  seconds: number;
  nanos: number;
}

/** The layout's parts in the order time.Parse meets them: the literal text before each element, and the element. */
type Element = '2006' | '01' | '02' | '15' | '04' | '05' | '.000000' | 'Z07:00';
const TIME_CHUNKS: readonly (readonly [string, Element])[] = [
  ['', '2006'],
  ['-', '01'],
  ['-', '02'],
  ['T', '15'],
  [':', '04'],
  [':', '05'],
  ['', 'Z07:00'],
];
const CHUNKS: Record<GoTimeLayout, readonly (readonly [string, Element])[]> = {
  time: TIME_CHUNKS,
  // RFC3339Micro: six fraction digits between the seconds and the zone.
  microtime: [...TIME_CHUNKS.slice(0, 6), ['', '.000000'], ['', 'Z07:00']],
};

const isDigit = (s: string, i: number) => i < s.length && s.charCodeAt(i) >= 48 && s.charCodeAt(i) <= 57;
const commaOrPeriod = (c: string | undefined) => c === '.' || c === ',';

/**
 * time's quote over a string of bytes (one char per UTF-8 byte): ASCII as it is (with `"` and `\` escaped), any
 * other byte, and control characters, as \x escapes.
 */
function quote(bytes: string): string {
  let out = '"';
  for (let i = 0; i < bytes.length; i++) {
    const code = bytes.charCodeAt(i);
    const ch = bytes[i] as string;
    if (code >= 0x80 || code < 0x20) out += `\\x${code.toString(16).padStart(2, '0')}`;
    else out += ch === '"' || ch === '\\' ? `\\${ch}` : ch;
  }
  return `${out}"`;
}

/** time's getnum: one or two digits (two when fixed). */
function getnum(s: string, fixed: boolean): [number, string] | undefined {
  if (!isDigit(s, 0)) return undefined;
  if (!isDigit(s, 1)) return fixed ? undefined : [s.charCodeAt(0) - 48, s.slice(1)];
  return [(s.charCodeAt(0) - 48) * 10 + s.charCodeAt(1) - 48, s.slice(2)];
}

/** time's atoi: an optional sign, then digits only (none is 0). */
function atoi(s: string): number | undefined {
  let i = 0;
  let neg = false;
  if (s[0] === '-' || s[0] === '+') {
    neg = s[0] === '-';
    i = 1;
  }
  let x = 0;
  for (; i < s.length; i++) {
    if (!isDigit(s, i)) return undefined;
    x = x * 10 + s.charCodeAt(i) - 48;
  }
  return neg ? -x : x;
}

/** time's parseNanoseconds over the first n characters (a separator and digits). */
function parseNanos(value: string, n: number): { nanos: number; range?: string } | undefined {
  if (!commaOrPeriod(value[0])) return undefined;
  const bytes = Math.min(n, 10);
  const ns = atoi(value.slice(1, bytes));
  if (ns === undefined) return undefined;
  if (ns < 0) return { nanos: 0, range: 'fractional second' };
  return { nanos: ns * 10 ** (10 - bytes) };
}

const isLeap = (y: number) => y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);
const DAYS_IN = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const daysIn = (month: number, year: number) => (month === 2 && isLeap(year) ? 29 : (DAYS_IN[month - 1] ?? 31));

/** Go's time.Parse of value with the type's layout: the instant, or the error Go words. */
export function parseGoTime(text: string, layout: GoTimeLayout): GoInstant | { error: string } {
  // Go reads the text as UTF-8 bytes: positions and lengths count bytes.
  const value = /[\u0080-\uffff]/.test(text) ? Buffer.from(text, 'utf8').toString('latin1') : text;
  const layoutText = layout === 'time' ? RFC3339 : RFC3339_MICRO;
  const fail = (layoutElem: string, valueElem: string) => ({
    error: `parsing time ${quote(value)} as ${quote(layoutText)}: cannot parse ${quote(valueElem)} as ${quote(layoutElem)}`,
  });
  const failWith = (message: string) => ({ error: `parsing time ${quote(value)}${message}` });
  const chunks = CHUNKS[layout];
  let rest = value;
  let year = 0;
  let month = 1;
  let day = 1;
  let hour = 0;
  let min = 0;
  let sec = 0;
  let nanos = 0;
  let offset = 0;
  for (let c = 0; c < chunks.length; c++) {
    const [prefix, elem] = chunks[c] as readonly [string, Element];
    for (const ch of prefix) {
      if (rest[0] !== ch) return fail(prefix, rest);
      rest = rest.slice(1);
    }
    const hold = rest;
    let range = '';
    let bad = false;
    switch (elem) {
      case '2006': {
        const y = rest.length >= 4 && isDigit(rest, 0) ? atoi(rest.slice(0, 4)) : undefined;
        if (y === undefined) bad = true;
        else {
          year = y;
          rest = rest.slice(4);
        }
        break;
      }
      case '01':
      case '02':
      case '04':
      case '05':
      case '15': {
        const got = getnum(rest, elem !== '15');
        if (!got) {
          bad = true;
          break;
        }
        rest = got[1];
        const n = got[0];
        if (elem === '01') {
          month = n;
          if (n <= 0 || n > 12) range = 'month';
        } else if (elem === '02') {
          day = n;
        } else if (elem === '15') {
          hour = n;
          if (n >= 24) range = 'hour';
        } else if (elem === '04') {
          min = n;
          if (n >= 60) range = 'minute';
        } else {
          sec = n;
          if (n >= 60) {
            range = 'second';
            break;
          }
          // A fraction the layout does not name is taken when it follows the seconds.
          if (layout === 'time' && rest.length >= 2 && commaOrPeriod(rest[0]) && isDigit(rest, 1)) {
            let n2 = 2;
            while (isDigit(rest, n2)) n2++;
            const f = parseNanos(rest, n2);
            if (!f) bad = true;
            else {
              nanos = f.nanos;
              range = f.range ?? '';
            }
            rest = rest.slice(n2);
          }
        }
        break;
      }
      case '.000000': {
        if (rest.length < 7) {
          bad = true;
          break;
        }
        const f = parseNanos(rest, 7);
        if (!f) bad = true;
        else {
          nanos = f.nanos;
          range = f.range ?? '';
        }
        rest = rest.slice(7);
        break;
      }
      case 'Z07:00': {
        if (rest[0] === 'Z') {
          rest = rest.slice(1);
          offset = 0;
          break;
        }
        if (rest.length < 6 || rest[3] !== ':') {
          bad = true;
          break;
        }
        const sign = rest[0];
        const hh = getnum(rest.slice(1, 3), true);
        const mm = hh && getnum(rest.slice(4, 6), true);
        rest = rest.slice(6);
        if (hh && hh[0] > 24) range = 'time zone offset hour';
        if (mm && mm[0] > 60) range = 'time zone offset minute';
        if (!hh || !mm || (sign !== '+' && sign !== '-')) bad = true;
        else offset = (sign === '-' ? -1 : 1) * (hh[0] * 60 + mm[0]) * 60;
        break;
      }
    }
    if (range) return failWith(`: ${range} out of range`);
    if (bad) return fail(elem, hold);
  }
  if (rest.length > 0) return failWith(`: extra text: ${quote(rest)}`);
  if (day < 1 || day > daysIn(month, year)) return failWith(': day out of range');
  const seconds = daysFromCivil(year, month, day) * 86400 + hour * 3600 + min * 60 + sec - offset;
  return { seconds, nanos };
}

/** The instant as the type's MarshalJSON writes it: UTC, to the second or microsecond; null for the zero time. */
export function formatGoTime(t: GoInstant, layout: GoTimeLayout): string | null {
  const seconds = BigInt(t.seconds);
  if (seconds === GO_ZERO_TIME_UNIX_SECONDS && t.nanos === 0) return null;
  return formatRFC3339(seconds, t.nanos, layout === 'time' ? 0 : 6);
}

/** The common case, already as the type writes it: a check without parsing. */
const CANONICAL: Record<GoTimeLayout, RegExp> = {
  time: /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])T([01]\d|2[0-3]):[0-5]\d:[0-5]\dZ$/,
  microtime: /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])T([01]\d|2[0-3]):[0-5]\d:[0-5]\d\.\d{6}Z$/,
};

/**
 * A time field's JSON string after decoding and encoding again: `{ value }` (the same string when it was written
 * as the type writes it, else the rewritten one, or null for the zero time), or `{ error }` from time.Parse.
 */
export function reencodeGoTime(value: string, layout: GoTimeLayout): { value: string | null } | { error: string } {
  if (CANONICAL[layout].test(value) && Number(value.slice(8, 10)) <= 28 && !value.startsWith('0001-01-01T00:00:00')) {
    return { value };
  }
  const t = parseGoTime(value, layout);
  if ('error' in t) return t;
  return { value: formatGoTime(t, layout) };
}
