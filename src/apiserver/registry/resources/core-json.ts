/**
 * Readers for the decoded JSON of core/v1 objects. Objects arrive as clients sent them, so every field may be
 * missing or of the wrong type; these return a safe empty value instead of throwing.
 */

import { type Rec, rec } from '../../../api/json-readers.js';
import { isObject } from '../object.js';

export { arr, type Rec, rec, recs, str } from '../../../api/json-readers.js';

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
