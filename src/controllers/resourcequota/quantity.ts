/**
 * Kubernetes resource quantities (`250m`, `1Gi`, `2e3`) for quota arithmetic: parse, add, compare, and print in
 * the canonical form the apiserver stores and kubectl shows (`1000m` prints as `1`, `1024Mi` as `1Gi`).
 *
 * A value is held exactly as an integer count of nano-units (anything finer is rounded up, as apimachinery does),
 * together with the notation it was written in, which decides how it prints. Sums take the notation of their first
 * non-zero term, as apimachinery's Quantity.Add does.
 */

export type QuantityFormat = 'DecimalSI' | 'BinarySI' | 'DecimalExponent';

export interface Quantity {
  /** The value × 10^9. */
  readonly nanos: bigint;
  readonly format: QuantityFormat;
}

export class QuantityParseError extends Error {
  override name = 'QuantityParseError';
}

const NANOS_PER_UNIT = 1_000_000_000n;

/** Decimal SI suffixes and their powers of ten. */
const DECIMAL_POWERS: ReadonlyMap<string, number> = new Map([
  ['n', -9],
  ['u', -6],
  ['m', -3],
  ['', 0],
  ['k', 3],
  ['M', 6],
  ['G', 9],
  ['T', 12],
  ['P', 15],
  ['E', 18],
]);
const SUFFIX_OF_DECIMAL_POWER: ReadonlyMap<number, string> = new Map(
  [...DECIMAL_POWERS].map(([suffix, power]) => [power, suffix]),
);
/** Binary SI suffixes and their powers of two. */
const BINARY_POWERS: ReadonlyMap<string, number> = new Map([
  ['Ki', 10],
  ['Mi', 20],
  ['Gi', 30],
  ['Ti', 40],
  ['Pi', 50],
  ['Ei', 60],
]);
const BINARY_SUFFIXES = ['', 'Ki', 'Mi', 'Gi', 'Ti', 'Pi', 'Ei'];

const SYNTAX = /^([+-]?)(\d*)(?:\.(\d*))?([a-zA-Z]*(?:[+-]?\d+)?)$/;

export const ZERO: Quantity = { nanos: 0n, format: 'DecimalSI' };

/** Ceiling division for a non-negative numerator (sub-nano precision rounds up). */
function divCeil(numerator: bigint, denominator: bigint): bigint {
  const q = numerator / denominator;
  return numerator % denominator === 0n ? q : q + 1n;
}

/** Reads a quantity from its text (or a JSON number); throws QuantityParseError when it is not one. */
export function parseQuantity(input: string | number): Quantity {
  const text = String(input).trim();
  const m = SYNTAX.exec(text);
  if (!m || text === '' || ((m[2] ?? '') === '' && (m[3] ?? '') === '')) {
    throw new QuantityParseError(`quantity ${JSON.stringify(text)} is not a valid Kubernetes quantity`);
  }
  const negative = m[1] === '-';
  const whole = m[2] ?? '';
  const fraction = m[3] ?? '';
  const suffix = m[4] ?? '';
  let format: QuantityFormat;
  let numerator = BigInt(`${whole}${fraction}` || '0') * NANOS_PER_UNIT;
  let denominator = 10n ** BigInt(fraction.length);
  const decimal = DECIMAL_POWERS.get(suffix);
  const binary = BINARY_POWERS.get(suffix);
  if (decimal !== undefined) {
    format = 'DecimalSI';
    if (decimal >= 0) numerator *= 10n ** BigInt(decimal);
    else denominator *= 10n ** BigInt(-decimal);
  } else if (binary !== undefined) {
    format = 'BinarySI';
    numerator *= 1n << BigInt(binary);
  } else if (/^[eE][+-]?\d+$/.test(suffix)) {
    format = 'DecimalExponent';
    const power = Number(suffix.slice(1));
    if (power >= 0) numerator *= 10n ** BigInt(power);
    else denominator *= 10n ** BigInt(-power);
  } else {
    throw new QuantityParseError(`quantity ${JSON.stringify(text)} has an unknown suffix`);
  }
  const nanos = divCeil(numerator, denominator);
  return { nanos: negative ? -nanos : nanos, format };
}

/** A whole number of units, printed in decimal notation. */
export function quantityFromInt(n: number | bigint): Quantity {
  return { nanos: BigInt(n) * NANOS_PER_UNIT, format: 'DecimalSI' };
}

/** a + b; a zero left-hand side takes the right-hand side's notation. */
export function addQuantity(a: Quantity, b: Quantity): Quantity {
  return { nanos: a.nanos + b.nanos, format: a.nanos === 0n ? b.format : a.format };
}

export function compareQuantity(a: Quantity, b: Quantity): number {
  return a.nanos < b.nanos ? -1 : a.nanos > b.nanos ? 1 : 0;
}

function formatDecimal(sign: string, abs: bigint, format: QuantityFormat): string {
  // Strip trailing zeros into the exponent, then bring the exponent down to a multiple of three.
  let mantissa = abs;
  let power = -9;
  while (mantissa % 10n === 0n) {
    mantissa /= 10n;
    power++;
  }
  while (power % 3 !== 0) {
    mantissa *= 10n;
    power--;
  }
  if (format === 'DecimalSI') {
    const suffix = SUFFIX_OF_DECIMAL_POWER.get(power);
    if (suffix !== undefined) return `${sign}${mantissa}${suffix}`;
  }
  return power === 0 ? `${sign}${mantissa}` : `${sign}${mantissa}e${power}`;
}

/** The canonical text of a quantity (apimachinery's Quantity.String()). */
export function formatQuantity(q: Quantity): string {
  if (q.nanos === 0n) return '0';
  const sign = q.nanos < 0n ? '-' : '';
  const abs = q.nanos < 0n ? -q.nanos : q.nanos;
  if (q.format === 'BinarySI') {
    // Below 1024, or not a whole number, binary notation would round: print as decimal instead.
    if (abs < 1024n * NANOS_PER_UNIT || abs % NANOS_PER_UNIT !== 0n) return formatDecimal(sign, abs, 'DecimalSI');
    let mantissa = abs / NANOS_PER_UNIT;
    let step = 0;
    while (mantissa % 1024n === 0n && step < BINARY_SUFFIXES.length - 1) {
      mantissa /= 1024n;
      step++;
    }
    return `${sign}${mantissa}${BINARY_SUFFIXES[step]}`;
  }
  return formatDecimal(sign, abs, q.format);
}

/** Parses and prints again: the form the apiserver would store. */
export function canonicalQuantity(input: string | number): string {
  return formatQuantity(parseQuantity(input));
}
