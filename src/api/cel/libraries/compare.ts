/** Ordering of CEL values of one kind (ints, uints, doubles, strings, bools, bytes, timestamps, durations). */
import { CelEvaluationError } from '../errors.js';

function kindOf(v: unknown): string {
  if (typeof v === 'bigint') return 'int';
  if (typeof v === 'number') return 'double';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'bool';
  if (v instanceof Uint8Array) return 'bytes';
  if (v instanceof Date) return 'timestamp';
  if (v !== null && typeof v === 'object' && typeof (v as { valueOf(): unknown }).valueOf() === 'bigint') return 'int';
  return 'other';
}

function numeric(v: unknown): bigint | number {
  if (typeof v === 'bigint' || typeof v === 'number') return v;
  return (v as { valueOf(): bigint }).valueOf();
}

/** -1, 0 or 1; numbers of different kinds compare by value (cross-type numeric comparisons, as upstream enables). */
export function compareCel(a: unknown, b: unknown): number {
  const ka = kindOf(a);
  const kb = kindOf(b);
  const numbers = (k: string) => k === 'int' || k === 'double';
  if (numbers(ka) && numbers(kb)) {
    const x = numeric(a);
    const y = numeric(b);
    return x < y ? -1 : x > y ? 1 : 0;
  }
  if (ka !== kb || ka === 'other') throw new CelEvaluationError(`no such overload: ${ka} < ${kb}`);
  if (ka === 'bytes') {
    const x = a as Uint8Array;
    const y = b as Uint8Array;
    for (let i = 0; i < Math.min(x.length, y.length); i++) {
      const d = (x[i] ?? 0) - (y[i] ?? 0);
      if (d !== 0) return Math.sign(d);
    }
    return Math.sign(x.length - y.length);
  }
  if (ka === 'timestamp') return Math.sign((a as Date).getTime() - (b as Date).getTime());
  const x = a as string | boolean;
  const y = b as string | boolean;
  return x < y ? -1 : x > y ? 1 : 0;
}

/** CEL equality of two plain values (deep for lists and maps). */
export function equalCel(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a === 'bigint' || typeof a === 'number') {
    return (typeof b === 'bigint' || typeof b === 'number') && compareCel(a, b) === 0;
  }
  if (Array.isArray(a)) {
    return Array.isArray(b) && a.length === b.length && a.every((x, i) => equalCel(x, b[i]));
  }
  if (a instanceof Uint8Array) return b instanceof Uint8Array && compareCel(a, b) === 0;
  if (a instanceof Date) return b instanceof Date && a.getTime() === b.getTime();
  if (a !== null && b !== null && typeof a === 'object' && typeof b === 'object') {
    const ma = celMapOf(a);
    const mb = celMapOf(b);
    if (ma && mb) return ma.size === mb.size && [...ma].every(([k, v]) => mb.has(k) && equalCel(v, mb.get(k)));
    const pa = Object.getPrototypeOf(a);
    return !ma && !mb && String(a) === String(b) && pa === Object.getPrototypeOf(b);
  }
  return false;
}

/**
 * A CEL map's entries: maps are plain objects, or Maps where a key would clash with an object's own machinery
 * (`constructor`, `__proto__`); undefined for any other value.
 */
export function celMapOf(v: unknown): Map<unknown, unknown> | undefined {
  if (v instanceof Map) return v;
  if (v === null || typeof v !== 'object' || Object.getPrototypeOf(v) !== Object.prototype) return undefined;
  return new Map(Object.entries(v as Record<string, unknown>));
}
