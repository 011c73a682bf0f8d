/**
 * JSON Merge Patch (RFC 7386, application/merge-patch+json) as kube-apiserver v1.33 applies it (evanphx/json-patch
 * v4's MergePatch): a null member deletes, objects merge recursively, anything else replaces.
 *
 * v4 details kept: a patch that is null or a scalar is refused (400 `Invalid JSON Patch`); a patch that is an array
 * replaces the whole document (only reachable with fieldValidation=Ignore); a value that lands on a missing, null or non-object member has its nested null
 * members dropped (inside arrays too), but an array that replaces an object member is kept as sent; null elements
 * of arrays always stay.
 */
import { decodesStrictly, type PatchOptions } from './field-validation.js';
import { jsonKindWord } from './go-format.js';
import { deepCopy, deleteKey, getKey, hasKey, isJsonObject, type JsonObject, setKey } from './json-value.js';
import { PatchError } from './patch-error.js';

/**
 * Applies `patch` to a copy of `doc` (to doc itself with `options.inPlace`); the patch is never changed. Throws
 * PatchError. Unless the request's fieldValidation is Ignore, the apiserver first decodes the body strictly into a
 * map, so a body that is neither an object nor null is refused there with that decoder's message (and an array never
 * reaches the merge).
 */
export function applyMergePatch(doc: unknown, patch: unknown, options?: PatchOptions): unknown {
  if (decodesStrictly(options) && patch !== null && !isJsonObject(patch)) {
    throw new PatchError(
      'BadRequest',
      `error decoding patch: json: cannot unmarshal ${jsonKindWord(patch)} into Go value of type map[string]interface {}`,
    );
  }
  if (doc === null || doc === undefined) throw new PatchError('Unknown', 'Invalid JSON Document');
  if (patch === null || patch === undefined) throw new PatchError('BadRequest', 'Invalid JSON Patch');
  if (Array.isArray(patch)) return pruneNulls(deepCopy(patch));
  if (!isJsonObject(patch)) throw new PatchError('BadRequest', 'Invalid JSON Patch');
  const patchCopy = deepCopy(patch);
  if (!isJsonObject(doc)) return pruneNulls(patchCopy);
  const result = options?.inPlace ? doc : deepCopy(doc);
  mergeInto(result, patchCopy);
  return result;
}

function mergeInto(target: JsonObject, patch: JsonObject): void {
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) {
      deleteKey(target, key);
      continue;
    }
    const current = getKey(target, key);
    if (!hasKey(target, key) || current === null) {
      setKey(target, key, pruneNulls(value));
    } else if (!isJsonObject(current)) {
      setKey(target, key, pruneNulls(value));
    } else if (isJsonObject(value)) {
      mergeInto(current, value);
    } else {
      setKey(target, key, value);
    }
  }
}

/** Drops null members of objects, at any depth (also inside arrays); null array elements stay. */
function pruneNulls<T>(value: T): T {
  if (Array.isArray(value)) {
    for (const element of value) if (element !== null) pruneNulls(element);
  } else if (isJsonObject(value)) {
    for (const [key, member] of Object.entries(value)) {
      if (member === null) deleteKey(value, key);
      else pruneNulls(member);
    }
  }
  return value;
}
