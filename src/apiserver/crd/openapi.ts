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
    const metadata =
      dialect === 'v3'
        ? { allOf: [refTo(OBJECT_META, dialect)], description: METADATA_DOC }
        : { ...refTo(OBJECT_META, dialect), description: METADATA_DOC };
    out[names.kind] = {
      ...schema,
      type: 'object',
      properties: {
        apiVersion: { type: 'string', description: API_VERSION_DOC },
        kind: { type: 'string', description: KIND_DOC },
        metadata,
        ...((schema.properties as SchemaObject | undefined) ?? {}),
      },
      'x-kubernetes-group-version-kind': [{ group: def.group, kind: def.kind, version: def.version }],
    };
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
