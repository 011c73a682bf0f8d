/**
 * The `$`-directives of a strategic merge patch that are not list merging itself: `$retainKeys`, the check of a
 * `$setElementOrder/<field>` list against the patch list, the parsing of prefixed directive keys, and the clean-up
 * of patch values that land where nothing was before (drop `$patch` maps, drop null members).
 */
import { formatGoValue } from './go-format.js';
import { deleteKey, hasKey, isJsonObject, type JsonObject, setKey } from './json-value.js';
import {
  badArgType,
  badPrimitiveListFormat,
  badRetainKeysFormat,
  badSetElementOrderFormat,
  noMergeKey,
  unknown,
} from './strategic-errors.js';
import { splitDeleteDirectives } from './strategic-list-order.js';

export const DIRECTIVE = '$patch';
export const RETAIN_KEYS = '$retainKeys';
export const SET_ELEMENT_ORDER_PREFIX = '$setElementOrder';
export const DELETE_FROM_PRIMITIVE_LIST_PREFIX = '$deleteFromPrimitiveList';

/** The field a `$setElementOrder/<field>` or `$deleteFromPrimitiveList/<field>` key names. */
export function directiveField(
  key: string,
  prefix: typeof SET_ELEMENT_ORDER_PREFIX | typeof DELETE_FROM_PRIMITIVE_LIST_PREFIX,
): string {
  const slash = key.indexOf('/');
  if (slash < 0 || key.slice(0, slash) !== prefix) {
    throw prefix === SET_ELEMENT_ORDER_PREFIX ? badSetElementOrderFormat() : badPrimitiveListFormat();
  }
  return key.slice(slash + 1);
}

/**
 * Applies `$retainKeys` (wherever it appears, as upstream does): every non-null field of the patch must be listed,
 * and fields of `original` not listed are cleared. Removes the directive from `patch`.
 */
export function applyRetainKeys(original: JsonObject, patch: JsonObject): void {
  if (!hasKey(patch, RETAIN_KEYS)) return;
  const listed = patch[RETAIN_KEYS];
  deleteKey(patch, RETAIN_KEYS);
  if (!Array.isArray(listed)) throw badRetainKeysFormat();
  const retained = new Set(listed);
  for (const [key, value] of Object.entries(patch)) {
    if (
      value === null ||
      key.startsWith(DELETE_FROM_PRIMITIVE_LIST_PREFIX) ||
      key.startsWith(SET_ELEMENT_ORDER_PREFIX)
    ) {
      continue;
    }
    if (!retained.has(key)) throw badRetainKeysFormat();
  }
  for (const key of Object.keys(original)) {
    if (!retained.has(key)) deleteKey(original, key);
  }
}

/**
 * Checks that the patch list's elements (those without `$patch`) appear in the `$setElementOrder` list, in the same
 * relative order.
 */
export function checkSetElementOrder(patchList: readonly unknown[], order: readonly unknown[], mergeKey: string): void {
  if (order.length === 0 || patchList.length === 0) return;
  const items = mergeKey === '' ? patchList : splitDeleteDirectives(patchList)[0];
  let p = 0;
  let o = 0;
  while (p < items.length && o < order.length) {
    const item = items[p];
    if (isJsonObject(item) && hasKey(item, DIRECTIVE)) {
      p++;
      continue;
    }
    if (sameElement(item, order[o], mergeKey)) p++;
    o++;
  }
  if (p < items.length && o >= order.length) {
    throw unknown(
      `The order in patch list:\n${formatGoValue(patchList)}\n doesn't match ${SET_ELEMENT_ORDER_PREFIX} list:\n${formatGoValue(order)}\n`,
    );
  }
}

function sameElement(left: unknown, right: unknown, mergeKey: string): boolean {
  if (mergeKey === '') return left === right;
  if (!isJsonObject(left)) throw badArgType('map', left);
  if (!isJsonObject(right)) throw badArgType('map', right);
  if (!hasKey(left, mergeKey)) throw noMergeKey(left, mergeKey);
  if (!hasKey(right, mergeKey)) throw noMergeKey(right, mergeKey);
  return left[mergeKey] === right[mergeKey];
}

/**
 * Drops maps holding `$patch` (and list elements that are such maps), in place. Returns whether the value itself
 * is kept. Other directives are left as they are, as upstream does.
 */
export function removeDirectives(value: unknown): { value: unknown; keep: boolean } {
  if (Array.isArray(value)) {
    const kept: unknown[] = [];
    for (const element of value) {
      const cleaned = removeDirectives(element);
      if (cleaned.keep) kept.push(cleaned.value);
    }
    return { value: kept, keep: true };
  }
  if (isJsonObject(value)) {
    if (hasKey(value, DIRECTIVE)) return { value: undefined, keep: false };
    // for-in (no array of entries made); deleting the key being visited is allowed.
    for (const key in value) {
      const cleaned = removeDirectives(value[key]);
      if (cleaned.keep) setKey(value, key, cleaned.value);
      else deleteKey(value, key);
    }
  }
  return { value, keep: true };
}

/** Drops null members of maps at any depth (inside lists too), in place. */
export function discardNullMembers(value: unknown): void {
  if (Array.isArray(value)) {
    for (const element of value) discardNullMembers(element);
  } else if (isJsonObject(value)) {
    for (const key in value) {
      const member = value[key];
      if (member === null) deleteKey(value, key);
      else discardNullMembers(member);
    }
  }
}
