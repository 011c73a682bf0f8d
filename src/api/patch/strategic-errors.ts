/**
 * The failures of a strategic merge patch, with the texts and answers kube-apiserver v1.33 gives (its
 * interpretStrategicMergePatchError): the malformed-directive errors are 400 BadRequest, lists of lists are 422
 * Invalid, and every other failure reaches the client as 500 with an empty reason and the error text.
 */
import { formatGoString, formatGoValue, goTypeName } from './go-format.js';
import { PatchError } from './patch-error.js';

export function badPrimitiveListFormat(): PatchError {
  return new PatchError('BadRequest', 'invalid patch format of primitive list');
}

export function badRetainKeysFormat(): PatchError {
  return new PatchError('BadRequest', 'invalid patch format of retainKeys');
}

export function badSetElementOrderFormat(): PatchError {
  return new PatchError('BadRequest', 'invalid patch format of setElementOrder list');
}

export function noListOfLists(): PatchError {
  return new PatchError('Invalid', 'lists of lists are not supported');
}

/** A list element (or $setElementOrder entry) that lacks the list's merge key. */
export function noMergeKey(element: unknown, mergeKey: string): PatchError {
  return unknown(`map: ${formatGoValue(element)} does not contain declared merge key: ${mergeKey}`);
}

/** A value of the wrong JSON type where a map or list was required. */
export function badArgType(expected: 'map' | 'list', actual: unknown): PatchError {
  const expectedName = expected === 'map' ? 'map[string]interface {}' : '[]interface {}';
  return unknown(`expected a ${expectedName}, but received a ${goTypeName(actual)}`);
}

/** A `$patch` value that is not understood where it appears. */
export function badPatchType(directive: unknown, map: unknown): PatchError {
  return unknown(`unknown patch type: ${formatGoString(directive)} in map: ${formatGoValue(map)}`);
}

export function unknown(message: string): PatchError {
  return new PatchError('Unknown', message);
}
