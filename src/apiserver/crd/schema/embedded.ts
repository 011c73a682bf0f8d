/**
 * Objects under `x-kubernetes-embedded-resource: true` are Kubernetes objects of their own: apiVersion and kind are
 * required and well formed, and their metadata is checked as ObjectMeta, as apiextensions' objectmeta validation
 * does (the custom resource's own metadata is the registry's to check).
 */

import {
  additionalProperties,
  isEmbeddedResource,
  isObject,
  items,
  property,
  type Schema,
} from '../../../api/crd-schema-node.js';
import { type FieldError, type FieldPath, invalid, path as newPath, required } from '../../../api/field-errors.js';
import { isDNS1035Label } from '../../../api/validation/names.js';
import { validateObjectMeta } from '../../../api/validation/object-meta.js';
import type { ObjectMetaInput } from '../../../api/validation/object-meta-types.js';

/** apimachinery's ParseGroupVersion: `v1`, `group/v1`; more than one slash is an error. */
function groupVersionError(apiVersion: string): string | undefined {
  if (apiVersion === '/' || apiVersion.split('/').length <= 2) return undefined;
  return `unexpected GroupVersion string: ${apiVersion}`;
}

/** What Go's JSON decoding into ObjectMeta refuses: a metadata that is not an object, or fields of the wrong type. */
function metadataDecodeError(meta: unknown): string | undefined {
  const goType = (v: unknown) =>
    typeof v === 'string'
      ? 'string'
      : typeof v === 'number'
        ? 'number'
        : typeof v === 'boolean'
          ? 'bool'
          : Array.isArray(v)
            ? 'array'
            : 'object';
  if (!isObject(meta)) return `json: cannot unmarshal ${goType(meta)} into Go value of type v1.ObjectMeta`;
  const strings = [
    'name',
    'generateName',
    'namespace',
    'uid',
    'resourceVersion',
    'creationTimestamp',
    'deletionTimestamp',
  ];
  for (const k of strings) {
    const v = meta[k];
    if (v !== undefined && v !== null && typeof v !== 'string') {
      return `json: cannot unmarshal ${goType(v)} into Go struct field ObjectMeta.${k} of type string`;
    }
  }
  for (const k of ['labels', 'annotations']) {
    const v = meta[k];
    if (v !== undefined && v !== null && !isObject(v)) {
      return `json: cannot unmarshal ${goType(v)} into Go struct field ObjectMeta.${k} of type map[string]string`;
    }
  }
  return undefined;
}

function validateEmbeddedResource(p: FieldPath, x: Record<string, unknown>): FieldError[] {
  const errs: FieldError[] = [];
  if (!Object.hasOwn(x, 'apiVersion')) errs.push(required(p.child('apiVersion'), 'must not be empty'));
  if (!Object.hasOwn(x, 'kind')) errs.push(required(p.child('kind'), 'must not be empty'));
  for (const [k, v] of Object.entries(x)) {
    if (k === 'apiVersion') {
      if (typeof v !== 'string') errs.push(invalid(p.child('apiVersion'), v, 'must be a string'));
      else if (v === '') errs.push(invalid(p.child('apiVersion'), v, 'must not be empty'));
      else {
        const e = groupVersionError(v);
        if (e) errs.push(invalid(p.child('apiVersion'), v, e));
      }
    } else if (k === 'kind') {
      if (typeof v !== 'string') errs.push(invalid(p.child('kind'), v, 'must be a string'));
      else if (v === '') errs.push(invalid(p.child('kind'), v, 'must not be empty'));
      else {
        const e = isDNS1035Label(v.toLowerCase());
        if (e.length > 0) {
          errs.push(invalid(p.child('kind'), v, `may have mixed case, but should otherwise match: ${e.join(',')}`));
        }
      }
    } else if (k === 'metadata') {
      const decodeError = metadataDecodeError(v);
      if (decodeError) {
        errs.push(invalid(p.child('metadata'), v, decodeError));
        continue;
      }
      const meta = { ...(v as ObjectMetaInput) };
      if (!meta.name) meta.name = 'fakename';
      errs.push(...validateObjectMeta(meta, { namespaced: Boolean(meta.namespace) }, p.child('metadata')));
    }
  }
  return errs;
}

function walk(p: FieldPath | null, x: unknown, s: Schema | undefined, isResourceRoot = false): FieldError[] {
  if (!s) return [];
  const errs: FieldError[] = [];
  if (Array.isArray(x)) {
    const itemSchema = items(s);
    for (const [i, v] of x.entries()) errs.push(...walk(p ? p.index(i) : newPath('').index(i), v, itemSchema));
    return errs;
  }
  if (!isObject(x)) return errs;
  if (p && (isResourceRoot || isEmbeddedResource(s))) errs.push(...validateEmbeddedResource(p, x));
  const additional = additionalProperties(s)?.schema;
  for (const [k, v] of Object.entries(x)) {
    const prop = property(s, k);
    if (prop) errs.push(...walk(p ? p.child(k) : newPath(k), v, prop));
    else if (additional) errs.push(...walk(p ? p.key(k) : newPath('').key(k), v, additional));
  }
  return errs;
}

/** The errors of every embedded resource in a custom resource (not the resource's own apiVersion/kind/metadata). */
export function validateEmbeddedResources(obj: Record<string, unknown>, schema: Schema): FieldError[] {
  return walk(null, obj, schema);
}

/** The embedded-resource errors of a value at `p` (a schema default); the value itself is one when its node is. */
export function validateEmbeddedValue(p: FieldPath, value: unknown, schema: Schema): FieldError[] {
  return walk(p, value, schema, isEmbeddedResource(schema));
}
