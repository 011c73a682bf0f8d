/**
 * What serving custom resources needs from a CRD's schema: structural checks, pruning, defaulting and validation.
 * The full implementations belong to `schema/` (structural schemas, value validation, CEL rules); until that
 * lands this adapter carries a small interim version of each, so that serving can be built and tested: pruning
 * by properties/items/additionalProperties and x-kubernetes-preserve-unknown-fields, defaults of properties, and
 * type, required and enum checks. Callers go through these four functions only.
 */
import { type FieldError, type FieldPath, invalid, notSupported, path, required } from '../../api/field-errors.js';
import { isObject } from '../registry/object.js';
import type { JSONSchemaProps } from './types.js';

type Schema = JSONSchemaProps;

const TYPES = new Set(['string', 'number', 'integer', 'boolean', 'array', 'object']);

/** Errors that make a schema unusable for pruning (not structural). */
export function structuralSchemaErrors(schema: Schema, fldPath: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const walk = (s: unknown, p: FieldPath, root: boolean) => {
    if (!isObject(s)) return;
    const type = s.type;
    const intOrString = s['x-kubernetes-int-or-string'] === true;
    const preserve = s['x-kubernetes-preserve-unknown-fields'] === true;
    if (type === undefined || type === '') {
      if (!intOrString && !preserve && !root)
        errs.push(required(p.child('type'), 'must not be empty for specified object fields'));
      if (root) errs.push(required(p.child('type'), 'must not be empty at the root'));
    } else if (typeof type !== 'string' || !TYPES.has(type)) {
      errs.push(notSupported(p.child('type'), type, [...TYPES]));
    }
    if (isObject(s.properties))
      for (const [k, v] of Object.entries(s.properties)) walk(v, p.child('properties').key(k), false);
    if (isObject(s.items)) walk(s.items, p.child('items'), false);
    if (isObject(s.additionalProperties)) walk(s.additionalProperties, p.child('additionalProperties'), false);
  };
  walk(schema, fldPath, true);
  return errs;
}

function preservesUnknown(s: Schema): boolean {
  return s['x-kubernetes-preserve-unknown-fields'] === true;
}

/** Drops fields the schema does not know; returns their paths (`spec.foo`), as strict decoding reports them. */
export function pruneObject(obj: Record<string, unknown>, schema: Schema): string[] {
  const pruned: string[] = [];
  const walk = (value: unknown, s: unknown, at: string, root: boolean) => {
    if (!isObject(s)) return;
    if (Array.isArray(value)) {
      value.forEach((item, i) => {
        walk(item, s.items, `${at}[${i}]`, false);
      });
      return;
    }
    if (!isObject(value)) return;
    const props = isObject(s.properties) ? s.properties : {};
    const additional = s.additionalProperties;
    const embedded = s['x-kubernetes-embedded-resource'] === true;
    for (const key of Object.keys(value)) {
      const child = at === '' ? key : `${at}.${key}`;
      if ((root || embedded) && (key === 'apiVersion' || key === 'kind' || key === 'metadata')) {
        if (key !== 'metadata' && Object.hasOwn(props, key)) walk(value[key], props[key], child, false);
        continue;
      }
      if (Object.hasOwn(props, key)) walk(value[key], props[key], child, false);
      else if (isObject(additional)) walk(value[key], additional, child, false);
      else if (additional === true || preservesUnknown(s)) continue;
      else {
        delete value[key];
        pruned.push(child);
      }
    }
  };
  walk(obj, schema, '', true);
  return pruned;
}

/** Fills `default` values of missing properties, from the root down. */
export function applyDefaults(obj: Record<string, unknown>, schema: Schema): void {
  const walk = (value: unknown, s: unknown) => {
    if (!isObject(s)) return;
    if (Array.isArray(value)) {
      for (const item of value) walk(item, s.items);
      return;
    }
    if (!isObject(value)) return;
    const props = isObject(s.properties) ? s.properties : {};
    for (const [key, prop] of Object.entries(props)) {
      if (!isObject(prop)) continue;
      if (value[key] === undefined && prop.default !== undefined) value[key] = structuredClone(prop.default);
      walk(value[key], prop);
    }
    if (isObject(s.additionalProperties)) {
      for (const key of Object.keys(value)) if (!Object.hasOwn(props, key)) walk(value[key], s.additionalProperties);
    }
  };
  walk(obj, schema);
}

function typeOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

/** Checks a value against the schema: types, required properties and enums. Paths start at the object's fields. */
export function validateObject(
  obj: Record<string, unknown>,
  schema: Schema,
  _old: Record<string, unknown> | undefined,
): FieldError[] {
  const errs: FieldError[] = [];
  const walk = (value: unknown, s: unknown, at: FieldPath) => {
    if (!isObject(s) || value === undefined) return;
    const label = at.toString();
    if (value === null) {
      if (s.nullable !== true && s.type !== undefined) {
        errs.push(invalid(at, null, `${label} in body must be of type ${String(s.type)}: "null"`));
      }
      return;
    }
    const type = s.type;
    const actual = typeOf(value);
    const intOrString = s['x-kubernetes-int-or-string'] === true;
    const typeOk =
      type === undefined ||
      (intOrString && (actual === 'integer' || actual === 'string')) ||
      type === actual ||
      (type === 'number' && actual === 'integer');
    if (!typeOk) {
      errs.push(invalid(at, value, `${label} in body must be of type ${String(type)}: "${actual}"`));
      return;
    }
    if (Array.isArray(s.enum) && !s.enum.some((e) => JSON.stringify(e) === JSON.stringify(value))) {
      errs.push(
        notSupported(
          at,
          value,
          s.enum.map((e) => (typeof e === 'string' ? e : JSON.stringify(e))),
        ),
      );
    }
    if (Array.isArray(value)) {
      value.forEach((item, i) => {
        walk(item, s.items, at.index(i));
      });
      return;
    }
    if (isObject(value)) walkProperties(value, s, (key) => at.child(key));
  };
  const walkProperties = (value: Record<string, unknown>, s: Schema, child: (key: string) => FieldPath) => {
    const props = isObject(s.properties) ? s.properties : {};
    if (Array.isArray(s.required)) {
      for (const name of s.required) {
        if (typeof name === 'string' && value[name] === undefined) errs.push(required(child(name)));
      }
    }
    for (const [key, v] of Object.entries(value)) {
      if (Object.hasOwn(props, key)) walk(v, props[key], child(key));
      else if (isObject(s.additionalProperties)) walk(v, s.additionalProperties, child(key));
    }
  };
  const { apiVersion: _a, kind: _k, metadata: _m, ...content } = obj;
  walkProperties(content, schema, (key) => path(key));
  return errs;
}
