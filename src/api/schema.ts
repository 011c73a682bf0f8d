/**
 * The API schema of the served built-in types, read from generated/definitions.json (written by
 * scripts/gen-api.mjs from the v1.33 OpenAPI document) and exposed as lazily built SchemaNodes.
 *
 * Type mapping, where the document's own type would mislead a walker:
 * - IntOrString stays `type: 'string'` with `format: 'int-or-string'`, as upstream publishes it; an
 *   integer is also a valid value for such a node.
 * - Quantity is `type: 'string'` with `definition` naming io.k8s.apimachinery.pkg.api.resource.Quantity
 *   (clients may also send a JSON number).
 * - Time and MicroTime are `type: 'string'` with `format: 'date-time'`.
 * - Objects without declared fields (RawExtension, FieldsV1, …) are `type: 'object'` with
 *   `preserveUnknownFields: true`; definitions without a type (apiextensions JSON, …) are `type: 'any'`.
 */
import { readGeneratedJson } from './generated-files.js';
import type { SchemaNode, SchemaType } from './schema-node.js';

/** One schema in the compact generated form (see scripts/gen-api.mjs for the key names). */
export interface RawSchema {
  readonly t?: string;
  readonly f?: string;
  readonly e?: readonly string[];
  readonly r?: string;
  readonly i?: RawSchema;
  readonly ap?: RawSchema | boolean;
  readonly p?: Readonly<Record<string, RawSchema>>;
  readonly req?: readonly string[];
  readonly ps?: string;
  readonly pk?: string;
  readonly lt?: 'atomic' | 'set' | 'map';
  readonly lk?: readonly string[];
  readonly mt?: 'atomic' | 'granular';
  readonly pu?: boolean;
  readonly ios?: boolean;
  readonly er?: boolean;
  readonly un?: readonly unknown[];
  readonly gvk?: readonly (readonly [string, string, string])[];
}

export interface GroupVersionKind {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
}

const TYPES: ReadonlySet<string> = new Set(['object', 'array', 'string', 'integer', 'number', 'boolean']);

let loaded: Readonly<Record<string, RawSchema>> | undefined;
let byKind: Map<string, string> | undefined;
const definitionNodes = new Map<string, SchemaNode>();

/** Every generated definition by name, in the compact form (read once, shared by all readers). */
export function rawDefinitions(): Readonly<Record<string, RawSchema>> {
  loaded ??= readGeneratedJson<Record<string, RawSchema>>('definitions.json');
  return loaded;
}

/** What a definition and each of its properties are for, by property name ("" for the type itself). */
export type Descriptions = Readonly<Record<string, string>>;

let descriptions: Readonly<Record<string, Descriptions>> | undefined;

/** The descriptions of a definition (our own words, as `kubectl explain` shows them), if written. */
export function descriptionsOf(name: string): Descriptions | undefined {
  descriptions ??= readGeneratedJson<Record<string, Descriptions>>('descriptions.json');
  return Object.hasOwn(descriptions, name) ? descriptions[name] : undefined;
}

const gvkKey = (group: string, version: string, kind: string): string => `${group}/${version}/${kind}`;

/** Metadata a property carries beside its $ref; it overrides the referenced definition's. */
function overlay(raw: RawSchema, target: RawSchema): RawSchema {
  const extra: Record<string, unknown> = {};
  for (const key of ['ps', 'pk', 'lt', 'lk', 'mt', 'pu'] as const) {
    if (raw[key] !== undefined) extra[key] = raw[key];
  }
  return Object.keys(extra).length === 0 ? target : { ...target, ...extra };
}

/** The node for an inline schema: follows a $ref, merging the property's own patch metadata. */
function nodeFor(raw: RawSchema): SchemaNode {
  if (raw.r === undefined) return new Node(raw, undefined);
  const target = rawDefinitions()[raw.r];
  if (target === undefined) throw new Error(`schema: definition ${raw.r} is referenced but not generated`);
  const merged = overlay(raw, target);
  return merged === target ? definitionNode(raw.r, target) : new Node(merged, raw.r);
}

