/**
 * The Swagger 2.0 document in the protobuf form kube-openapi serves at /openapi/v2 (gnostic's openapi.v2.Document,
 * the form kubectl asks for): built from the JSON document as gnostic's parser reads it. Keys starting with `x-` are
 * vendor extensions, whose values (like defaults, examples and enum values) travel as YAML text in an `Any`; named
 * maps (definitions, properties, paths, responses) keep the JSON document's order. Fields at their zero value are
 * left out, as proto3 writes them.
 */
import { stringify as yamlStringify } from 'yaml';
import { bytesField, doubleField, message, messageField, varintField } from '../../api/protobuf/wire-writer.js';

type Json = Record<string, unknown>;
type Fields = Uint8Array[];

const isJson = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const entries = (v: unknown): [string, unknown][] => (isJson(v) ? Object.entries(v) : []);

function str(number: number, v: unknown): Fields {
  return typeof v === 'string' && v !== '' ? [bytesField(number, v)] : [];
}

function strs(number: number, v: unknown): Fields {
  return Array.isArray(v) ? v.filter((s) => typeof s === 'string').map((s) => bytesField(number, s)) : [];
}

function bool(number: number, v: unknown): Fields {
  return v === true ? [varintField(number, 1)] : [];
}

function int(number: number, v: unknown): Fields {
  return typeof v === 'number' && Number.isInteger(v) && v !== 0 ? [varintField(number, v)] : [];
}

function double(number: number, v: unknown): Fields {
  return typeof v === 'number' && v !== 0 ? [doubleField(number, v)] : [];
}

/** gnostic's Any: the value as YAML text (the `yaml` field, 2). */
function anyMessage(value: unknown): Uint8Array {
  return bytesField(2, yamlStringify(value, { version: '1.1' }));
}

function any(number: number, v: unknown): Fields {
  return v === undefined ? [] : [messageField(number, anyMessage(v))];
}

function anys(number: number, v: unknown): Fields {
  return Array.isArray(v) ? v.map((item) => messageField(number, anyMessage(item))) : [];
}

/** The `x-` keys of an object as NamedAny entries. */
function extensions(number: number, obj: Json): Fields {
  const out: Fields = [];
  for (const [key, value] of Object.entries(obj)) {
    if (key.startsWith('x-')) out.push(messageField(number, bytesField(1, key), messageField(2, anyMessage(value))));
  }
  return out;
}

/** A named map (NamedX entries: name 1, value 2) of the object's keys that are not extensions. */
function named(number: number, v: unknown, value: (item: unknown) => Fields): Fields {
  const out: Fields = [];
  for (const [key, item] of entries(v)) {
    if (!key.startsWith('x-')) out.push(messageField(number, bytesField(1, key), messageField(2, ...value(item))));
  }
  return out;
}

function externalDocs(number: number, v: unknown): Fields {
  if (!isJson(v)) return [];
  return [messageField(number, ...str(1, v.description), ...str(2, v.url), ...extensions(3, v))];
}

/** Schema. */
function schema(v: unknown): Fields {
  if (!isJson(v)) return [];
  const fields: Fields = [
    ...str(1, v.$ref),
    ...str(2, v.format),
    ...str(3, v.title),
    ...str(4, v.description),
    ...any(5, v.default),
    ...double(6, v.multipleOf),
    ...double(7, v.maximum),
    ...bool(8, v.exclusiveMaximum),
    ...double(9, v.minimum),
    ...bool(10, v.exclusiveMinimum),
    ...int(11, v.maxLength),
    ...int(12, v.minLength),
    ...str(13, v.pattern),
    ...int(14, v.maxItems),
    ...int(15, v.minItems),
    ...bool(16, v.uniqueItems),
    ...int(17, v.maxProperties),
    ...int(18, v.minProperties),
    ...strs(19, v.required),
    ...anys(20, v.enum),
  ];
  // AdditionalPropertiesItem: a schema (1) or a boolean (2), written even when false (a oneof member).
  const extra = v.additionalProperties;
  if (typeof extra === 'boolean') fields.push(messageField(21, varintField(2, extra)));
  else if (isJson(extra)) fields.push(messageField(21, messageField(1, ...schema(extra))));
  // TypeItem: one type or several.
  if (typeof v.type === 'string') fields.push(messageField(22, bytesField(1, v.type)));
  else if (Array.isArray(v.type)) fields.push(messageField(22, ...strs(1, v.type)));
  // ItemsItem: one schema or several.
  if (isJson(v.items)) fields.push(messageField(23, messageField(1, ...schema(v.items))));
  else if (Array.isArray(v.items)) fields.push(messageField(23, ...v.items.map((s) => messageField(1, ...schema(s)))));
  if (Array.isArray(v.allOf)) for (const s of v.allOf) fields.push(messageField(24, ...schema(s)));
  if (isJson(v.properties)) fields.push(messageField(25, ...named(1, v.properties, schema)));
  fields.push(...str(26, v.discriminator), ...bool(27, v.readOnly));
  if (isJson(v.xml)) {
    const x = v.xml;
    fields.push(
      messageField(
        28,
        ...str(1, x.name),
        ...str(2, x.namespace),
        ...str(3, x.prefix),
        ...bool(4, x.attribute),
        ...bool(5, x.wrapped),
        ...extensions(6, x),
      ),
    );
  }
  fields.push(...externalDocs(29, v.externalDocs), ...any(30, v.example), ...extensions(31, v));
  return fields;
}

