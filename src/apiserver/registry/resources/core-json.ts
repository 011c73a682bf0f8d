/**
 * Readers for the decoded JSON of core/v1 objects. Objects arrive as clients sent them, so every field may be
 * missing or of the wrong type; these return a safe empty value instead of throwing.
 */
import { isObject } from '../object.js';

export type Rec = Record<string, unknown>;

/** The object at v, or a fresh empty one. */
export const rec = (v: unknown): Rec => (isObject(v) ? v : {});

/** The array at v (objects only when `objects`), or an empty one. */
export const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

/** The objects of the array at v; entries that are not objects become empty objects. */
export const recs = (v: unknown): Rec[] => arr(v).map(rec);

export const str = (v: unknown): string => (typeof v === 'string' ? v : '');

export const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

/** The object at obj[key], created (and stored) when missing or not an object. */
export function child(obj: Rec, key: string): Rec {
  const v = obj[key];
  if (isObject(v)) return v;
  const fresh: Rec = {};
  obj[key] = fresh;
  return fresh;
}

/** A map of strings (labels, selectors); non-string values are dropped. */
export function stringMap(v: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, val] of Object.entries(rec(v))) if (typeof val === 'string') out[k] = val;
  return out;
}
