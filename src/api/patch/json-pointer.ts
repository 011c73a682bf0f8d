/**
 * JSON Pointer (RFC 6901) resolution the way evanphx/json-patch v4 (what kube-apiserver v1.33 uses) does it: a
 * pointer is resolved to the object or array that holds its last token, and that container is then read or changed.
 *
 * Quirks kept on purpose, because clients see them through kube-apiserver:
 * - the text before the first `/` is ignored (`a/b` means `/b`); a pointer without any `/` resolves to nothing;
 * - array indexes are Go integers (`+1` and `01` are accepted) and may be negative, counting from the end;
 * - a `null` on the way resolves to nothing.
 * Every failure is a PatchError of kind 'Invalid' (upstream answers 422 for any failure while applying).
 */

import { getKey, hasKey, isJsonObject, type JsonObject, setKey } from './json-value.js';
import { PatchError } from './patch-error.js';

export type Container = JsonObject | unknown[];

export interface ResolvedPointer {
  readonly container: Container;
  /** The last token, already unescaped. */
  readonly key: string;
}

/** ~1 becomes `/` and ~0 becomes `~`, in one left-to-right pass. */
export function unescapeToken(token: string): string {
  return token.replace(/~[01]/g, (m) => (m === '~1' ? '/' : '~'));
}

/** The container that holds the pointer's last token, or undefined when the pointer leads nowhere. */
export function resolveParent(root: Container, pointer: string): ResolvedPointer | undefined {
  const tokens = pointer.split('/');
  if (tokens.length < 2) return undefined;
  let container: Container = root;
  for (const raw of tokens.slice(1, -1)) {
    let next: unknown;
    try {
      next = containerGet(container, unescapeToken(raw));
    } catch {
      return undefined;
    }
    if (!Array.isArray(next) && !isJsonObject(next)) return undefined;
    container = next;
  }
  return { container, key: unescapeToken(tokens[tokens.length - 1] ?? '') };
}

/** The value at `key`; undefined when an object lacks the key. Bad array indexes throw. */
export function containerGet(container: Container, key: string): unknown {
  if (!Array.isArray(container)) return getKey(container, key);
  const index = existingIndex(container, key);
  return container[index];
}

/** `add`: objects get (or overwrite) the key; arrays insert before the index, or append for `-`. */
export function containerAdd(container: Container, key: string, value: unknown): void {
  if (!Array.isArray(container)) {
    setKey(container, key, value);
    return;
  }
  if (key === '-') {
    container.push(value);
    return;
  }
  let index = goAtoi(key);
  if (index === undefined) throw invalid(`value was not a proper array index: '${key}'`);
  const size = container.length + 1;
  if (index >= size || index < -size) throw invalidIndex(index);
  if (index < 0) index += size;
  container.splice(index, 0, value);
}

/** `replace` on an existing array index, or on an object key (present or not). */
export function containerSet(container: Container, key: string, value: unknown): void {
  if (!Array.isArray(container)) {
    setKey(container, key, value);
    return;
  }
  container[existingIndex(container, key)] = value;
}

export function containerRemove(container: Container, key: string): void {
  if (!Array.isArray(container)) {
    if (!hasKey(container, key)) throw invalid(`unable to remove nonexistent key: ${key}`);
    delete container[key];
    return;
  }
  container.splice(existingIndex(container, key), 1);
}

function existingIndex(array: unknown[], key: string): number {
  const index = goAtoi(key);
  if (index === undefined) throw invalid(`invalid array index: '${key}'`);
  if (index >= array.length || index < -array.length) throw invalidIndex(index);
  return index < 0 ? index + array.length : index;
}

/** strconv.Atoi: an optional sign and decimal digits, nothing else. */
function goAtoi(text: string): number | undefined {
  return /^[+-]?\d+$/.test(text) ? Number(text) : undefined;
}

function invalidIndex(index: number): PatchError {
  return invalid(`unable to access invalid index: ${index}`);
}

function invalid(message: string): PatchError {
  return new PatchError('Invalid', message);
}