/** PrimitivesItems (a non-body parameter's or a header's items). */
function primitivesItems(v: Json): Fields {
  return [
    ...str(1, v.type),
    ...str(2, v.format),
    ...(isJson(v.items) ? [messageField(3, ...primitivesItems(v.items))] : []),
    ...str(4, v.collectionFormat),
    ...validations(5, v),
    ...extensions(18, v),
  ];
}

/**
 * The validation keywords shared by parameters, headers and items, from default to multipleOf, numbered from
 * `first` on as gnostic numbers them in each of those messages.
 */
function validations(first: number, v: Json): Fields {
  return [
    ...any(first, v.default),
    ...double(first + 1, v.maximum),
    ...bool(first + 2, v.exclusiveMaximum),
    ...double(first + 3, v.minimum),
    ...bool(first + 4, v.exclusiveMinimum),
    ...int(first + 5, v.maxLength),
    ...int(first + 6, v.minLength),
    ...str(first + 7, v.pattern),
    ...int(first + 8, v.maxItems),
    ...int(first + 9, v.minItems),
    ...bool(first + 10, v.uniqueItems),
    ...anys(first + 11, v.enum),
    ...double(first + 12, v.multipleOf),
  ];
}

/**
 * A non-body parameter: Header (1), FormData (2), Query (3) or Path (4) parameter sub-schema. FormData and Query
 * have allowEmptyValue as field 5, which moves every later field one on.
 */
function nonBodyParameter(v: Json): Fields {
  const which = { header: 1, formData: 2, query: 3, path: 4 }[String(v.in)];
  if (which === undefined) return [];
  const shift = which === 2 || which === 3 ? 1 : 0;
  const fields: Fields = [
    ...bool(1, v.required),
    ...str(2, v.in),
    ...str(3, v.description),
    ...str(4, v.name),
    ...(shift ? bool(5, v.allowEmptyValue) : []),
    ...str(5 + shift, v.type),
    ...str(6 + shift, v.format),
    ...(isJson(v.items) ? [messageField(7 + shift, ...primitivesItems(v.items))] : []),
    ...str(8 + shift, v.collectionFormat),
    ...validations(9 + shift, v),
    ...extensions(22 + shift, v),
  ];
  return [messageField(which, ...fields)];
}

/** Parameter: a body parameter (1) or a non-body one (2). */
function parameter(v: unknown): Fields {
  if (!isJson(v)) return [];
  if (v.in !== 'body') return [messageField(2, ...nonBodyParameter(v))];
  return [
    messageField(
      1,
      ...str(1, v.description),
      ...str(2, v.name),
      ...str(3, v.in),
      ...bool(4, v.required),
      ...(isJson(v.schema) ? [messageField(5, ...schema(v.schema))] : []),
      ...extensions(6, v),
    ),
  ];
}

/** JsonReference: a `$ref`, for parameters and responses defined once in the document. */
function jsonReference(v: Json): Fields {
  return [...str(1, v.$ref), ...str(2, v.description)];
}

/** ParametersItem: a Parameter (1) or a JsonReference (2). */
function parametersItem(number: number, v: unknown): Fields {
  if (!isJson(v)) return [];
  if (typeof v.$ref === 'string') return [messageField(number, messageField(2, ...jsonReference(v)))];
  return [messageField(number, messageField(1, ...parameter(v)))];
}

function parameters(number: number, v: unknown): Fields {
  return Array.isArray(v) ? v.flatMap((p) => parametersItem(number, p)) : [];
}

/** ResponseValue: a Response (1) or a JsonReference (2). */
function responseValue(v: unknown): Fields {
  if (!isJson(v)) return [];
  if (typeof v.$ref === 'string') return [messageField(2, ...jsonReference(v))];
  return [messageField(1, ...response(v))];
}

/** FileSchema: a response's schema of `type: file`, numbered apart from Schema. */
function fileSchema(v: Json): Fields {
  return [
    ...str(1, v.format),
    ...str(2, v.title),
    ...str(3, v.description),
    ...any(4, v.default),
    ...strs(5, v.required),
    ...str(6, v.type),
    ...bool(7, v.readOnly),
    ...externalDocs(8, v.externalDocs),
    ...any(9, v.example),
    ...extensions(10, v),
  ];
}

