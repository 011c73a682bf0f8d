/**
 * The string formats a custom resource's schema can ask for, and how each is checked: the set apiextensions keeps
 * from kube-openapi's format registry (every other format — int32, int64, float, double, and any unknown name — is
 * dropped before validation, so it checks nothing, as upstream). Names are compared with dashes removed, so
 * `date-time` is `datetime`.
 */
import { canonicalCIDR, parseIP } from '../../../api/validation/ip.js';

const HOSTNAME =
  /^([a-zA-Z0-9\p{S}\p{L}]((-?[a-zA-Z0-9\p{S}\p{L}]{0,62})?)|([a-zA-Z0-9\p{S}\p{L}](([a-zA-Z0-9\-\p{S}\p{L}]{0,61}[a-zA-Z0-9\p{S}\p{L}])?)(\.)){1,}([a-zA-Z\p{L}]){2,63})$/u;
const UUID = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
const UUID3 = /^[0-9a-f]{8}-?[0-9a-f]{4}-?3[0-9a-f]{3}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
const UUID4 = /^[0-9a-f]{8}-?[0-9a-f]{4}-?4[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$/i;
const UUID5 = /^[0-9a-f]{8}-?[0-9a-f]{4}-?5[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$/i;
const CREDIT_CARD =
  /^(?:4[0-9]{12}(?:[0-9]{3})?|5[1-5][0-9]{14}|6(?:011|5[0-9][0-9])[0-9]{12}|3[47][0-9]{13}|3(?:0[0-5]|[68][0-9])[0-9]{11}|(?:2131|1800|35\d{3})\d{11})$/;
const ISBN10 = /^(?:[0-9]{9}X|[0-9]{10})$/;
const ISBN13 = /^(?:[0-9]{13})$/;
const HEX_COLOR = /^#?([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/;
const RGB_PART = String.raw`\s*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*`;
const RGB_COLOR = new RegExp(`^rgb\\(${RGB_PART},${RGB_PART},${RGB_PART}\\)$`);
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=|[A-Za-z0-9+/]{4})$/;
const SSN = /^\d{3}[- ]?\d{2}[- ]?\d{4}$/;
const TIME_OF_DAY = /^([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))$/;
const MAC =
  /^(?:[0-9a-fA-F]{2}(?:[:-][0-9a-fA-F]{2}){5}|[0-9a-fA-F]{2}(?:[:-][0-9a-fA-F]{2}){7}|[0-9a-fA-F]{2}(?:[:-][0-9a-fA-F]{2}){19})$/;
const MAC_DOTTED =
  /^(?:[0-9a-fA-F]{4}\.){2}[0-9a-fA-F]{4}$|^(?:[0-9a-fA-F]{4}\.){3}[0-9a-fA-F]{4}$|^(?:[0-9a-fA-F]{4}\.){9}[0-9a-fA-F]{4}$/;

/** A calendar date `2006-01-02` as Go's time.Parse takes it (real month lengths, leap years). */
function isDate(s: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (mo < 1 || mo > 12 || d < 1) return false;
  const leap = (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][mo - 1] ?? 0;
  return d <= days;
}

function isDateTime(s: string): boolean {
  if (s.length < 4) return false;
  const parts = s.toLowerCase().split('t');
  if (parts.length < 2 || !isDate(parts[0] ?? '')) return false;
  const m = TIME_OF_DAY.exec(parts[1] ?? '');
  if (!m) return false;
  return (m[1] ?? '') <= '23' && (m[2] ?? '') <= '59' && (m[3] ?? '') <= '59';
}

const GO_DURATION = /^[-+]?(?:(?:\d+\.?\d*|\.\d+)(?:ns|us|µs|μs|ms|s|m|h))+$|^[-+]?0$/;
const DURATION_UNITS: readonly (readonly string[])[] = [
  ['ns', 'nano'],
  ['us', 'µs', 'micro'],
  ['ms', 'milli'],
  ['s', 'sec'],
  ['m', 'min'],
  ['h', 'hr', 'hour'],
  ['d', 'day'],
  ['w', 'wk', 'week'],
];

/** Go's time.ParseDuration syntax, or the looser `3 days`-style syntax kube-openapi also takes. */
function isDuration(s: string): boolean {
  if (GO_DURATION.test(s)) return true;
  for (const m of s.matchAll(/(\d+)\s*([A-Za-zµ]+)/g)) {
    const unit = (m[2] ?? '').trim().toLowerCase();
    for (const variants of DURATION_UNITS) {
      const last = variants.length - 1;
      if (variants.some((v, i) => (i === last && unit.startsWith(v)) || v === unit)) return true;
    }
  }
  return false;
}

/** Go's url.ParseRequestURI: an absolute URI or an absolute path, no fragment handling, no spaces or controls. */
function isRequestURI(s: string): boolean {
  if (s === '' || [...s].some((c) => /\s/.test(c) || c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f)) return false;
  if (s.startsWith('/')) return true;
  const m = /^([a-zA-Z][a-zA-Z0-9+.-]*):(.*)$/.exec(s);
  if (!m) return false;
  try {
    new URL(s);
    return true;
  } catch {
    return false;
  }
}

/** An address as net/mail.ParseAddress takes it, in its common forms (`a@b.c`, `Name <a@b.c>`). */
function isEmail(s: string): boolean {
  const addr = /^[^<>]*<([^<>]+)>$/.exec(s.trim())?.[1] ?? s.trim();
  return /^[^\s@"(),:;<>[\\\]]+@[^\s@"(),:;<>[\\\]]+$/.test(addr);
}

function isISBN(s: string, version: 10 | 13): boolean {
  const d = s.replace(/[\s-]+/g, '');
  if (version === 10) {
    if (!ISBN10.test(d)) return false;
    let sum = 0;
    for (let i = 0; i < 9; i++) sum += (i + 1) * (d.charCodeAt(i) - 48);
    sum += d[9] === 'X' ? 100 : 10 * (d.charCodeAt(9) - 48);
    return sum % 11 === 0;
  }
  if (!ISBN13.test(d)) return false;
  let sum = 0;
  for (let i = 0; i < 12; i++) sum += (i % 2 === 0 ? 1 : 3) * (d.charCodeAt(i) - 48);
  return (10 - (sum % 10)) % 10 === d.charCodeAt(12) - 48;
}

function isCreditCard(s: string): boolean {
  const d = s.replace(/[^0-9]+/g, '');
  if (!CREDIT_CARD.test(d)) return false;
  let sum = 0;
  let double = false;
  for (let i = d.length - 1; i >= 0; i--) {
    let n = d.charCodeAt(i) - 48;
    if (double) {
      n *= 2;
      if (n >= 10) n = (n % 10) + 1;
    }
    sum += n;
    double = !double;
  }
  return sum % 10 === 0;
}

function isHostname(s: string): boolean {
  if (!HOSTNAME.test(s) || Buffer.byteLength(s) > 255) return false;
  return s.split('.').every((p) => Buffer.byteLength(p) <= 63);
}

const CHECKS: Record<string, (s: string) => boolean> = {
  bsonobjectid: (s) => /^[0-9a-fA-F]{24}$/.test(s),
  uri: isRequestURI,
  email: isEmail,
  hostname: isHostname,
  ipv4: (s) => parseIP(s) !== undefined && s.includes('.'),
  ipv6: (s) => parseIP(s, true) !== undefined && s.includes(':'),
  cidr: (s) => canonicalCIDR(s) !== undefined,
  mac: (s) => MAC.test(s) || MAC_DOTTED.test(s),
  uuid: (s) => UUID.test(s),
  uuid3: (s) => UUID3.test(s),
  uuid4: (s) => UUID4.test(s),
  uuid5: (s) => UUID5.test(s),
  isbn: (s) => isISBN(s, 10) || isISBN(s, 13),
  isbn10: (s) => isISBN(s, 10),
  isbn13: (s) => isISBN(s, 13),
  creditcard: isCreditCard,
  ssn: (s) => s.length === 11 && SSN.test(s),
  hexcolor: (s) => HEX_COLOR.test(s),
  rgbcolor: (s) => RGB_COLOR.test(s),
  byte: (s) => BASE64.test(s),
  password: () => true,
  date: isDate,
  duration: isDuration,
  datetime: isDateTime,
};

const normalize = (format: string) => format.replaceAll('-', '');

/** Whether the format is one apiextensions validates (otherwise it is ignored). */
export function isSupportedFormat(format: string): boolean {
  return Object.hasOwn(CHECKS, normalize(format));
}

/** Whether the string is of the format; true for formats that are not supported. */
export function matchesFormat(format: string, value: string): boolean {
  const check = CHECKS[normalize(format)];
  return check === undefined || check(value);
}
