/**
 * The invariants of `x-kubernetes-list-type: set` (no item twice) and `map` (items are objects, no two with the same
 * keys), checked over a whole custom resource as apiextensions' listtype validation does: `Duplicate value` at the
 * second occurrence of a repeated item or key.
 */

import {
  additionalProperties,
  isObject,
  items,
  property,
  type Schema,
  stringList,
  stringValue,
} from '../../../api/crd-schema-node.js';
import { duplicate, type FieldError, type FieldPath, invalid, path as newPath } from '../../../api/field-errors.js';

/** Indices of items that repeat an earlier one (each repeated value reported once, at its second occurrence). */
function nonUniqueIndices(values: readonly unknown[]): number[] {
  const seen = new Map<string, number>();
  const out: number[] = [];
  values.forEach((v, i) => {
    const key = v === UNSPECIFIED ? '\u0000unspecified' : `${typeof v}:${JSON.stringify(v)}`;
    const times = seen.get(key) ?? 0;
    seen.set(key, times + 1);
    if (times === 1) out.push(i);
  });
  return out;
}

const UNSPECIFIED = Symbol('unspecified key');

function validateListMap(p: FieldPath, s: Schema, list: unknown[]): FieldError[] {
  for (let i = 0; i < list.length; i++) {
    const x = list[i];
    if (x !== null && !isObject(x)) return [invalid(p.index(i), x, 'must be an object for an array of list-type map')];
  }
  if (list.length <= 1) return [];
  const keyFields = stringList(s, 'x-kubernetes-list-map-keys');
  if (keyFields.length === 1) {
    const keyField = keyFields[0] ?? '';
    const keys = list.map((x) => (isObject(x) && Object.hasOwn(x, keyField) ? x[keyField] : UNSPECIFIED));
    return nonUniqueIndices(keys).map((i) =>
      duplicate(p.index(i), keys[i] === UNSPECIFIED ? {} : { [keyField]: keys[i] }),
    );
  }
  const keys = list.map((x) => {
    const key: Record<string, unknown> = {};
    if (isObject(x)) for (const f of keyFields) if (Object.hasOwn(x, f)) key[f] = x[f];
    return key;
  });
  // Compared as Go's JSON encoding of a map (sorted keys) would.
  const canonical = keys.map((k) => Object.fromEntries(Object.entries(k).sort(([a], [b]) => (a < b ? -1 : 1))));
  return nonUniqueIndices(canonical).map((i) => duplicate(p.index(i), keys[i]));
}

function validateValue(p: FieldPath, s: Schema, value: unknown): FieldError[] {
  if (Array.isArray(value)) {
    const errs: FieldError[] = [];
    const listType = stringValue(s, 'x-kubernetes-list-type');
    if (listType === 'set') {
      for (const i of nonUniqueIndices(value.map(canonicalJSON))) errs.push(duplicate(p.index(i), value[i]));
    } else if (listType === 'map') {
      errs.push(...validateListMap(p, s, value));
    }
    const itemSchema = items(s);
    if (itemSchema) for (const [i, v] of value.entries()) errs.push(...validateValue(p.index(i), itemSchema, v));
    return errs;
  }
  if (isObject(value)) return validateObjectFields(p, s, value);
  return [];
}

/** Objects compare by content whatever their key order, as Go's JSON encoding of maps sorts keys. */
function canonicalJSON(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(canonicalJSON);
  if (isObject(v)) {
    return Object.fromEntries(
      Object.keys(v)
        .sort()
        .map((k) => [k, canonicalJSON(v[k])]),
    );
  }
  return v;
}

function validateObjectFields(p: FieldPath | null, s: Schema, obj: Record<string, unknown>): FieldError[] {
  const errs: FieldError[] = [];
  const additional = additionalProperties(s)?.schema;
  for (const [k, v] of Object.entries(obj)) {
    const prop = property(s, k);
    if (prop) errs.push(...validateValue(p ? p.child(k) : newPath(k), prop, v));
    else if (additional) errs.push(...validateValue(p ? p.key(k) : newPath(k), additional, v));
  }
  return errs;
}

/** The list-type set and map errors of a whole custom resource. */
export function validateListSetsAndMaps(obj: Record<string, unknown>, schema: Schema): FieldError[] {
  return validateObjectFields(null, schema, obj);
}
