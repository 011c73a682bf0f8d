/**
 * The element order of a merged list, as upstream's strategic merge patch computes it: elements named in the patch
 * (or in `$setElementOrder`) keep the patch's order, elements only the server has keep the server's order, and the
 * two runs are interleaved by the server's order where both are known.
 */
import { formatGoValue } from './go-format.js';
import { sliceStable } from './go-stable-sort.js';
import { getKey, hasKey, isJsonObject, type JsonObject } from './json-value.js';
import { badArgType, noListOfLists, noMergeKey, unknown } from './strategic-errors.js';

/** Whether a list's elements are maps (merged by key) or scalars (merged as a set). */
export type ElementKind = 'map' | 'scalar';

/** The common element type of the lists; fails for lists of lists, mixed types, or no elements at all. */
export function elementKind(...lists: readonly unknown[][]): ElementKind {
  let first: string | undefined;
  for (const list of lists) {
    for (const element of list) {
      const type = elementType(element);
      if (first === undefined) {
        first = type;
        if (type === 'list') throw noListOfLists();
      } else if (type !== first) {
        throw unknown(`list element types are not identical: ${formatGoValue(lists)}`);
      }
    }
  }
  if (first === undefined) throw unknown('no elements in any of the given slices');
  return first === 'map' ? 'map' : 'scalar';
}

function elementType(value: unknown): string {
  if (value === null || value === undefined) return 'nil';
  if (Array.isArray(value)) return 'list';
  if (isJsonObject(value)) return 'map';
  if (typeof value === 'number') return Number.isInteger(value) ? 'int64' : 'float64';
  return typeof value;
}

/** Sorts `patchItems` by `patchOrder` and `serverOnly` by `serverOrder`, then interleaves them. */
export function normalizeElementOrder(
  patchItems: unknown[],
  serverOnly: unknown[],
  patchOrder: readonly unknown[],
  serverOrder: readonly unknown[],
  mergeKey: string,
  kind: ElementKind,
): unknown[] {
  const patchSorted = sortByOrder(patchItems, patchOrder, mergeKey, kind);
  const serverSorted = sortByOrder(serverOnly, serverOrder, mergeKey, kind);
  return interleave(serverSorted, patchSorted, serverOrder, mergeKey, kind);
}

function sortByOrder(items: unknown[], order: readonly unknown[], mergeKey: string, kind: ElementKind): unknown[] {
  let toSort = [...items];
  let toDelete: unknown[] = [];
  if (kind === 'map') {
    requireMergeKey(mergeKey, toSort, order);
    [toSort, toDelete] = splitDeleteDirectives(toSort);
  }
  sliceStable(toSort, (i, j) => {
    const ii = indexIn(order, toSort[i], mergeKey, kind);
    if (ii >= 0) {
      const ij = indexIn(order, toSort[j], mergeKey, kind);
      if (ij >= 0) return ii < ij;
    }
    return true;
  });
  return [...toSort, ...toDelete];
}

/**
 * Inserts server-only items (`left`) among patch items (`right`): at each step the server item goes first only when
 * both are in the server's list and it comes earlier there; otherwise the patch item goes first.
 */
function interleave(
  left: unknown[],
  right: unknown[],
  serverOrder: readonly unknown[],
  mergeKey: string,
  kind: ElementKind,
): unknown[] {
  const out: unknown[] = [];
  let i = 0;
  let j = 0;
  while (i < left.length || j < right.length) {
    if (i >= left.length) out.push(right[j++]);
    else if (j >= right.length) out.push(left[i++]);
    else {
      const li = indexIn(serverOrder, left[i], mergeKey, kind);
      const ri = indexIn(serverOrder, right[j], mergeKey, kind);
      if (li >= 0 && ri >= 0 && li < ri) out.push(left[i++]);
      else out.push(right[j++]);
    }
  }
  return out;
}

/** Position of `value` in `list`, by merge key value for maps and by value for scalars; -1 when absent. */
function indexIn(list: readonly unknown[], value: unknown, mergeKey: string, kind: ElementKind): number {
  const keyOf = (item: unknown): unknown =>
    kind === 'map' ? (isJsonObject(item) && hasKey(item, mergeKey) ? item[mergeKey] : null) : item;
  const wanted = keyOf(value);
  return list.findIndex((item) => keyOf(item) === wanted);
}

/** Every element of every list must be a map holding the merge key. */
export function requireMergeKey(mergeKey: string, ...lists: readonly (readonly unknown[])[]): void {
  for (const list of lists) {
    for (const item of list) {
      if (!isJsonObject(item)) throw badArgType('map', item);
      if (!hasKey(item, mergeKey)) throw noMergeKey(item, mergeKey);
    }
  }
}

/** Splits list elements into those without and those with `$patch: delete`. */
export function splitDeleteDirectives(list: readonly unknown[]): [unknown[], unknown[]] {
  const keep: unknown[] = [];
  const remove: unknown[] = [];
  for (const item of list) {
    if (!isJsonObject(item)) throw badArgType('map', item);
    (getKey(item, '$patch') === 'delete' ? remove : keep).push(item);
  }
  return [keep, remove];
}

/** The first map in `list` whose `mergeKey` equals `value`, with its index; fails on a non-map element before it. */
export function findByMergeKey(
  list: readonly unknown[],
  mergeKey: string,
  value: unknown,
): { element: JsonObject; index: number } | undefined {
  for (const [index, element] of list.entries()) {
    if (!isJsonObject(element)) throw unknown(`value for key ${index} is not a map`);
    if (hasKey(element, mergeKey) && element[mergeKey] === value) return { element, index };
  }
  return undefined;
}

/** Splits scalars into those present in `by` and the rest, keeping their order. */
export function partitionScalars(list: readonly unknown[], by: readonly unknown[]): [unknown[], unknown[]] {
  const present = new Set(by);
  return [list.filter((v) => present.has(v)), list.filter((v) => !present.has(v))];
}

/** Splits maps into those whose merge key value appears in `by` and the rest, keeping their order. */
export function partitionMaps(
  list: readonly unknown[],
  by: readonly unknown[],
  mergeKey: string,
): [unknown[], unknown[]] {
  const inPatch: unknown[] = [];
  const serverOnly: unknown[] = [];
  for (const item of list) {
    if (!isJsonObject(item)) throw badArgType('map', item);
    if (!hasKey(item, mergeKey)) throw noMergeKey(item, mergeKey);
    (findByMergeKey(by, mergeKey, item[mergeKey]) ? inPatch : serverOnly).push(item);
  }
  return [inPatch, serverOnly];
}
