/**
 * Turns a compact schema from our tables into an OpenAPI schema object: Swagger 2.0 (`#/definitions/…` refs) for
 * /openapi/v2 or OpenAPI 3.0 (`#/components/schemas/…` refs) for /openapi/v3, with the x-kubernetes-* extensions
 * clients read. Descriptions come from our own table (descriptions.json, for `kubectl explain`); defaults are not
 * in our tables and are left out.
 *
 * Two differences between the dialects follow kube-openapi: in v3 a $ref never has siblings (a property that adds
 * patch metadata to a referenced type wraps the reference in a one-element allOf), and the two types that are
 * unions of JSON types publish them as oneOf (IntOrString: integer or string; Quantity: string or number).
 */
import { type Descriptions, descriptionsOf } from '../../api/schema.js';
import type { RawSchema } from './definitions.js';

export type Dialect = 'v2' | 'v3';
export type SchemaObject = Record<string, unknown>;

const EXTENSIONS: readonly (readonly [keyof RawSchema, string])[] = [
  ['ps', 'x-kubernetes-patch-strategy'],
  ['pk', 'x-kubernetes-patch-merge-key'],
  ['lt', 'x-kubernetes-list-type'],
  ['lk', 'x-kubernetes-list-map-keys'],
  ['mt', 'x-kubernetes-map-type'],
  ['pu', 'x-kubernetes-preserve-unknown-fields'],
  ['ios', 'x-kubernetes-int-or-string'],
  ['er', 'x-kubernetes-embedded-resource'],
  ['un', 'x-kubernetes-unions'],
];

/** Definitions whose v3 schema is a oneOf of JSON types instead of v2's single type. */
const V3_ONE_OF: Readonly<Record<string, SchemaObject>> = {
  'io.k8s.apimachinery.pkg.util.intstr.IntOrString': {
    format: 'int-or-string',
    oneOf: [{ type: 'integer' }, { type: 'string' }],
  },
  'io.k8s.apimachinery.pkg.api.resource.Quantity': { oneOf: [{ type: 'string' }, { type: 'number' }] },
};

export function refTo(name: string, dialect: Dialect): { $ref: string } {
  return { $ref: dialect === 'v2' ? `#/definitions/${name}` : `#/components/schemas/${name}` };
}

function extensionsOf(raw: RawSchema): SchemaObject {
  const out: SchemaObject = {};
  for (const [key, name] of EXTENSIONS) {
    const value = raw[key];
    if (value !== undefined) out[name] = structuredClone(value);
  }
  return out;
}

/**
 * A property's schema with its description: beside the $ref in v2; in v3, where a $ref has no siblings, around a
 * one-element allOf (as kube-openapi publishes described references).
 */
function described(schema: SchemaObject, description: string | undefined, dialect: Dialect): SchemaObject {
  if (!description) return schema;
  if (dialect === 'v3' && schema.$ref !== undefined) return { allOf: [schema], description };
  return { ...schema, description };
}

/** descriptionsFor: the descriptions of the properties, when raw is a definition that has them. */
export function convertSchema(raw: RawSchema, dialect: Dialect, descriptionsFor?: Descriptions): SchemaObject {
  const extensions = extensionsOf(raw);
  if (raw.r !== undefined) {
    const ref = refTo(raw.r, dialect);
    if (Object.keys(extensions).length === 0) return ref;
    return dialect === 'v3' ? { allOf: [ref], ...extensions } : { ...ref, ...extensions };
  }
  const out: SchemaObject = {};
  if (raw.t !== undefined) out.type = raw.t;
  if (raw.f !== undefined) out.format = raw.f;
  if (raw.e !== undefined) out.enum = [...raw.e];
  if (raw.i !== undefined) out.items = convertSchema(raw.i, dialect);
  if (raw.ap !== undefined) {
    out.additionalProperties = typeof raw.ap === 'boolean' ? raw.ap : convertSchema(raw.ap, dialect);
  }
  if (raw.p !== undefined) {
    const properties: SchemaObject = {};
    for (const [name, prop] of Object.entries(raw.p)) {
      properties[name] = described(convertSchema(prop, dialect), descriptionsFor?.[name], dialect);
    }
    out.properties = properties;
  }
  if (raw.req !== undefined) out.required = [...raw.req];
  Object.assign(out, extensions);
  if (raw.gvk !== undefined) {
    out['x-kubernetes-group-version-kind'] = raw.gvk.map(([group, version, kind]) => ({ group, kind, version }));
  }
  return out;
}

/** The published schema of one named definition. */
export function convertDefinition(name: string, raw: RawSchema, dialect: Dialect): SchemaObject {
  const oneOf = dialect === 'v3' ? V3_ONE_OF[name] : undefined;
  const descriptions = descriptionsOf(name);
  const out = oneOf === undefined ? convertSchema(raw, dialect, descriptions) : structuredClone(oneOf);
  const own = descriptions?.[''];
  return own ? { description: own, ...out } : out;
}
