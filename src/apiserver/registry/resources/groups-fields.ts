/**
 * Small readers and writers for objects decoded from JSON, where any field may be missing, null or of the wrong
 * type. Shared by the strategies of the named API groups.
 */
import { isObject } from '../object.js';
import { arr as list, type Rec } from './core-json.js';

export { child, rec, str } from './core-json.js';
export type { Rec };
export { list };

/** A number field, 0 when absent or not a number. */
export const num = (v: unknown): number => (typeof v === 'number' ? v : 0);
/** Whether a field is absent, as a nil pointer is in Go. */
export const unset = (v: unknown): v is null | undefined => v === undefined || v === null;

/** Sets obj[key] when it is absent (a nil pointer upstream). */
export function defaultValue(obj: Rec, key: string, value: unknown): void {
  if (unset(obj[key])) obj[key] = value;
}

/** Sets obj[key] when it is absent or the empty string (a zero-valued string upstream). */
export function defaultString(obj: Rec, key: string, value: string): void {
  if (unset(obj[key]) || obj[key] === '') obj[key] = value;
}

/** Sets obj[key] when it is absent or 0 (a zero-valued number upstream). */
export function defaultNumber(obj: Rec, key: string, value: number): void {
  if (unset(obj[key]) || obj[key] === 0) obj[key] = value;
}

/** The objects of an array field (entries that are not objects are skipped). */
export function records(v: unknown): Rec[] {
  return list(v).filter(isObject);
}

/** A map of strings, as labels and selectors hold them; undefined when absent. */
export function stringMap(v: unknown): Record<string, string> | undefined {
  if (!isObject(v)) return undefined;
  const out: Record<string, string> = {};
  for (const [k, val] of Object.entries(v)) out[k] = typeof val === 'string' ? val : String(val);
  return out;
}
