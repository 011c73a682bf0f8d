/**
 * Resource quantities (`500m`, `1Gi`, `2e3`) as apimachinery's resource.Quantity parses, compares, adds and prints
 * them. A value is kept exactly, in nano units (upstream rounds anything finer up to a nano), with the format its
 * suffix chose; printing gives upstream's canonical form, which is what the apiserver stores and returns and kubectl
 * shows (`1000m` comes back as `1`, `1024Mi` as `1Gi`).
 */

import { BoundedMemo } from '../util/bounded-memo.js';

export type QuantityFormat = 'DecimalExponent' | 'BinarySI' | 'DecimalSI';

export interface Quantity {
  /** The value times 10^9. */
  readonly nanos: bigint;
  readonly format: QuantityFormat;
}

const QUANTITY_REGEX = '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$';
export const QUANTITY_FORMAT_ERROR = `quantities must match the regular expression '${QUANTITY_REGEX}'`;
const SUFFIX_ERROR = "unable to parse quantity's suffix";

export class QuantityError extends Error {
  override name = 'QuantityError';
}

const NANO = 1_000_000_000n;
/** Upstream caps quantities at the largest int64. */
const MAX_NANOS = ((1n << 63n) - 1n) * NANO;

const DECIMAL_SUFFIXES: Record<string, number> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const BINARY_SUFFIXES: Record<string, number> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };
const DECIMAL_BY_EXPONENT = new Map(Object.entries(DECIMAL_SUFFIXES).map(([s, e]) => [e, s]));
const BINARY_BY_POWER = ['', 'Ki', 'Mi', 'Gi', 'Ti', 'Pi', 'Ei'];

interface Pieces {
  negative: boolean;
  whole: string;
  fraction: string;
  suffix: string;
}

const isDigit = (c: string | undefined) => c !== undefined && c >= '0' && c <= '9';

/** Splits a quantity into sign, digits and suffix the way upstream's scanner does. */
function scan(text: string): Pieces {
  let pos = 0;
  let negative = false;
  if (text[0] === '-' || text[0] === '+') {
    negative = text[0] === '-';
    pos++;
  }
  const wholeStart = pos;
  while (isDigit(text[pos])) pos++;
  const whole = text.slice(wholeStart, pos);
  let fraction = '';
  if (text[pos] === '.') {
    const start = ++pos;
    while (isDigit(text[pos])) pos++;
    fraction = text.slice(start, pos);
  }
  const suffixStart = pos;
  while (pos < text.length && 'eEinumkKMGTP'.includes(text[pos] ?? '')) pos++;
  if (text[pos] === '-' || text[pos] === '+') pos++;
  while (isDigit(text[pos])) pos++;
  if (pos < text.length) throw new QuantityError(QUANTITY_FORMAT_ERROR);
  return { negative, whole, fraction, suffix: text.slice(suffixStart) };
}

function interpretSuffix(suffix: string): { base: 2 | 10; exponent: number; format: QuantityFormat } {
  if (Object.hasOwn(DECIMAL_SUFFIXES, suffix)) {
    return { base: 10, exponent: DECIMAL_SUFFIXES[suffix] ?? 0, format: 'DecimalSI' };
  }
  if (Object.hasOwn(BINARY_SUFFIXES, suffix)) {
    return { base: 2, exponent: BINARY_SUFFIXES[suffix] ?? 0, format: 'BinarySI' };
  }
  if (suffix.length > 1 && (suffix[0] === 'e' || suffix[0] === 'E') && /^[-+]?[0-9]+$/.test(suffix.slice(1))) {
    return { base: 10, exponent: Number(suffix.slice(1)), format: 'DecimalExponent' };
  }
  throw new QuantityError(SUFFIX_ERROR);
}

/** a / b rounded away from zero (upstream rounds sub-nano precision up). */
function divideAwayFromZero(a: bigint, b: bigint): bigint {
  const q = a / b;
  return a % b === 0n ? q : q + (a < 0n ? -1n : 1n);
}