function definitionNode(name: string, raw: RawSchema): SchemaNode {
  let node = definitionNodes.get(name);
  if (node === undefined) {
    node = new Node(raw, name);
    definitionNodes.set(name, node);
  }
  return node;
}

class Node implements SchemaNode {
  readonly type: SchemaType;
  readonly definition?: string;
  readonly format?: string;
  readonly enum?: readonly string[];
  readonly propertyNames?: readonly string[];
  readonly required?: readonly string[];
  readonly patchStrategy?: string;
  readonly patchMergeKey?: string;
  readonly listType?: 'atomic' | 'set' | 'map';
  readonly listMapKeys?: readonly string[];
  readonly mapType?: 'atomic' | 'granular';
  readonly preserveUnknownFields?: boolean;
  readonly #raw: RawSchema;
  readonly #properties = new Map<string, SchemaNode>();
  #items?: SchemaNode;
  #additional?: SchemaNode | null;

  constructor(raw: RawSchema, definition: string | undefined) {
    this.#raw = raw;
    this.definition = definition;
    const freeObject = raw.t === 'object' && raw.p === undefined && raw.ap === undefined;
    if (raw.ios === true) this.type = 'string';
    else this.type = raw.t !== undefined && TYPES.has(raw.t) ? (raw.t as SchemaType) : 'any';
    this.format = raw.ios === true ? 'int-or-string' : raw.f;
    this.enum = raw.e;
    this.propertyNames = raw.p === undefined ? undefined : Object.keys(raw.p);
    this.required = raw.req;
    this.patchStrategy = raw.ps;
    this.patchMergeKey = raw.pk;
    this.listType = raw.lt;
    this.listMapKeys = raw.lk;
    this.mapType = raw.mt;
    this.preserveUnknownFields = raw.pu === true || freeObject ? true : undefined;
  }

  property(name: string): SchemaNode | undefined {
    const cached = this.#properties.get(name);
    if (cached !== undefined) return cached;
    const fields = this.#raw.p;
    if (fields === undefined || !Object.hasOwn(fields, name)) return undefined;
    const raw = fields[name];
    if (raw === undefined) return undefined;
    const node = nodeFor(raw);
    this.#properties.set(name, node);
    return node;
  }

  get items(): SchemaNode | undefined {
    if (this.#items === undefined && this.#raw.i !== undefined) this.#items = nodeFor(this.#raw.i);
    return this.#items;
  }

  get additionalProperties(): SchemaNode | undefined {
    if (this.#additional === undefined) {
      const ap = this.#raw.ap;
      this.#additional = ap === undefined || ap === false ? null : nodeFor(ap === true ? {} : ap);
    }
    return this.#additional ?? undefined;
  }
}

/** The schema of one definition by its OpenAPI name, e.g. io.k8s.api.core.v1.PodSpec. */
export function schemaForDefinition(name: string): SchemaNode | undefined {
  const defs = rawDefinitions();
  if (!Object.hasOwn(defs, name)) return undefined;
  const raw = defs[name];
  return raw === undefined ? undefined : definitionNode(name, raw);
}

/** The name of the definition whose x-kubernetes-group-version-kind lists this kind (the first, as upstream). */
export function definitionOfKind(gvk: GroupVersionKind): string | undefined {
  if (byKind === undefined) {
    byKind = new Map();
    for (const [name, raw] of Object.entries(rawDefinitions())) {
      for (const [group, version, kind] of raw.gvk ?? []) {
        const key = gvkKey(group, version, kind);
        if (!byKind.has(key)) byKind.set(key, name);
      }
    }
  }
  return byKind.get(gvkKey(gvk.group, gvk.version, gvk.kind));
}

/** The schema of the top-level type that has this group, version and kind. */
export function schemaForKind(gvk: GroupVersionKind): SchemaNode | undefined {
  const name = definitionOfKind(gvk);
  return name === undefined ? undefined : schemaForDefinition(name);
}
