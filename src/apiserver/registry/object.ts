import { randomBytes, randomUUID } from 'node:crypto';

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
  return new Date(Math.floor(now / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

export function newUid(): string {
  return randomUUID();
}

/** The alphabet upstream draws generated name suffixes from (no vowels, no look-alike digits). */
const SUFFIX_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

/** generateName plus five random characters, the prefix cut so the whole stays within 63 characters as upstream. */
export function generateNameFrom(base: string): string {
  const prefix = base.length > 58 ? base.slice(0, 58) : base;
  const bytes = randomBytes(5);
  let suffix = '';
  for (const b of bytes) suffix += SUFFIX_ALPHABET[b % SUFFIX_ALPHABET.length];
  return prefix + suffix;
}

export function deepClone<T>(v: T): T {
  return structuredClone(v);
}

/** Deep equality of JSON values (key order ignored). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    return a.every((x, i) => jsonEqual(x, b[i]));
  }
  if (isObject(a)) {
    if (!isObject(b)) return false;
    const ka = Object.keys(a).filter((k) => a[k] !== undefined);
    const kb = Object.keys(b).filter((k) => b[k] !== undefined);
    if (ka.length !== kb.length) return false;
    return ka.every((k) => jsonEqual(a[k], b[k]));
  }
  return false;
}
