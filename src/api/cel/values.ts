/**
 * Kubernetes values (decoded JSON) to CEL values and back. CEL tells `int` from `double`, and JSON does not: the
 * schema of a field decides (OpenAPI `integer` → int, `number` → double, int-or-string → int or string). Without a
 * schema a whole number becomes an int and any other number a double, as upstream's unstructured decoding gives
 * int64 and float64. CEL ints are bigints here, doubles plain numbers; results come back as JSON numbers.
 */
import { Environment, Optional } from '@marcbachmann/cel-js';

/**
 * The part of a schema that decides CEL types. The API's SchemaNode satisfies it; `openAPISchemaForCel` wraps a raw
 * OpenAPI v3 schema (a CRD's JSONSchemaProps).
 */
export interface CelValueSchema {
  /** object, array, string, integer, number, boolean, or any/absent for "anything". */
  readonly type?: string;
  /** `int-or-string` marks IntOrString (x-kubernetes-int-or-string). */
  readonly format?: string;
  property?(name: string): CelValueSchema | undefined;
  /** The named fields of an object (for type checking). */
  readonly propertyNames?: readonly string[];
  readonly additionalProperties?: CelValueSchema;
  readonly items?: CelValueSchema;
}

/** A raw OpenAPI v3 schema object, as CRDs carry it (only the fields that decide CEL types are read). */
export interface RawOpenAPISchema {
  type?: string;
  format?: string;
  properties?: Record<string, RawOpenAPISchema>;
  additionalProperties?: RawOpenAPISchema | boolean;
  items?: RawOpenAPISchema;
  'x-kubernetes-int-or-string'?: boolean;
}

/** Wraps a raw OpenAPI v3 schema (e.g. a CRD version's openAPIV3Schema) as a CelValueSchema. */
export function openAPISchemaForCel(raw: RawOpenAPISchema): CelValueSchema {
  const additional = typeof raw.additionalProperties === 'object' ? raw.additionalProperties : undefined;
  return {
    type: raw.type,
    format: raw['x-kubernetes-int-or-string'] === true ? 'int-or-string' : raw.format,
    propertyNames: raw.properties ? Object.keys(raw.properties) : undefined,
    property: (name) => {
      const p = raw.properties?.[name];
      return p ? openAPISchemaForCel(p) : undefined;
    },
    additionalProperties: additional ? openAPISchemaForCel(additional) : undefined,
    items: raw.items ? openAPISchemaForCel(raw.items) : undefined,
  };
}

/** Parses Go duration text (`1h30m`, `-1.5s`) with the CEL library's own duration(): undefined when it is not one. */
let durationOf: ((text: string) => unknown) | undefined;
function parseDuration(text: string): unknown {
  durationOf ??= (() => {
    const env = new Environment().registerVariable('text', 'string');
    const program = env.parse('duration(text)');
    return (t: string) => program({ text: t });
  })();
  try {
    return durationOf(text);
  } catch {
    return undefined;
  }
}

const RFC3339_DATE = /^\d{4}-\d{2}-\d{2}$/;

/**
 * A string as its format types it in CEL, as upstream's UnstructuredToVal does: `date-time` and `date` a timestamp,
 * `duration` a duration, `byte` bytes (base64). Text that does not parse stays a string.
 */
function stringToCel(text: string, format: string | undefined): unknown {
  switch (format) {
    case 'date-time':
    case 'date': {
      if (format === 'date' && !RFC3339_DATE.test(text)) return text;
      const t = Date.parse(format === 'date' ? `${text}T00:00:00Z` : text);
      return Number.isNaN(t) ? text : new Date(t);
    }
    case 'duration':
      return parseDuration(text) ?? text;
    case 'byte':
      return /^[A-Za-z0-9+/]*={0,2}$/.test(text) ? new Uint8Array(Buffer.from(text, 'base64')) : text;
    default:
      return text;
  }
}

function numberToCel(n: number, schema: CelValueSchema | undefined): bigint | number {
  const type = schema?.type;
  if (type === 'number') return n;
  if (Number.isInteger(n)) return BigInt(n);
  return n;
}

/** Converts a decoded JSON value to the CEL value its schema asks for (see the file comment). */
export function toCel(value: unknown, schema?: CelValueSchema): unknown {
  if (value === null || value === undefined) return null;
  switch (typeof value) {
    case 'number':
      return numberToCel(value, schema);
    case 'string':
      return schema?.type === 'string' ? stringToCel(value, schema.format) : value;
    case 'boolean':
    case 'bigint':
      return value;
    case 'object':
      break;
    default:
      return null;
  }
  if (Array.isArray(value)) {
    const items = schema?.items;
    return value.map((v) => toCel(v, items));
  }
  if (value instanceof Uint8Array || value instanceof Date || value instanceof Optional) return value;
  const record = value as Record<string, unknown>;
  // The CEL library tells a map by its constructor property, and `__proto__` cannot be an own key of an object made
  // by assignment: an object with either key is given as a Map.
  if (Object.hasOwn(record, 'constructor') || Object.hasOwn(record, '__proto__')) {
    const map = new Map<string, unknown>();
    for (const [k, v] of Object.entries(record)) {
      if (v !== undefined) map.set(k, toCel(v, schema?.property?.(k) ?? schema?.additionalProperties));
    }
    return map;
  }
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(record)) {
    if (v === undefined) continue;
    const child = schema?.property?.(k) ?? schema?.additionalProperties;
    out[k] = toCel(v, child);
  }
  return out;
}

/** Converts a CEL result back to JSON: ints to numbers, maps to objects, bytes to base64, timestamps to RFC 3339. */
export function fromCel(value: unknown): unknown {
  if (value === null || value === undefined) return null;
  switch (typeof value) {
    case 'bigint':
      return Number(value);
    case 'number':
    case 'string':
    case 'boolean':
      return value;
    case 'object':
      break;
    default:
      return String(value);
  }
  if (Array.isArray(value)) return value.map(fromCel);
  if (value instanceof Set) return [...value].map(fromCel);
  if (value instanceof Uint8Array) return Buffer.from(value).toString('base64');
  if (value instanceof Date) return value.toISOString();
  if (value instanceof Optional) return value.hasValue() ? fromCel(value.value()) : null;
  if (value instanceof Map) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of value) out[String(k)] = fromCel(v);
    return out;
  }
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) {
    // A library's value (UnsignedInt, Duration, a Kubernetes type such as Quantity): its text form.
    const v = (value as { valueOf(): unknown }).valueOf();
    if (typeof v === 'bigint') return Number(v);
    return String(value);
  }
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) out[k] = fromCel(v);
  return out;
}
