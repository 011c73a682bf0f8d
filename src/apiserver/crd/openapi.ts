/**
 * The OpenAPI definitions of custom resources, as apiextensions-apiserver publishes them: the kind named
 * `<reversed group>.<version>.<Kind>` (`com.example.v1.Widget`) holding the version's schema with apiVersion, kind
 * and metadata (a reference to ObjectMeta) added, and its list (`…WidgetList`: items, ListMeta). Both carry
 * x-kubernetes-group-version-kind, which is how `kubectl explain` finds them.
 */
import type { ServedResource } from '../api-registry.js';
import { type Dialect, refTo, type SchemaObject } from '../openapi/schema-convert.js';

const OBJECT_META = 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta';
const LIST_META = 'io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta';

const API_VERSION_DOC =
  'APIVersion defines the versioned schema of this representation of an object. Servers should convert recognized schemas to the latest internal value, and may reject unrecognized values. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources';
const KIND_DOC =
  'Kind is a string value representing the REST resource this object represents. Servers may infer this from the endpoint the client submits requests to. Cannot be updated. In CamelCase. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds';
const METADATA_DOC =
  "Standard object's metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata";
const LIST_METADATA_DOC =
  'Standard list metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#lists-and-kinds';

/** The definition names of a custom resource's kind and list. */
export function customDefinitionNames(def: { group: string; version: string; kind: string; listKind: string }) {
  const prefix = `${def.group.split('.').reverse().join('.')}.${def.version}`;
  return { kind: `${prefix}.${def.kind}`, list: `${prefix}.${def.listKind}` };
}

/** The built-in definitions the custom definitions refer to. */
export const CUSTOM_DEFINITION_REFERENCES = [OBJECT_META, LIST_META];

/**
 * A schema as the given dialect publishes it: v3 keeps the CEL rules (x-kubernetes-validations), as upstream's
 * structural schema writes them out; v2 has neither them nor `nullable`.
 */
function forDialect(schema: unknown, dialect: Dialect): unknown {
  if (Array.isArray(schema)) return schema.map((s) => forDialect(s, dialect));
  if (schema === null || typeof schema !== 'object') return schema;
  const out: SchemaObject = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'x-kubernetes-validations') {
      if (dialect !== 'v2') out[key] = value;
      continue;
    }
    if (dialect === 'v2' && key === 'nullable') continue;
    const nested = key === 'properties' || key === 'patternProperties' || key === 'definitions';
    out[key] = nested
      ? Object.fromEntries(Object.entries(value as SchemaObject).map(([k, v]) => [k, forDialect(v, dialect)]))
      : key === 'enum' || key === 'default' || key === 'example' || key === 'required'
        ? value
        : forDialect(value, dialect);
  }
  return out;
}

const EMBEDDED_API_VERSION_DOC =
  'apiVersion defines the versioned schema of this representation of an object. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources';
const EMBEDDED_KIND_DOC =
  'kind is a string value representing the type of this object. In CamelCase. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds';

function objectMetaRef(dialect: Dialect): SchemaObject {
  return dialect === 'v3'
    ? { allOf: [refTo(OBJECT_META, dialect)], description: METADATA_DOC }
    : { ...refTo(OBJECT_META, dialect), description: METADATA_DOC };
}

const isSchema = (v: unknown): v is SchemaObject => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * Gives every embedded resource (x-kubernetes-embedded-resource) in a published schema its apiVersion, kind and
 * metadata, kind and apiVersion required, as upstream's addEmbeddedProperties (in v2 not where unknown fields are
 * kept: kubectl would then refuse them). Changes the schema, a copy of the stored one, in place.
 */
function addEmbeddedProperties(schema: unknown, dialect: Dialect): void {
  if (!isSchema(schema)) return;
  if (isSchema(schema.properties)) for (const v of Object.values(schema.properties)) addEmbeddedProperties(v, dialect);
  addEmbeddedProperties(schema.items, dialect);
  addEmbeddedProperties(schema.additionalProperties, dialect);
  if (dialect === 'v2' && schema['x-kubernetes-preserve-unknown-fields'] === true) return;
  if (schema['x-kubernetes-embedded-resource'] !== true) return;
  schema.properties = {
    ...(isSchema(schema.properties) ? schema.properties : {}),
    apiVersion: { type: 'string', description: EMBEDDED_API_VERSION_DOC },
    kind: { type: 'string', description: EMBEDDED_KIND_DOC },
    metadata: objectMetaRef(dialect),
  };
  const required = Array.isArray(schema.required) ? [...(schema.required as string[])] : [];
  for (const name of ['kind', 'apiVersion']) if (!required.includes(name)) required.push(name);
  schema.required = required;
}

/** The custom definitions of the served resources that have a schema, by name. */
export function customDefinitions(
  resources: readonly ServedResource[],
  dialect: Dialect,
): Record<string, SchemaObject> {
  const out: Record<string, SchemaObject> = {};
  for (const served of resources) {
    if (!served.openapi) continue;
    const { def } = served;
    const names = customDefinitionNames(def);
    const schema = forDialect(served.openapi.schema, dialect) as SchemaObject;
    const gvk = [{ group: def.group, kind: def.kind, version: def.version }];
    if (dialect === 'v2' && schema['x-kubernetes-preserve-unknown-fields'] === true) {
      // Upstream publishes no fields at all then: kubectl would refuse the unknown ones.
      out[names.kind] = { type: 'object', 'x-kubernetes-group-version-kind': gvk };
    } else {
      addEmbeddedProperties(schema, dialect);
      // apiVersion, kind and metadata are set over the schema's own, as upstream's buildKubeNative sets them.
      out[names.kind] = {
        ...schema,
        type: 'object',
        properties: {
          ...((schema.properties as SchemaObject | undefined) ?? {}),
          apiVersion: { type: 'string', description: API_VERSION_DOC },
          kind: { type: 'string', description: KIND_DOC },
          metadata: objectMetaRef(dialect),
        },
        'x-kubernetes-group-version-kind': gvk,
      };
    }
    const listMeta =
      dialect === 'v3'
        ? { allOf: [refTo(LIST_META, dialect)], description: LIST_METADATA_DOC }
        : { ...refTo(LIST_META, dialect), description: LIST_METADATA_DOC };
    out[names.list] = {
      description: `${def.kind}List is a list of ${def.kind}`,
      type: 'object',
      required: ['items'],
      properties: {
        apiVersion: { type: 'string', description: API_VERSION_DOC },
        items: {
          type: 'array',
          description: `List of ${def.resource}. More info: https://git.k8s.io/community/contributors/devel/api-conventions.md`,
          items: refTo(names.kind, dialect),
        },
        kind: { type: 'string', description: KIND_DOC },
        metadata: listMeta,
      },
      'x-kubernetes-group-version-kind': [{ group: def.group, kind: def.listKind, version: def.version }],
    };
  }
  return out;
}