/** Response. */
function response(v: unknown): Fields {
  if (!isJson(v)) return [];
  const headers = named(1, v.headers, (h) =>
    isJson(h)
      ? [
          ...str(1, h.type),
          ...str(2, h.format),
          ...(isJson(h.items) ? [messageField(3, ...primitivesItems(h.items))] : []),
          ...str(4, h.collectionFormat),
          ...validations(5, h),
          ...str(18, h.description),
          ...extensions(19, h),
        ]
      : [],
  );
  // SchemaItem: a Schema (1), or a FileSchema (2) for `type: file`.
  const schemaItem = isJson(v.schema)
    ? [
        messageField(
          2,
          v.schema.type === 'file' ? messageField(2, ...fileSchema(v.schema)) : messageField(1, ...schema(v.schema)),
        ),
      ]
    : [];
  return [
    ...str(1, v.description),
    ...schemaItem,
    ...(headers.length > 0 ? [messageField(3, ...headers)] : []),
    ...(isJson(v.examples) ? [messageField(4, ...named(1, v.examples, (e) => [anyMessage(e)]))] : []),
    ...extensions(5, v),
  ];
}

function operation(number: number, v: unknown): Fields {
  if (!isJson(v)) return [];
  return [
    messageField(
      number,
      ...strs(1, v.tags),
      ...str(2, v.summary),
      ...str(3, v.description),
      ...externalDocs(4, v.externalDocs),
      ...str(5, v.operationId),
      ...strs(6, v.produces),
      ...strs(7, v.consumes),
      ...parameters(8, v.parameters),
      ...(isJson(v.responses)
        ? [messageField(9, ...named(1, v.responses, responseValue), ...extensions(2, v.responses))]
        : []),
      ...strs(10, v.schemes),
      ...bool(11, v.deprecated),
      ...security(12, v.security),
      ...extensions(13, v),
    ),
  ];
}

function pathItem(v: unknown): Fields {
  if (!isJson(v)) return [];
  return [
    ...str(1, v.$ref),
    ...operation(2, v.get),
    ...operation(3, v.put),
    ...operation(4, v.post),
    ...operation(5, v.delete),
    ...operation(6, v.options),
    ...operation(7, v.head),
    ...operation(8, v.patch),
    ...parameters(9, v.parameters),
    ...extensions(10, v),
  ];
}

/** SecurityRequirement list: each a map of scheme name to its scopes (NamedStringArray of StringArray). */
function security(number: number, v: unknown): Fields {
  if (!Array.isArray(v)) return [];
  return v.map((requirement) => messageField(number, ...named(1, requirement, (scopes) => strs(1, scopes))));
}

/** SecurityDefinitionsItem: basic (1), apiKey (2) or one of the four OAuth2 flows (3–6). */
function securityScheme(v: unknown): Fields {
  if (!isJson(v)) return [];
  if (v.type === 'basic') return [messageField(1, ...str(1, v.type), ...str(2, v.description), ...extensions(3, v))];
  if (v.type === 'apiKey') {
    return [
      messageField(
        2,
        ...str(1, v.type),
        ...str(2, v.name),
        ...str(3, v.in),
        ...str(4, v.description),
        ...extensions(5, v),
      ),
    ];
  }
  if (v.type !== 'oauth2') return [];
  const scopes = isJson(v.scopes) ? [messageField(3, ...named(1, v.scopes, (s) => str(1, s)))] : [];
  const head = [...str(1, v.type), ...str(2, v.flow), ...scopes];
  switch (v.flow) {
    case 'implicit':
      return [messageField(3, ...head, ...str(4, v.authorizationUrl), ...str(5, v.description), ...extensions(6, v))];
    case 'password':
      return [messageField(4, ...head, ...str(4, v.tokenUrl), ...str(5, v.description), ...extensions(6, v))];
    case 'application':
      return [messageField(5, ...head, ...str(4, v.tokenUrl), ...str(5, v.description), ...extensions(6, v))];
    case 'accessCode':
      return [
        messageField(
          6,
          ...head,
          ...str(4, v.authorizationUrl),
          ...str(5, v.tokenUrl),
          ...str(6, v.description),
          ...extensions(7, v),
        ),
      ];
    default:
      return [];
  }
}

/** The document's bytes: openapi.v2.Document. */
export function encodeV2Document(doc: Json): Buffer {
  const info = isJson(doc.info) ? doc.info : {};
  const fields: Fields = [
    ...str(1, doc.swagger),
    messageField(
      2,
      ...str(1, info.title),
      ...str(2, info.version),
      ...str(3, info.description),
      ...extensions(7, info),
    ),
    ...str(3, doc.host),
    ...str(4, doc.basePath),
    ...strs(5, doc.schemes),
    ...strs(6, doc.consumes),
    ...strs(7, doc.produces),
  ];
  if (isJson(doc.paths)) fields.push(messageField(8, ...extensions(1, doc.paths), ...named(2, doc.paths, pathItem)));
  if (isJson(doc.definitions)) fields.push(messageField(9, ...named(1, doc.definitions, schema)));
  // The document's own parameter and response definitions are Parameter and Response messages, not items.
  if (isJson(doc.parameters)) fields.push(messageField(10, ...named(1, doc.parameters, parameter)));
  if (isJson(doc.responses)) fields.push(messageField(11, ...named(1, doc.responses, response)));
  fields.push(...security(12, doc.security));
  if (isJson(doc.securityDefinitions))
    fields.push(messageField(13, ...named(1, doc.securityDefinitions, securityScheme)));
  fields.push(...extensions(16, doc));
  return Buffer.from(message(...fields));
}
