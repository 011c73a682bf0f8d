/**
 * Merging one list of a strategic merge patch into the live list, for fields whose patch strategy is `merge` (and
 * for `$deleteFromPrimitiveList`): scalars merge as a set, maps merge element by element on the merge key, and list
 * elements may carry `$patch: delete` (drop the live elements with that key) or `$patch: replace` (the patch's
 * elements replace the live list). Works in place on values the caller owns, as upstream does.
 */
import type { SchemaNode } from '../schema-node.js';
import { hasKey, type JsonObject } from './json-value.js';
import { badPatchType, noMergeKey, unknown } from './strategic-errors.js';
import {
  elementKind,
  findByMergeKey,
  normalizeElementOrder,
  partitionMaps,
  partitionScalars,
} from './strategic-list-order.js';

/** Merges one map element of the patch into the live element with the same key. */
export type MergeElement = (original: JsonObject, patch: JsonObject, schema: SchemaNode | undefined) => unknown;

export function mergeList(
  original: unknown[],
  patch: unknown[],
  elementSchema: SchemaNode | undefined,
  mergeKey: string,
  isDeleteList: boolean,
  mergeElement: MergeElement,
): unknown[] {
  if (original.length === 0 && patch.length === 0) return original;
  const kind = elementKind(original, patch);
  let base = original;
  let patchItems = patch;
  let merged: unknown[];
  if (kind === 'scalar') {
    if (isDeleteList) return deleteScalars(original, patch);
    merged = dedupeScalars([...original, ...patch]);
  } else {
    if (mergeKey === '') {
      throw unknown(
        `cannot merge lists without merge key for ${elementSchema?.type === 'object' ? 'struct' : 'interface'}`,
      );
    }
    const directives = applyElementDirectives(original, patch, mergeKey);
    base = directives.live;
    patchItems = directives.plain;
    const shared = directives.replaced ? undefined : original;
    merged = mergeByKey(base, patchItems, mergeKey, elementSchema, mergeElement, shared);
  }
  const [inPatch, serverOnly] =
    mergeKey === '' ? partitionScalars(merged, patchItems) : partitionMaps(merged, patchItems, mergeKey);
  return normalizeElementOrder(inPatch, serverOnly, patchItems, base, mergeKey, kind);
}

/**
 * Handles the patch elements that hold `$patch`. Returns the live elements left to merge into and the plain patch
 * elements; with `$patch: replace` the plain patch elements become the live list and nothing is left to merge.
 *
 * Upstream deletes by shifting elements left inside the live list's Go backing array, and appends new elements into
 * the room that frees. The caller still holds the live list at its old length and uses it afterwards as the server's
 * order for `$setElementOrder`, so that order sees the shift. `original` is changed in place to show the caller what
 * Go would show it.
 */
function applyElementDirectives(
  original: unknown[],
  patch: unknown[],
  mergeKey: string,
): { live: unknown[]; plain: unknown[]; replaced: boolean } {
  const plain: unknown[] = [];
  let liveLength = original.length;
  let replace = false;
  for (const item of patch) {
    const element = item as JsonObject;
    if (!hasKey(element, '$patch')) {
      plain.push(element);
      continue;
    }
    const directive = element.$patch;
    if (directive === 'delete') {
      if (!hasKey(element, mergeKey)) throw noMergeKey(element, mergeKey);
      liveLength = deleteByKey(original, liveLength, mergeKey, element[mergeKey]);
    } else if (directive === 'replace') {
      replace = true;
    } else if (directive === 'merge') {
      throw unknown('merging lists cannot yet be specified in the patch');
    } else {
      throw badPatchType(directive, element);
    }
  }
  if (replace) return { live: plain, plain: [], replaced: true };
  return { live: original.slice(0, liveLength), plain, replaced: false };
}

/** Removes every element with the key value from the first `length` elements by shifting; returns the new length. */
function deleteByKey(list: unknown[], length: number, mergeKey: string, value: unknown): number {
  let live = length;
  for (let found = findByMergeKey(list.slice(0, live), mergeKey, value); found; ) {
    list.copyWithin(found.index, found.index + 1, live);
    live--;
    found = findByMergeKey(list.slice(0, live), mergeKey, value);
  }
  return live;
}

/**
 * Patch elements merge into the live element with the same key value, or are appended. Appends that fall inside
 * `shared` (the caller's view of the live list, see applyElementDirectives) are written there too.
 */
function mergeByKey(
  original: unknown[],
  patch: unknown[],
  mergeKey: string,
  schema: SchemaNode | undefined,
  mergeElement: MergeElement,
  shared: unknown[] | undefined,
): unknown[] {
  const out = [...original];
  for (const item of patch) {
    const element = item as JsonObject;
    if (!hasKey(element, mergeKey)) throw noMergeKey(element, mergeKey);
    const found = findByMergeKey(out, mergeKey, element[mergeKey]);
    if (found) {
      out[found.index] = mergeElement(found.element, element, schema);
    } else {
      if (shared && out.length < shared.length) shared[out.length] = element;
      out.push(element);
    }
  }
  return out;
}

function deleteScalars(current: unknown[], toDelete: unknown[]): unknown[] {
  const drop = new Set(toDelete);
  return current.filter((v) => !drop.has(v));
}

/** Upstream's in-place de-duplication: a duplicate is overwritten by the last element (the order changes). */
function dedupeScalars(list: unknown[]): unknown[] {
  const s = list;
  let last = s.length - 1;
  for (let i = 0; i < last; i++) {
    for (let j = i + 1; j <= last; j++) {
      if (s[i] === s[j]) {
        s[j] = s[last];
        s.length = last;
        last--;
        j--;
      }
    }
  }
  return s;
}