/** The value in nanos of digits × 10^-fractionDigits × base^exponent, rounded up to a nano and capped. */
function toNanos(digits: string, fractionDigits: number, base: 2 | 10, exponent: number): bigint {
  if (digits === '0') return 0n;
  if (base === 10) {
    // The value lies in [10^(magnitude-1), 10^magnitude): decide the out-of-range cases without building
    // powers of ten as large as the exponent a client sent (`1e100000000`).
    const magnitude = digits.length - fractionDigits + exponent;
    if (magnitude > 19) return MAX_NANOS;
    if (magnitude <= -9) return 1n;
  }
  let numerator = BigInt(digits) * NANO;
  let denominator = 10n ** BigInt(fractionDigits);
  if (base === 2) numerator *= 1n << BigInt(exponent);
  else if (exponent >= 0) numerator *= 10n ** BigInt(exponent);
  else denominator *= 10n ** BigInt(-exponent);
  const nanos = divideAwayFromZero(numerator, denominator);
  return nanos > MAX_NANOS ? MAX_NANOS : nanos;
}

/**
 * Quantities already parsed, by their text, and canonical texts already printed. A cluster uses few distinct
 * quantities, and each is read several times on every write of a pod (defaulting, validation, its QoS class,
 * LimitRanger, ResourceQuota, warnings); the parsed values are frozen, so they can be shared. The maps are emptied
 * when they fill, so a stream of distinct values cannot make them grow without end.
 */
const parsedByText = new BoundedMemo<string, Quantity>(4096);
const canonicalByText = new BoundedMemo<string, string>(4096);

/**
 * Parses a quantity, throwing QuantityError with upstream's message when it is not one. A JSON number is read from
 * its decimal text, and surrounding blanks are ignored, as upstream's decoder does.
 */
export function parseQuantity(input: string | number): Quantity {
  const text = typeof input === 'number' ? String(input) : input.trim();
  const known = parsedByText.get(text);
  return known ?? parsedByText.remember(text, Object.freeze(parseText(text)));
}

function parseText(text: string): Quantity {
  if (text.length === 0) throw new QuantityError(QUANTITY_FORMAT_ERROR);
  const { negative, whole, fraction, suffix } = scan(text);
  const { base, exponent, format } = interpretSuffix(suffix);
  // Upstream reads missing digits as zero: `k`, `.` and `+` all parse as 0.
  const digits = `${whole}${fraction}`.replace(/^0+(?=\d)/, '') || '0';
  const nanos = toNanos(digits, fraction.length, base, exponent);
  // Binary quantities below one print as decimals, which avoids rounding.
  const finalFormat = format === 'BinarySI' && nanos > 0n && nanos < NANO ? 'DecimalSI' : format;
  return { nanos: negative ? -nanos : nanos, format: finalFormat };
}

/** Whether a JSON value (a string or a number) parses as a quantity. */
/** Quantity.MilliValue(): a quantity (its text, or a JSON number) in thousandths, rounded up. */
export function milliValue(input: unknown): number {
  const nanos = parseQuantity(typeof input === 'number' ? input : String(input)).nanos;
  const q = nanos / 1_000_000n;
  return Number(nanos % 1_000_000n > 0n ? q + 1n : q);
}

export function isQuantity(input: unknown): boolean {
  if (typeof input !== 'string' && typeof input !== 'number') return false;
  try {
    parseQuantity(input);
    return true;
  } catch {
    return false;
  }
}

/** A whole number of units, printed in decimal notation. */
export function quantityFromInt(n: number | bigint): Quantity {
  return { nanos: BigInt(n) * NANO, format: 'DecimalSI' };
}

/** Upstream's RoundUp(scale): to a multiple of 10^scale, away from zero. */
export function roundUp(q: Quantity, scale: number): Quantity {
  const unit = 10n ** BigInt(9 + scale);
  if (unit <= 1n) return q;
  return { nanos: divideAwayFromZero(q.nanos, unit) * unit, format: q.format };
}

export function compareQuantities(a: Quantity, b: Quantity): number {
  return a.nanos < b.nanos ? -1 : a.nanos > b.nanos ? 1 : 0;
}

/** a + b in a's notation; a zero left-hand side takes the right-hand side's, as upstream's Quantity.Add does. */
export function addQuantities(a: Quantity, b: Quantity): Quantity {
  return { nanos: a.nanos + b.nanos, format: a.nanos === 0n ? b.format : a.format };
}

