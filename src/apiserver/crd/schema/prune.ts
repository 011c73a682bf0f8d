/**
 * Pruning: a custom resource keeps only the fields its structural schema specifies, as apiextensions' pruning
 * algorithm does. A node with x-kubernetes-preserve-unknown-fields keeps unknown fields (and still prunes inside the
 * ones it specifies); apiVersion, kind and metadata stay at the root and in embedded resources (whose metadata keeps
 * ObjectMeta's fields only). Null fields whose
 * schema is neither nullable nor defaulted go too (not reported), as upstream's decoder drops them.
 */

import {
  additionalProperties,
  isEmbeddedResource,
  isObject,
  preservesUnknownFields,
  property,
  type Schema,
} from '../../../api/crd-schema-node.js';
import { pruneNonNullableNullsWithoutDefaults } from './defaults.js';

const META_FIELDS = new Set(['apiVersion', 'kind', 'metadata']);

/** The fields of ObjectMeta; an embedded resource's metadata keeps only these (upstream decodes it as ObjectMeta). */
const OBJECT_META_FIELDS = new Set([
  'name',
  'generateName',
  'namespace',
  'selfLink',
  'uid',
  'resourceVersion',
  'generation',
  'creationTimestamp',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'labels',
  'annotations',
  'ownerReferences',
  'finalizers',
  'managedFields',
]);

/** Drops unknown fields from an embedded resource's metadata (the resource's own is the codec's to handle). */
function pruneEmbeddedMetadata(x: Record<string, unknown>, at: string, w: Walk): void {
  const meta = x.metadata;
  if (!isObject(meta)) return;
  for (const key of Object.keys(meta)) {
    if (OBJECT_META_FIELDS.has(key)) continue;
    w.pruned.push(`${keyPath(at, 'metadata')}.${key}`);
    delete meta[key];
  }
}

interface Walk {
  pruned: string[];
}

const keyPath = (at: string, key: string) => (at === '' ? key : `${at}.${key}`);

/** The schema of a field that is specified: its property, else additionalProperties (whose schema may be absent). */
function specified(s: Schema, key: string): { schema: Schema | undefined } | undefined {
  const p = property(s, key);
  if (p) return { schema: p };
  const a = additionalProperties(s);
  if (a) return { schema: a.schema };
  return undefined;
}

function prune(x: unknown, s: Schema | undefined, at: string, w: Walk, embedded: boolean): void {
  if (s && preservesUnknownFields(s)) {
    skipPrune(x, s, at, w, embedded);
    return;
  }
  if (Array.isArray(x)) {
    x.forEach((v, i) => {
      prune(v, s && isObject(s.items) ? s.items : undefined, `${at}[${i}]`, w, false);
    });
    return;
  }
  if (!isObject(x)) return;
  const embeddedHere = embedded || isEmbeddedResource(s);
  if (at !== '' && isEmbeddedResource(s)) pruneEmbeddedMetadata(x, at, w);
  for (const key of Object.keys(x)) {
    if (s && embeddedHere && META_FIELDS.has(key)) continue;
    const spec = s ? specified(s, key) : undefined;
    if (spec) {
      prune(x[key], spec.schema, keyPath(at, key), w, false);
      continue;
    }
    // A meta field at the very root is not reported: the root is always treated as a resource.
    if (!META_FIELDS.has(key) || at !== '') w.pruned.push(keyPath(at, key));
    delete x[key];
  }
}

function skipPrune(x: unknown, s: Schema, at: string, w: Walk, embedded: boolean): void {
  if (Array.isArray(x)) {
    const itemSchema = isObject(s.items) ? s.items : undefined;
    x.forEach((v, i) => {
      if (itemSchema) skipPrune(v, itemSchema, `${at}[${i}]`, w, false);
    });
    return;
  }
  if (!isObject(x)) return;
  const embeddedHere = embedded || isEmbeddedResource(s);
  if (at !== '' && isEmbeddedResource(s)) pruneEmbeddedMetadata(x, at, w);
  for (const key of Object.keys(x)) {
    if (embeddedHere && META_FIELDS.has(key)) continue;
    const spec = specified(s, key);
    if (spec) prune(x[key], spec.schema, keyPath(at, key), w, false);
  }
}

/**
 * Removes from a custom resource (in place) every field its schema does not specify, and returns their paths
 * sorted (`spec.foo`, `spec.items[0].bar`), as field validation reports unknown fields.
 */
export function pruneObject(obj: Record<string, unknown>, schema: Schema): string[] {
  const w: Walk = { pruned: [] };
  prune(obj, schema, '', w, true);
  pruneNonNullableNullsWithoutDefaults(obj, schema);
  return w.pruned.sort();
}

/** Prunes a value below a schema node (not a resource root); used for defaults. */
export function pruneValue(value: unknown, schema: Schema, isResourceRoot: boolean): void {
  prune(value, schema, '', { pruned: [] }, isResourceRoot);
}
