import { randomFillSync, randomUUID } from 'node:crypto';
import { formatTime } from '../../util/time.js';

export { deepClone } from '../../util/clone.js';

/** Object metadata as the registry reads and writes it (metav1.ObjectMeta). */
export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  deletionGracePeriodSeconds?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  finalizers?: string[];
  ownerReferences?: Array<Record<string, unknown>>;
  managedFields?: Array<Record<string, unknown>>;
  selfLink?: string;
  [field: string]: unknown;
}

/** Any API object as JSON. */
export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  [field: string]: unknown;
}

export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** RFC 3339 with second precision, as metav1.Time is written. */
export function nowTimestamp(now = Date.now()): string {
  return formatTime(now);
}

export function newUid(): string {
  return randomUUID();
}

/** The alphabet upstream draws generated name suffixes from (no vowels, no look-alike digits). */
const SUFFIX_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

/** Random bytes drawn in blocks: one call into the generator per few hundred names, not one per name. */
const randomPool = Buffer.alloc(4096);
let randomPoolAt = randomPool.length;

/** A random index below SUFFIX_ALPHABET.length, without modulo bias (bytes at or past the last whole multiple are skipped). */
function randomSuffixIndex(): number {
  const n = SUFFIX_ALPHABET.length;
  const limit = 256 - (256 % n);
  for (;;) {
    if (randomPoolAt === randomPool.length) {
      randomFillSync(randomPool);
      randomPoolAt = 0;
    }
    const b = randomPool[randomPoolAt++] as number;
    if (b < limit) return b % n;
  }
}

/** generateName plus five random characters, the prefix cut so the whole stays within 63 characters as upstream. */
export function generateNameFrom(base: string): string {
  const prefix = base.length > 58 ? base.slice(0, 58) : base;
  let suffix = '';
  for (let i = 0; i < 5; i++) suffix += SUFFIX_ALPHABET[randomSuffixIndex()];
  return prefix + suffix;
}

/** Freezes v and everything it holds, so that a value shared by many readers cannot be changed by one of them. */
export function deepFreeze<T>(v: T): T {
  if (typeof v !== 'object' || v === null || Object.isFrozen(v)) return v;
  for (const k of Object.keys(v)) deepFreeze((v as Record<string, unknown>)[k]);
  return Object.freeze(v);
}

/** Deep equality of JSON values (key order ignored). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!jsonEqual(a[i], b[i])) return false;
    return true;
  }
  if (!isObject(a) || !isObject(b)) return false;
  // Counted rather than listed, with for-in (no array of keys made): this runs over whole objects on every update.
  let count = 0;
  for (const k in a) {
    const v = a[k];
    if (v === undefined) continue;
    if (!Object.hasOwn(b, k) || !jsonEqual(v, b[k])) return false;
    count++;
  }
  for (const k in b) if (b[k] !== undefined) count--;
  return count === 0;
}
