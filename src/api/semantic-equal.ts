/**
 * apiequality.Semantic.DeepEqual as far as decoded JSON shows it: an absent field, null, an empty list and an empty
 * map (or a map of only such values) are all the same; everything else compares by value. Upstream's immutability
 * checks and controllers' comparisons use it.
 */
const isEmpty = (v: unknown): boolean =>
  v === undefined ||
  v === null ||
  (Array.isArray(v) && v.length === 0) ||
  (typeof v === 'object' && !Array.isArray(v) && Object.keys(v as object).every((k) => isEmpty((v as never)[k])));

export function semanticEqual(a: unknown, b: unknown): boolean {
  if (isEmpty(a) && isEmpty(b)) return true;
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b)) {
    return a.length === b.length && a.every((v, i) => semanticEqual(v, b[i]));
  }
  const ra = a as Record<string, unknown>;
  const rb = b as Record<string, unknown>;
  for (const k of new Set([...Object.keys(ra), ...Object.keys(rb)])) {
    if (!semanticEqual(ra[k], rb[k])) return false;
  }
  return true;
}
