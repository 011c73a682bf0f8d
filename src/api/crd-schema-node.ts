/**
 * Reading one node of a CRD's OpenAPI v3 schema (JSONSchemaProps as the wire holds it). The structural part of a
 * node — what pruning, defaulting and CEL walk — is its `properties`, `items` (one schema) and
 * `additionalProperties`; value validations under allOf/anyOf/oneOf/not never add fields.
 */
import type { SchemaNode } from './schema-node.js';

/** A node of an OpenAPI v3 schema as a CRD holds it (JSONSchemaProps), read loosely, as the wire allows. */
export type Schema = Record<string, unknown>;

export const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

export function properties(s: Schema | undefined): Record<string, Schema> | undefined {
  const p = s?.properties;
  return isObject(p) ? (p as Record<string, Schema>) : undefined;
}

export function property(s: Schema | undefined, name: string): Schema | undefined {
  const p = properties(s);
  if (!p || !Object.hasOwn(p, name)) return undefined;
  const v = p[name];
  return isObject(v) ? v : undefined;
}

/** The items schema when it is one schema (an array of schemas is not structural). */
export function items(s: Schema | undefined): Schema | undefined {
  const i = s?.items;
  return isObject(i) ? i : undefined;
}

/** additionalProperties: absent, a bare boolean, or a schema (which allows). */
export interface AdditionalProperties {
  allows: boolean;
  schema?: Schema;
}

export function additionalProperties(s: Schema | undefined): AdditionalProperties | undefined {
  const a = s?.additionalProperties;
  if (a === undefined || a === null) return undefined;
  if (typeof a === 'boolean') return { allows: a };
  if (isObject(a)) return { allows: true, schema: a };
  return undefined;
}

export const typeOf = (s: Schema | undefined): string => (typeof s?.type === 'string' ? s.type : '');
export const flag = (s: Schema | undefined, name: string): boolean => s?.[name] === true;
export const preservesUnknownFields = (s: Schema | undefined) => flag(s, 'x-kubernetes-preserve-unknown-fields');
export const isEmbeddedResource = (s: Schema | undefined) => flag(s, 'x-kubernetes-embedded-resource');
export const isIntOrString = (s: Schema | undefined) => flag(s, 'x-kubernetes-int-or-string');
export const isNullable = (s: Schema | undefined) => flag(s, 'nullable');
export const hasDefault = (s: Schema | undefined): boolean => s !== undefined && s.default !== undefined;

export function stringValue(s: Schema | undefined, name: string): string | undefined {
  const v = s?.[name];
  return typeof v === 'string' ? v : undefined;
}

export function numberValue(s: Schema | undefined, name: string): number | undefined {
  const v = s?.[name];
  return typeof v === 'number' ? v : undefined;
}

export function stringList(s: Schema | undefined, name: string): string[] {
  const v = s?.[name];
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}

export function schemaList(s: Schema | undefined, name: string): Schema[] {
  const v = s?.[name];
  return Array.isArray(v) ? v.filter(isObject) : [];
}

/** The schema of a field of an object: its property, else additionalProperties' schema. */
export function fieldSchema(s: Schema | undefined, name: string): Schema | undefined {
  return property(s, name) ?? additionalProperties(s)?.schema;
}

/** A JSON value copied deeply. */
export function deepCopy<T>(v: T): T {
  return v === undefined ? v : (JSON.parse(JSON.stringify(v)) as T);
}

/** Deep equality of JSON values (object key order ignored). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    return Array.isArray(b) && a.length === b.length && a.every((x, i) => jsonEqual(x, b[i]));
  }
  if (isObject(a) && isObject(b)) {
    const ka = Object.keys(a);
    if (ka.length !== Object.keys(b).length) return false;
    return ka.every((k) => Object.hasOwn(b, k) && jsonEqual(a[k], b[k]));
  }
  return false;
}

const SCHEMA_TYPES = new Set(['object', 'array', 'string', 'integer', 'number', 'boolean']);
const asSchemaNode = new WeakMap<Schema, SchemaNode>();
const asRootSchemaNode = new WeakMap<Schema, SchemaNode>();

/**
 * A CRD schema node as the API's SchemaNode, for what reads schemas generically (managedFields): types, fields,
 * list types and map keys, map types. Nodes that keep unknown fields are left open (walked field by field, as
 * upstream's deduced types are), and the object's metadata stays ObjectMeta's business (no schema given for it).
 */
export function schemaNodeOf(s: Schema, root = true): SchemaNode {
  const cache = root ? asRootSchemaNode : asSchemaNode;
  const known = cache.get(s);
  if (known) return known;
  const props = properties(s);
  const names = props && !preservesUnknownFields(s) ? Object.keys(props) : undefined;
  const additional = additionalProperties(s)?.schema;
  const item = items(s);
  const listType = stringValue(s, 'x-kubernetes-list-type');
  const mapType = stringValue(s, 'x-kubernetes-map-type');
  const type = typeOf(s);
  const node: SchemaNode = {
    type: (SCHEMA_TYPES.has(type) && !isIntOrString(s) ? type : 'any') as SchemaNode['type'],
    ...(typeof s.format === 'string' ? { format: s.format } : {}),
    property: (name) => {
      if (root && name === 'metadata') return undefined;
      const p = names?.includes(name) ? props?.[name] : undefined;
      return p ? schemaNodeOf(p, false) : undefined;
    },
    ...(names ? { propertyNames: names } : {}),
    ...(additional ? { additionalProperties: schemaNodeOf(additional, false) } : {}),
    ...(item ? { items: schemaNodeOf(item, false) } : {}),
    ...(listType === 'atomic' || listType === 'set' || listType === 'map' ? { listType } : {}),
    ...(listType === 'map' ? { listMapKeys: stringList(s, 'x-kubernetes-list-map-keys') } : {}),
    ...(mapType === 'atomic' || mapType === 'granular' ? { mapType } : {}),
  };
  cache.set(s, node);
  return node;
}
