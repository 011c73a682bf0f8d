/**
 * How Go would print a decoded JSON value in an error message, so that errors which kube-apiserver sends to clients
 * verbatim read the same here. Go decodes JSON objects as map[string]interface{}, arrays as []interface{}, and
 * (in the apiserver's patch decoding) whole numbers as int64 and other numbers as float64.
 */
import { isJsonObject } from './json-value.js';

/** The kind word of Go's "json: cannot unmarshal <kind> into Go value of type …" errors. */
export function jsonKindWord(value: unknown): string {
  if (Array.isArray(value)) return 'array';
  if (isJsonObject(value)) return 'object';
  if (typeof value === 'boolean') return 'bool';
  return typeof value;
}

/** reflect.TypeOf(value).String(), as printed with %s (a nil type prints as `%!s(<nil>)`). */
export function goTypeName(value: unknown): string {
  if (value === null || value === undefined) return '%!s(<nil>)';
  if (Array.isArray(value)) return '[]interface {}';
  if (isJsonObject(value)) return 'map[string]interface {}';
  if (typeof value === 'number') return Number.isInteger(value) ? 'int64' : 'float64';
  if (typeof value === 'boolean') return 'bool';
  return 'string';
}

/** The text of fmt's %v for a decoded JSON value: `map[a:1 b:[x y]]`, `<nil>`, … (map keys sorted, as fmt does). */
export function formatGoValue(value: unknown): string {
  if (value === null || value === undefined) return '<nil>';
  if (Array.isArray(value)) return `[${value.map(formatGoValue).join(' ')}]`;
  if (isJsonObject(value)) {
    const keys = Object.keys(value).sort();
    return `map[${keys.map((k) => `${k}:${formatGoValue(value[k])}`).join(' ')}]`;
  }
  if (typeof value === 'number') return formatGoNumber(value);
  return String(value);
}

/** fmt's %s: strings as they are, anything else as `%!s(type=value)`. */
export function formatGoString(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === null || value === undefined) return '%!s(<nil>)';
  if (Array.isArray(value) || isJsonObject(value)) return formatGoValue(value);
  return `%!s(${goTypeName(value)}=${formatGoValue(value)})`;
}

function formatGoNumber(n: number): string {
  if (Number.isInteger(n) || !Number.isFinite(n)) return String(n);
  const abs = Math.abs(n);
  // %v of a float64 switches to exponent form below 1e-4 and from 1e21 up, with at least two exponent digits.
  if (abs < 1e-4 || abs >= 1e21) {
    return n.toExponential().replace(/e([+-])(\d)$/, 'e$10$2');
  }
  return String(n);
}
