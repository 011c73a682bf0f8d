/**
 * Strategic merge patch (application/strategic-merge-patch+json) applied the way kube-apiserver v1.33 applies it
 * (k8s.io/apimachinery strategicpatch, server side: parallel lists merged, unmatched nulls ignored). The schema of
 * the object's root type says, per field, whether a list merges (patch strategy `merge`, by `patchMergeKey`, or as
 * a set for scalars) or is replaced, and whether a map is replaced (strategy `replace`) or merged.
 *
 * The result is what upstream's map-level patch returns, before the apiserver decodes it into the typed object:
 * like upstream, null members can survive inside replaced lists or newly appended list elements, and directive keys
 * other than `$patch` survive inside values that land where the object had nothing. Decoding drops them upstream.
 */
import type { SchemaNode } from '../schema-node.js';
import type { PatchOptions } from './field-validation.js';
import { jsonKindWord } from './go-format.js';
import { deepCopy, deleteKey, hasKey, isJsonObject, type JsonObject, setKey } from './json-value.js';
import { PatchError } from './patch-error.js';
import {
  applyRetainKeys,
  checkSetElementOrder,
  DELETE_FROM_PRIMITIVE_LIST_PREFIX,
  DIRECTIVE,
  directiveField,
  discardNullMembers,
  removeDirectives,
  SET_ELEMENT_ORDER_PREFIX,
} from './strategic-directives.js';
import { badArgType, badPatchType } from './strategic-errors.js';
import { mergeList } from './strategic-list-merge.js';
import { elementKind, normalizeElementOrder, partitionMaps, partitionScalars } from './strategic-list-order.js';
import { lookupListField, lookupMapField, type PatchMeta } from './strategic-patch-meta.js';

/**
 * Applies `patch` to a copy of `doc` (to doc itself with `options.inPlace`), guided by the schema of doc's type; the
 * patch is never changed.
 */
export function applyStrategicMergePatch(
  doc: unknown,
  patch: unknown,
  schema: SchemaNode | undefined,
  options?: Pick<PatchOptions, 'inPlace'>,
): unknown {
  if (patch !== null && !isJsonObject(patch)) {
    throw new PatchError(
      'BadRequest',
      `json: cannot unmarshal ${jsonKindWord(patch)} into Go value of type map[string]interface {}`,
    );
  }
  if (doc !== null && doc !== undefined && !isJsonObject(doc)) {
    throw new PatchError('BadRequest', 'invalid JSON document');
  }
  const original = isJsonObject(doc) ? (options?.inPlace ? doc : deepCopy(doc)) : {};
  // A `null` body decodes to no patch at all upstream.
  if (patch === null) return original;
  return mergeMap(original, deepCopy(patch), schema);
}

function mergeMap(original: JsonObject, patch: JsonObject, schema: SchemaNode | undefined): JsonObject {
  if (hasKey(patch, DIRECTIVE)) return mapDirective(patch);
  applyRetainKeys(original, patch);
  mergeOrderedLists(original, patch, schema);

  for (const key of Object.keys(patch)) {
    const patchValue = patch[key];
    const isDeleteList = key.startsWith(DELETE_FROM_PRIMITIVE_LIST_PREFIX);
    const field = (isDeleteList && directiveField(key, DELETE_FROM_PRIMITIVE_LIST_PREFIX)) || key;

    if (patchValue === null) {
      deleteKey(original, field);
      continue;
    }
    if (!hasKey(original, field)) {
      if (!isDeleteList) putPatchValue(original, field, patchValue, true);
      continue;
    }
    const current = original[field];
    const kind = valueKind(current);
    if (kind !== valueKind(patchValue)) {
      if (!isDeleteList) putPatchValue(original, field, patchValue, true);
    } else if (kind === 'map') {
      const meta = lookupMapField(schema, field);
      const merged =
        meta.strategy === 'replace'
          ? patchValue
          : mergeMap(current as JsonObject, patchValue as JsonObject, meta.schema);
      setKey(original, field, merged);
    } else if (kind === 'list') {
      const meta = lookupListField(schema, field);
      setKey(original, field, mergeListField(current as unknown[], patchValue as unknown[], meta, isDeleteList));
    } else {
      putPatchValue(original, field, patchValue, false);
    }
  }
  return original;
}

/** A map holding `$patch`: `replace` takes the rest of the patch map as it is, `delete` leaves an empty map. */
function mapDirective(patch: JsonObject): JsonObject {
  const directive = patch[DIRECTIVE];
  if (directive === 'replace') {
    deleteKey(patch, DIRECTIVE);
    return patch;
  }
  if (directive === 'delete') return {};
  throw badPatchType(directive, patch);
}

function mergeListField(original: unknown[], patch: unknown[], meta: PatchMeta, isDeleteList: boolean): unknown[] {
  if (meta.strategy !== 'merge' && !isDeleteList) return patch;
  return mergeList(original, patch, meta.schema, meta.mergeKey, isDeleteList, (o, p, s) => mergeMap(o, p, s));
}

/**
 * Handles every `$setElementOrder/<field>` of `patch`: merges that field's list (if the patch has one) and puts
 * the result in the order the directive gives, server-only elements interleaved by their live order. The directive
 * and the list are removed from `patch`.
 */
function mergeOrderedLists(original: JsonObject, patch: JsonObject, schema: SchemaNode | undefined): void {
  for (const key of Object.keys(patch)) {
    if (!key.startsWith(SET_ELEMENT_ORDER_PREFIX) || !hasKey(patch, key)) continue;
    const order = patch[key];
    deleteKey(patch, key);
    if (!Array.isArray(order)) throw badArgType('list', order);
    const field = directiveField(key, SET_ELEMENT_ORDER_PREFIX);
    const inOriginal = hasKey(original, field);
    const inPatch = hasKey(patch, field);
    const originalList = inOriginal ? asList(original[field]) : [];
    const patchList = inPatch ? asList(patch[field]) : [];
    const meta = lookupListField(schema, field);
    checkSetElementOrder(patchList, order, meta.mergeKey);

    let merged: unknown[];
    if (inOriginal && inPatch) merged = mergeListField(originalList, patchList, meta, false);
    else if (inPatch) merged = removeDirectives(patchList).value as unknown[];
    else if (inOriginal) merged = originalList;
    else continue;

    const [named, serverOnly] =
      meta.mergeKey === '' ? partitionScalars(merged, order) : partitionMaps(merged, order, meta.mergeKey);
    const kind = elementKind(originalList, patchList);
    setKey(original, field, normalizeElementOrder(named, serverOnly, order, originalList, meta.mergeKey, kind));
    deleteKey(patch, field);
  }
}

function asList(value: unknown): unknown[] {
  if (!Array.isArray(value)) throw badArgType('list', value);
  return value;
}

/** Puts a patch value where it replaces (or creates) the field; a value that is a `$patch` map removes the field. */
function putPatchValue(original: JsonObject, field: string, value: unknown, dropNulls: boolean): void {
  if (dropNulls) discardNullMembers(value);
  const cleaned = removeDirectives(value);
  if (cleaned.keep) setKey(original, field, cleaned.value);
  else deleteKey(original, field);
}

/** The Go type that decides how two values meet: maps merge, lists merge or replace, anything else replaces. */
function valueKind(value: unknown): string {
  if (value === null) return 'nil';
  if (Array.isArray(value)) return 'list';
  if (isJsonObject(value)) return 'map';
  if (typeof value === 'number') return Number.isInteger(value) ? 'int64' : 'float64';
  return typeof value;
}
