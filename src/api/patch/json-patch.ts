/**
 * JSON Patch (RFC 6902, application/json-patch+json) as kube-apiserver v1.33 applies it: the apiserver decodes the
 * body with evanphx/json-patch v4, refuses more than 10000 operations, and applies the operations in order to the
 * object. Where v4 departs from the RFC, clients see v4's behaviour, so it is kept:
 * - `replace` of a missing object key adds it (only array indexes must exist);
 * - `remove` of a missing key or index fails; `add` overwrites an existing key;
 * - `copy` from a missing object key copies null; `test` of a missing key passes when the value is null;
 * - `add` and friends with no `value` member use null; `replace` of the root with a non-container value does nothing;
 * - copies may add at most 3 MiB in total (the apiserver's JSONPatchMaxCopyBytes).
 * Numbers are compared by value (v4 compares their JSON text, so `1` and `1.0` differ there).
 */
import type { PatchOptions } from './field-validation.js';
import { decodeJsonPatch } from './json-patch-decode.js';
import {
  type Container,
  containerAdd,
  containerGet,
  containerRemove,
  containerSet,
  resolveParent,
} from './json-pointer.js';
import { deepCopy, deepEqual, getKey, hasKey, isJsonObject, type JsonObject } from './json-value.js';
import { PatchError } from './patch-error.js';

/** The apiserver's default JSONPatchMaxCopyBytes. */
export const MAX_JSON_PATCH_COPY_BYTES = 3 * 1024 * 1024;

/**
 * Applies `patch` (parsed JSON) to a copy of `doc` (to doc itself with `options.inPlace`); the patch is never
 * changed. Throws PatchError. `options` carries the request's fieldValidation, which decides how a malformed body is
 * refused (see json-patch-decode.ts).
 */
export function applyJsonPatch(doc: unknown, patch: unknown, options?: PatchOptions): unknown {
  return applyJsonPatchOperations(doc, decodeJsonPatch(patch, options), options);
}

/**
 * Applies operations already decoded (decodePatchOperations: what evanphx/json-patch's Apply does with its Patch,
 * without the apiserver's decoding checks and operation limit, as admission webhooks' patches are applied).
 */
export function applyJsonPatchOperations(doc: unknown, operations: JsonObject[], options?: PatchOptions): unknown {
  if (!Array.isArray(doc) && !isJsonObject(doc)) {
    throw new PatchError('Invalid', 'the document to patch is not a JSON object or array');
  }
  const state: ApplyState = { root: options?.inPlace ? doc : deepCopy(doc), copiedBytes: 0 };
  for (const op of operations) applyOperation(state, op);
  return state.root;
}

interface ApplyState {
  root: Container;
  copiedBytes: number;
}

function applyOperation(state: ApplyState, op: JsonObject): void {
  const kind = getKey(op, 'op');
  const apply = typeof kind === 'string' && Object.hasOwn(OPERATIONS, kind) ? OPERATIONS[kind] : undefined;
  if (apply === undefined) throw invalid(`unexpected kind: ${typeof kind === 'string' ? kind : 'unknown'}`);
  apply(state, op);
}

function add(state: ApplyState, op: JsonObject): void {
  const path = pointer(op, 'path');
  const { container, key } = locate(state, path, `add operation does not apply: doc is missing path: "${path}"`);
  containerAdd(container, key, value(op));
}

function remove(state: ApplyState, op: JsonObject): void {
  const path = pointer(op, 'path');
  const { container, key } = locate(state, path, `remove operation does not apply: doc is missing path: "${path}"`);
  containerRemove(container, key);
}

function replace(state: ApplyState, op: JsonObject): void {
  const path = pointer(op, 'path');
  if (path === '') {
    const next = value(op);
    if (Array.isArray(next) || isJsonObject(next)) state.root = next;
    return;
  }
  const { container, key } = locate(state, path, `replace operation does not apply: doc is missing path: ${path}`);
  containerGet(container, key);
  containerSet(container, key, value(op));
}

function move(state: ApplyState, op: JsonObject): void {
  const from = pointer(op, 'from');
  const source = locate(state, from, `move operation does not apply: doc is missing from path: ${from}`);
  const moved = containerGet(source.container, source.key) ?? null;
  containerRemove(source.container, source.key);
  const path = pointer(op, 'path');
  const target = locate(state, path, `move operation does not apply: doc is missing destination path: ${path}`);
  containerAdd(target.container, target.key, moved);
}

function copy(state: ApplyState, op: JsonObject): void {
  const from = pointer(op, 'from');
  const source = locate(state, from, `copy operation does not apply: doc is missing from path: ${from}`);
  const copied = deepCopy(containerGet(source.container, source.key) ?? null);
  const path = pointer(op, 'path');
  const target = locate(state, path, `copy operation does not apply: doc is missing destination path: ${path}`);
  if (copied !== null) state.copiedBytes += Buffer.byteLength(JSON.stringify(copied));
  if (state.copiedBytes > MAX_JSON_PATCH_COPY_BYTES) {
    throw invalid(
      `copy would add ${state.copiedBytes} bytes in total, more than the limit of ${MAX_JSON_PATCH_COPY_BYTES}`,
    );
  }
  containerAdd(target.container, target.key, copied);
}

function test(state: ApplyState, op: JsonObject): void {
  const path = pointer(op, 'path');
  const expected = hasKey(op, 'value') ? getKey(op, 'value') : undefined;
  let actual: unknown;
  if (path === '') {
    actual = state.root;
  } else {
    const { container, key } = locate(state, path, `test operation does not apply: is missing path: ${path}`);
    actual = containerGet(container, key) ?? null;
  }
  // A missing key and a null value are the same to v4; a missing `value` member only matches them.
  const passed = actual === null ? (expected ?? null) === null : expected !== undefined && deepEqual(actual, expected);
  // v4 wraps ErrTestFailed: `testing value <path> failed: test failed` (an empty path for the root).
  if (!passed) throw invalid(`testing value ${path} failed: test failed`);
}

function pointer(op: JsonObject, member: 'path' | 'from'): string {
  const text = getKey(op, member);
  if (text === undefined || text === null) throw invalid(`operation has no "${member}"`);
  if (typeof text !== 'string') throw invalid(`operation "${member}" is not a string`);
  return text;
}

/** The container the last token of path is in; when there is none, v4's error (`what`, wrapping ErrMissing). */
function locate(state: ApplyState, path: string, what: string) {
  const found = resolveParent(state.root, path);
  if (found === undefined) throw invalid(`${what}: missing value`);
  return found;
}

function value(op: JsonObject): unknown {
  return deepCopy(getKey(op, 'value') ?? null);
}

const OPERATIONS: Record<string, (state: ApplyState, op: JsonObject) => void> = {
  add,
  remove,
  replace,
  move,
  copy,
  test,
};

function invalid(message: string): PatchError {
  return new PatchError('Invalid', message);
}
