/**
 * Decoding a JSON patch body (already parsed JSON) into its operations, with kube-apiserver v1.33's checks and
 * messages. Unless fieldValidation is Ignore, the apiserver first decodes the body strictly into a list of
 * {op, path, from, value} records, so a wrong shape or a non-string op/path/from is a 400 with that decoder's
 * message; it then decodes it again with evanphx/json-patch v4, which only needs a list of objects.
 */
import { decodesStrictly, type PatchOptions } from './field-validation.js';
import { jsonKindWord } from './go-format.js';
import { isJsonObject, type JsonObject } from './json-value.js';
import { PatchError } from './patch-error.js';

/** The apiserver's maxJSONPatchOperations. */
export const MAX_JSON_PATCH_OPERATIONS = 10000;

const OPERATION_FIELDS = ['op', 'path', 'from', 'value'];

export function decodeJsonPatch(patch: unknown, options?: PatchOptions): JsonObject[] {
  if (decodesStrictly(options)) checkTypedShape(patch);
  const operations = decodePatchOperations(patch);
  if (operations.length > MAX_JSON_PATCH_OPERATIONS) {
    throw new PatchError(
      'RequestEntityTooLarge',
      `The allowed maximum operations in a JSON patch is ${MAX_JSON_PATCH_OPERATIONS}, got ${operations.length}`,
    );
  }
  return operations;
}

/**
 * evanphx/json-patch v4's DecodePatch alone (json.Unmarshal into a list of operations): null is no operation, and
 * anything but a list of objects (or nulls) fails with encoding/json's message, as a BadRequest PatchError.
 */
export function decodePatchOperations(patch: unknown): JsonObject[] {
  if (patch === null) return [];
  if (!Array.isArray(patch)) {
    throw badRequest(`json: cannot unmarshal ${jsonKindWord(patch)} into Go value of type jsonpatch.Patch`);
  }
  for (const op of patch) {
    if (op !== null && !isJsonObject(op)) {
      throw badRequest(`json: cannot unmarshal ${jsonKindWord(op)} into Go value of type jsonpatch.Operation`);
    }
  }
  return patch.map((op: JsonObject | null) => op ?? {});
}

/**
 * The strict-decoding complaints about a JSON patch body: members of an operation other than op, path, from and
 * value (compared case-sensitively). With fieldValidation=Warn the apiserver sends them as warnings, with Strict it
 * refuses the request (422) after applying. Duplicate members cannot be seen once the body is parsed.
 */
export function jsonPatchStrictErrors(patch: unknown): string[] {
  if (!Array.isArray(patch)) return [];
  const errors: string[] = [];
  patch.forEach((op, index) => {
    if (!isJsonObject(op)) return;
    for (const key of Object.keys(op)) {
      if (!OPERATION_FIELDS.includes(key)) errors.push(`json patch unknown field "[${index}].${key}"`);
    }
  });
  return errors;
}

function checkTypedShape(patch: unknown): void {
  if (patch === null) return;
  if (!Array.isArray(patch)) throw strictDecodeError(`Go value of type []handlers.jsonPatchOp`, patch);
  for (const op of patch) {
    if (op === null) continue;
    if (!isJsonObject(op)) throw strictDecodeError('Go value of type handlers.jsonPatchOp', op);
    for (const [field, value] of Object.entries(op)) {
      if (field !== 'value' && OPERATION_FIELDS.includes(field) && value !== null && typeof value !== 'string') {
        throw strictDecodeError(`Go struct field jsonPatchOp.${field} of type string`, value);
      }
    }
  }
}

function strictDecodeError(target: string, value: unknown): PatchError {
  return badRequest(`error decoding patch: json: cannot unmarshal ${jsonKindWord(value)} into ${target}`);
}

function badRequest(message: string): PatchError {
  return new PatchError('BadRequest', message);
}
