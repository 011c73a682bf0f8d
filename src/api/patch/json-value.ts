/**
 * Plain JSON values as the patch code handles them: objects are plain records, arrays are arrays, and every read
 * and write of a key goes through these helpers so that a key such as `__proto__` is an ordinary own property.
 */
export type JsonObject = Record<string, unknown>;

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function hasKey(obj: JsonObject, key: string): boolean {
  return Object.hasOwn(obj, key);
}

/** The value under `key`, or undefined when the object has no such own key. */
export function getKey(obj: JsonObject, key: string): unknown {
  return Object.hasOwn(obj, key) ? obj[key] : undefined;
}

export function setKey(obj: JsonObject, key: string, value: unknown): void {
  if (key === '__proto__') {
    Object.defineProperty(obj, key, { value, writable: true, enumerable: true, configurable: true });
  } else {
    obj[key] = value;
  }
}

export function deleteKey(obj: JsonObject, key: string): void {
  delete obj[key];
}

export function deepCopy<T>(value: T): T {
  if (Array.isArray(value)) return value.map((v) => deepCopy(v)) as T;
  if (isJsonObject(value)) {
    const out: JsonObject = {};
    // for-in rather than Object.entries: no array is made for each object (JSON objects inherit no enumerable keys).
    for (const k in value) setKey(out, k, deepCopy(value[k]));
    return out as T;
  }
  return value;
}

/** Structural equality of two JSON values (object key order does not matter, array order does). */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    return Array.isArray(b) && a.length === b.length && a.every((v, i) => deepEqual(v, b[i]));
  }
  if (isJsonObject(a)) {
    if (!isJsonObject(b)) return false;
    const keys = Object.keys(a);
    if (keys.length !== Object.keys(b).length) return false;
    return keys.every((k) => hasKey(b, k) && deepEqual(a[k], b[k]));
  }
  return false;
}
