/**
 * Resource lists (`{cpu: 500m, memory: 1Gi}`) as quota arithmetic sees them: maps from resource name to Quantity,
 * with the operations apiserver's quota package offers (add, max, mask, equals) and conversion to and from the
 * JSON objects objects carry.
 */
import { addQuantities, compareQuantities, formatQuantity, parseQuantity, type Quantity } from '../quantity.js';

export type ResourceList = Map<string, Quantity>;

/** Reads a JSON resource list; entries that are not quantities are skipped. */
export function parseResourceList(obj: unknown): ResourceList {
  const out: ResourceList = new Map();
  if (obj === null || typeof obj !== 'object') return out;
  for (const [name, value] of Object.entries(obj as Record<string, unknown>)) {
    if (typeof value !== 'string' && typeof value !== 'number') continue;
    try {
      out.set(name, parseQuantity(value));
    } catch {
      // The apiserver validates quantities; anything unreadable is left out.
    }
  }
  return out;
}

/** The JSON form, keys sorted (as Go encodes maps). */
export function formatResourceList(list: ResourceList): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of [...list.keys()].sort()) {
    const q = list.get(name);
    if (q) out[name] = formatQuantity(q);
  }
  return out;
}

/** a + b, as a new list: names of either, summed where both have them. */
export function addLists(a: ResourceList, b: ResourceList): ResourceList {
  const out: ResourceList = new Map(a);
  for (const [name, q] of b) {
    const have = out.get(name);
    out.set(name, have ? addQuantities(have, q) : q);
  }
  return out;
}

/** Adds b into a in place. */
export function addInto(a: ResourceList, b: ResourceList): void {
  for (const [name, q] of b) {
    const have = a.get(name);
    a.set(name, have ? addQuantities(have, q) : q);
  }
}

/** Raises each of a's entries to b's where b's is larger (or a lacks it), in place. */
export function maxInto(a: ResourceList, b: ResourceList): void {
  for (const [name, q] of b) {
    const have = a.get(name);
    if (!have || compareQuantities(q, have) > 0) a.set(name, q);
  }
}

/** Only the entries whose names are in names. */
export function mask(list: ResourceList, names: Iterable<string>): ResourceList {
  const keep = new Set(names);
  return new Map([...list].filter(([name]) => keep.has(name)));
}

/** Same names with equal values (quota.Equals). */
export function listsEqual(a: ResourceList, b: ResourceList): boolean {
  if (a.size !== b.size) return false;
  for (const [name, q] of a) {
    const other = b.get(name);
    if (!other || compareQuantities(q, other) !== 0) return false;
  }
  return true;
}

/** a − b for each of a's names, never below zero (quota.SubtractWithNonNegativeResult). */
export function subtractNonNegative(a: ResourceList, b: ResourceList): ResourceList {
  const out: ResourceList = new Map();
  for (const [name, q] of a) {
    const other = b.get(name);
    const nanos = other ? q.nanos - other.nanos : q.nanos;
    out.set(name, { nanos: nanos > 0n ? nanos : 0n, format: q.format });
  }
  return out;
}