/** The canonical text of a quantity, as Quantity.String() prints it. */
export function formatQuantity(q: Quantity): string {
  if (q.nanos === 0n) return '0';
  const negative = q.nanos < 0n;
  const abs = negative ? -q.nanos : q.nanos;
  const sign = negative ? '-' : '';
  // Binary notation is kept only from 1024 up and for whole numbers; anything else would round, so prints as decimal.
  if (q.format === 'BinarySI' && abs >= 1024n * NANO && abs % NANO === 0n) {
    let mantissa = abs / NANO;
    let power = 0;
    while (mantissa % 1024n === 0n && power < BINARY_BY_POWER.length - 1) {
      mantissa /= 1024n;
      power++;
    }
    return `${sign}${mantissa}${BINARY_BY_POWER[power]}`;
  }
  // Strip trailing zeros into the exponent, then bring the exponent down to a multiple of three.
  let mantissa = abs;
  let exponent = -9;
  while (mantissa % 10n === 0n) {
    mantissa /= 10n;
    exponent++;
  }
  while (((exponent % 3) + 3) % 3 !== 0) {
    mantissa *= 10n;
    exponent--;
  }
  const decimalSuffix = DECIMAL_BY_EXPONENT.get(exponent);
  if (q.format !== 'DecimalExponent' && decimalSuffix !== undefined) return `${sign}${mantissa}${decimalSuffix}`;
  return exponent === 0 ? `${sign}${mantissa}` : `${sign}${mantissa}e${exponent}`;
}

/**
 * Parses and prints in canonical form in one step: the form the apiserver stores. roundToMilli rounds up to a
 * thousandth first, as the defaulting of a container's requests and limits does.
 */
export function canonicalQuantity(input: string | number, roundToMilli = false): string {
  const key = `${roundToMilli ? 'm' : ''}${typeof input === 'number' ? 'n' : 's'}${input}`;
  const known = canonicalByText.get(key);
  if (known !== undefined) return known;
  const q = parseQuantity(input);
  return canonicalByText.remember(key, formatQuantity(roundToMilli ? roundUp(q, -3) : q));
}

/**
 * The resource.Quantity that upstream's ParseQuantity makes of a text, as Go's `%#v` prints it — what field.Invalid
 * shows for a *Quantity (String needs a pointer, so the struct itself is printed), e.g.
 * `resource.Quantity{i:resource.int64Amount{value:-1, scale:0}, d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:"-1", Format:"DecimalSI"}`.
 * Only ParseQuantity's exact int64 form prints the same every time; a value it keeps as an inf.Dec prints a memory
 * address, and is given as its canonical text instead. A JSON number is read from JavaScript's text of it, which
 * may differ from the client's (`-1.0` arrives as -1).
 */
export function goQuantityStruct(input: string | number): string {
  const text = typeof input === 'number' ? String(input) : input.trim();
  const struct = (value: bigint, scale: number, s: string, format: QuantityFormat) =>
    `resource.Quantity{i:resource.int64Amount{value:${value}, scale:${scale}}, d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:${JSON.stringify(s)}, Format:"${format}"}`;
  if (text === '0') return struct(0n, 0, text, 'DecimalSI');
  let pieces: Pieces;
  let suffix: ReturnType<typeof interpretSuffix>;
  try {
    pieces = scan(text);
    suffix = interpretSuffix(pieces.suffix);
  } catch {
    return text;
  }
  const num = pieces.whole.replace(/^0+/, '') || '0';
  const denom = pieces.fraction;
  let scale = 0;
  let precision = -1;
  let mantissa = 1n;
  if (suffix.format === 'BinarySI') {
    if (suffix.exponent >= 0 && denom.length === 0) {
      mantissa = 1n << BigInt(suffix.exponent);
      precision = 15 - num.length - Math.trunc((suffix.exponent * 3) / 10) - 1;
    }
  } else {
    scale = suffix.exponent;
    precision = 18 - (num.length + denom.length);
  }
  scale -= denom.length;
  if (precision < 0 || scale < -9) return formatQuantity(parseQuantity(input));
  const shifted = `${num}${denom}`;
  const value = BigInt(shifted);
  const product = value * mantissa;
  if (product > (1n << 63n) - 1n) return formatQuantity(parseQuantity(input));
  const result = pieces.negative ? -product : product;
  const canonical =
    suffix.format === 'BinarySI'
      ? suffix.exponent % 10 === 0 && (value & 7n) !== 0n
      : scale % 3 === 0 && !shifted.endsWith('000') && shifted[0] !== '0';
  return struct(result, scale, canonical ? text : '', suffix.format);
}
