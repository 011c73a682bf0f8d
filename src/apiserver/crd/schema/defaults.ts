/**
 * Structural defaulting, as apiextensions applies a schema's `default`s to a custom resource after pruning: a
 * missing field with a default gets a copy of it, and so does a null field that is not nullable. Null fields that
 * are neither nullable nor defaulted are dropped with pruning, before defaulting.
 */
import {
  additionalProperties,
  deepCopy,
  fieldSchema,
  isNullable,
  isObject,
  properties,
  type Schema,
} from '../../../api/crd-schema-node.js';

const isNonNullableNull = (x: unknown, s: Schema | undefined) => x === null && s !== undefined && !isNullable(s);

/**
 * Applies the defaults below s to x in place, or with `apply` false only looks: whether some default would be set
 * (then it stops at the first).
 */
function applyDefaultsTo(x: unknown, s: Schema | undefined, apply: boolean): boolean {
  if (!s) return false;
  let changed = false;
  if (Array.isArray(x)) {
    const itemSchema = isObject(s.items) ? s.items : undefined;
    for (let i = 0; i < x.length; i++) {
      if (itemSchema && isNonNullableNull(x[i], itemSchema) && itemSchema.default !== undefined) {
        if (!apply) return true;
        x[i] = deepCopy(itemSchema.default);
        changed = true;
      }
      if (applyDefaultsTo(x[i], itemSchema, apply)) {
        if (!apply) return true;
        changed = true;
      }
    }
    return changed;
  }
  if (!isObject(x)) return false;
  const props = properties(s) ?? {};
  for (const [k, prop] of Object.entries(props)) {
    if (!isObject(prop) || prop.default === undefined) continue;
    if (!Object.hasOwn(x, k) || isNonNullableNull(x[k], prop)) {
      if (!apply) return true;
      x[k] = deepCopy(prop.default);
      changed = true;
    }
  }
  const additional = additionalProperties(s)?.schema;
  for (const k of Object.keys(x)) {
    const prop = props[k];
    let below: Schema | undefined;
    if (isObject(prop)) below = prop;
    else if (additional) {
      if (isNonNullableNull(x[k], additional) && additional.default !== undefined) {
        if (!apply) return true;
        x[k] = deepCopy(additional.default);
        changed = true;
      }
      below = additional;
    }
    if (below && applyDefaultsTo(x[k], below, apply)) {
      if (!apply) return true;
      changed = true;
    }
  }
  return changed;
}

/** Drops null fields whose schema is neither nullable nor defaulted (what pruning does after dropping fields). */
export function pruneNonNullableNullsWithoutDefaults(x: unknown, s: Schema | undefined): void {
  if (Array.isArray(x)) {
    const itemSchema = s && isObject(s.items) ? s.items : undefined;
    for (const v of x) pruneNonNullableNullsWithoutDefaults(v, itemSchema);
    return;
  }
  if (!isObject(x)) return;
  for (const k of Object.keys(x)) {
    const sub = fieldSchema(s, k);
    if (x[k] === null && sub !== undefined && !isNullable(sub) && sub.default === undefined) delete x[k];
    else pruneNonNullableNullsWithoutDefaults(x[k], sub);
  }
}

/** Applies the schema's defaults to a (pruned) custom resource in place. */
export function applyDefaults(obj: Record<string, unknown>, schema: Schema): void {
  applyDefaultsTo(obj, schema, true);
}

/** Whether applyDefaults would set something in obj (without changing it). */
export function lacksDefaults(obj: Record<string, unknown>, schema: Schema): boolean {
  return applyDefaultsTo(obj, schema, false);
}
