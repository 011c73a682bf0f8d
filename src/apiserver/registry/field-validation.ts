/**
 * Server-side field validation, as kube-apiserver v1.33 does it for create, update and patch:
 *
 * - `?fieldValidation=Strict|Warn|Ignore` (first value; absent means Warn; anything else is 422 Invalid on
 *   CreateOptions/UpdateOptions/PatchOptions). kubectl sends Strict by default (`--validate=strict`).
 * - Under Strict and Warn the body is decoded strictly: fields the type does not have (`unknown field "spec.x"`)
 *   and fields given twice (`duplicate field "metadata.name"`) are errors, listed in the order the decoder meets
 *   them. Strict refuses the request — 400 `<Kind> in version "<v>" cannot be handled as a <Kind>: strict decoding
 *   error: <errors joined by ", ">` for create/update, 422 `patch: Invalid value: …` for patch — and Warn answers
 *   normally with one `Warning: 299 - "<error>"` header per error.
 *
 * Paths follow the decoder that finds them. Request bodies and the results of JSON and merge patches go through
 * sigs.k8s.io/json: `a.b`, `a[0].b`, map keys as `.key`, the path Go-quoted. Strategic merge patch results go
 * through the unstructured converter: map keys are left out of paths, the path is not escaped, and the errors are
 * sorted. Values that preserve unknown fields (RawExtension, FieldsV1, JSON) are not looked into.
 */

import { invalid, notSupported, path } from '../../api/field-errors.js';
import { goJsonMarshalSorted } from '../../api/go-json.js';
import { type GoTimeLayout, reencodeGoTime } from '../../api/go-time.js';
import { formatGoValue, jsonKindWord } from '../../api/patch/go-format.js';
import type { SchemaNode } from '../../api/schema-node.js';
import { StatusError, statusErrors } from '../../api/status-error.js';
import { goQuote } from '../../api/validation/go-format.js';
import type { HttpResponse } from '../context.js';

export type FieldValidationDirective = 'Ignore' | 'Warn' | 'Strict';
export type OptionsKind = 'CreateOptions' | 'UpdateOptions' | 'PatchOptions';

const DIRECTIVES: readonly string[] = ['', 'Ignore', 'Strict', 'Warn'];

/** The directive of a create (CreateOptions), update (UpdateOptions) or patch (PatchOptions) request. */
export function fieldValidationDirective(query: URLSearchParams, options: OptionsKind): FieldValidationDirective {
  const value = query.getAll('fieldValidation')[0] ?? '';
  if (!DIRECTIVES.includes(value)) {
    const err = notSupported(path('fieldValidation'), value, DIRECTIVES);
    throw statusErrors.invalid({ group: 'meta.k8s.io', kind: options }, '', [err.toCause()], err.message);
  }
  return value === '' ? 'Warn' : (value as FieldValidationDirective);
}

// ---- walking decoded values ----------------------------------------------------------------------------------

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Go orders strings by their UTF-8 bytes. */
const byBytes = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));
const child = (parent: string, key: string) => (parent === '' ? key : `${parent}.${key}`);
const opaque = (node: SchemaNode) => node.preserveUnknownFields === true || node.type === 'any';
const isMap = (node: SchemaNode) => node.propertyNames === undefined && node.additionalProperties !== undefined;

interface WalkStyle {
  /** Visit keys in Go's sorted order (objects that were a Go map before being decoded) instead of as given. */
  readonly sorted: boolean;
  /** Whether a map value's path includes its key (the JSON decoder) or not (the unstructured converter). */
  readonly mapKeys: boolean;
  /** Delete the unknown fields found. */
  readonly prune?: boolean;
}

function walk(value: unknown, node: SchemaNode, at: string, style: WalkStyle, out: string[]): void {
  if (opaque(node)) return;
  if (Array.isArray(value)) {
    const items = node.items;
    if (node.type !== 'array' || items === undefined) return;
    for (const [i, v] of value.entries()) walk(v, items, `${at}[${i}]`, style, out);
    return;
  }
  if (!isRecord(value) || node.type !== 'object') return;
  const keys = style.sorted ? Object.keys(value).sort(byBytes) : Object.keys(value);
  const values = node.additionalProperties;
  if (isMap(node) && values !== undefined) {
    for (const key of keys) walk(value[key], values, style.mapKeys ? child(at, key) : at, style, out);
    return;
  }
  for (const key of keys) {
    const field = node.property(key);
    if (field === undefined) {
      out.push(child(at, key));
      if (style.prune) delete value[key];
    } else {
      walk(value[key], field, child(at, key), style, out);
    }
  }
}

// ---- type errors of decoding into Go types ---------------------------------------------------------------------

/** Types whose own JSON decoding takes more than one JSON type, or any JSON at all. */
const LENIENT_TYPES = new Set([
  'io.k8s.apimachinery.pkg.api.resource.Quantity',
  'io.k8s.apimachinery.pkg.util.intstr.IntOrString',
  'io.k8s.apimachinery.pkg.runtime.RawExtension',
  'io.k8s.apimachinery.pkg.apis.meta.v1.FieldsV1',
]);
const INT_OR_STRING = 'io.k8s.apimachinery.pkg.util.intstr.IntOrString';

/**
 * IntOrString's own decoding: a string, or else the JSON decoded into an int32 (whose error names no struct field):
 * `true`, `{}` or `1.5` are refused.
 */
function intOrStringError(value: unknown): string | undefined {
  if (typeof value === 'string' || value === null) return undefined;
  if (typeof value === 'number') {
    if (Number.isInteger(value) && value >= -2147483648 && value <= 2147483647) return undefined;
    return `json: cannot unmarshal number ${value} into Go value of type int32`;
  }
  return `json: cannot unmarshal ${jsonKindWord(value)} into Go value of type int32`;
}

/** Types that decode a JSON string themselves (so their error is not about a struct field), by their layout. */
const TIME_TYPES = new Map<string, GoTimeLayout>([
  ['io.k8s.apimachinery.pkg.apis.meta.v1.Time', 'time'],
  ['io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime', 'microtime'],
]);

/** A definition's Go type as encoding/json prints it: package and name (`v1.Container`, `resource.Quantity`). */
function goDefinitionName(definition: string): string {
  const parts = definition.split('.');
  return parts.slice(-2).join('.');
}

/** The Go type a schema node decodes into, as encoding/json prints it in a type error. */
function goTypeOf(node: SchemaNode): string {
  if (node.definition) return goDefinitionName(node.definition);
  switch (node.type) {
    case 'array':
      return `[]${node.items ? goTypeOf(node.items) : 'interface {}'}`;
    case 'object':
      return `map[string]${node.additionalProperties ? goTypeOf(node.additionalProperties) : 'interface {}'}`;
    case 'string':
      return node.format === 'byte' ? '[]uint8' : 'string';
    case 'integer':
      return node.format === 'int32' ? 'int32' : 'int64';
    case 'number':
      return 'float64';
    case 'boolean':
      return 'bool';
    default:
      return 'interface {}';
  }
}

/** Go's base64.StdEncoding error for text that is not standard base64 (undefined when it is). */
export function base64Error(text: string): string | undefined {
  const data = text.replace(/[\r\n]/g, '');
  const at = (i: number) => `illegal base64 data at input byte ${i}`;
  for (let i = 0; i < data.length; i++) {
    const c = data[i] as string;
    if (/[A-Za-z0-9+/]/.test(c)) continue;
    // Padding only ends the last quantum: one or two '=' and nothing after them.
    const rest = data.slice(i);
    if (c === '=' && (rest === '=' || rest === '==') && data.length % 4 === 0 && i % 4 >= 2) return undefined;
    return at(i);
  }
  return data.length % 4 === 0 ? undefined : at(data.length - (data.length % 4));
}

/**
 * The error Go's decoding of a request body into the kind's type would stop at, or undefined when the body's values
 * all fit their fields: a value of the wrong JSON type (`json: cannot unmarshal number into Go struct field
 * ConfigMap.data of type string`, the struct named being the one holding the field and the path that of the field
 * from the top, without list indexes or map keys), a number that does not fit an integer field, bytes that are not
 * base64, a time that time.Parse refuses. null fits anything (it leaves the zero value). Fields the type does not
 * have are not looked at.
 *
 * A time that fits is left, in place, as the type encodes it again (UTC, to the second or microsecond; null for the
 * zero time), since that is what upstream stores and answers.
 */
export function decodeTypeError(body: unknown, schema: SchemaNode): string | undefined {
  return typeErrorAt(body, schema, typeWalk(false, true));
}

/**
 * Whether decoding (converter: converting) a body into the kind's type leaves it as it is — no value of the wrong
 * type, no time written otherwise than its type writes it — without changing it: a patch body that does is applied
 * as it is, one that does not makes the patched object be walked.
 */
export function decodesUnchanged(body: unknown, schema: SchemaNode, converter: boolean): boolean {
  const w = typeWalk(converter, false);
  return typeErrorAt(body, schema, w) === undefined && !w.rewrites;
}

function typeWalk(converter: boolean, rewrite: boolean): TypeWalk {
  return { converter, path: [], structs: [], replacement: KEEP, rewrite, rewrites: false };
}

/**
 * decodeTypeError as upstream's unstructured converter words it, which turns a strategic-merge-patched object into
 * the Go type: `unrecognized type: int32` for a value it has no conversion for, `cannot convert float64 to int32`,
 * `cannot restore slice from string`.
 */
export function convertTypeError(body: unknown, schema: SchemaNode): string | undefined {
  return typeErrorAt(body, schema, typeWalk(true, true));
}

/** reflect's Kind of a decoded unstructured value, as the converter prints it. */
function unstructuredKind(v: unknown): string {
  if (Array.isArray(v)) return 'slice';
  if (isRecord(v)) return 'map';
  if (typeof v === 'number') return Number.isInteger(v) ? 'int64' : 'float64';
  return typeof v === 'boolean' ? 'bool' : 'string';
}

/** The converter's error for a value of the wrong kind for a simple (string, number, bool) field, if any. */
function convertScalarError(value: unknown, node: SchemaNode): string | undefined {
  const target = goTypeOf(node);
  const kind = unstructuredKind(value);
  const numeric = kind === 'int64' || kind === 'float64';
  switch (node.type) {
    case 'string':
      if (kind === 'string') return undefined;
      return kind === 'int64' ? `cannot convert int64 to ${target}` : `unrecognized type: ${target}`;
    case 'integer':
      if (kind === 'int64') return undefined;
      if (kind === 'float64') return `cannot convert float64 to ${target}`;
      return `unrecognized type: ${target}`;
    case 'number':
      return numeric ? undefined : `unrecognized type: ${target}`;
    case 'boolean':
      return kind === 'bool' ? undefined : `unrecognized type: ${target}`;
    default:
      return undefined;
  }
}

/** A type walk's replacement when the value just walked stays as it is. */
const KEEP = Symbol('keep');

/**
 * Where a type walk is: the fields from the top, and the definitions of the structs it is inside; and what the value
 * just walked becomes (a time written otherwise than its type writes it), for its container to put in its place.
 */
interface TypeWalk {
  readonly converter: boolean;
  readonly path: string[];
  readonly structs: string[];
  replacement: unknown;
  /** Whether values are rewritten in place; when not, `rewrites` says whether one would have been. */
  readonly rewrite: boolean;
  rewrites: boolean;
}

/** A time field's string: time.Parse's error, or undefined with the walk's replacement set when it is rewritten. */
function timeError(value: string, layout: GoTimeLayout, w: TypeWalk): string | undefined {
  const decoded = reencodeGoTime(value, layout);
  if ('error' in decoded) return decoded.error;
  if (decoded.value !== value) {
    if (w.rewrite) w.replacement = decoded.value;
    else w.rewrites = true;
  }
  return undefined;
}

/** Puts the walk's replacement, if there is one, at key of container. */
function replaceWalked(container: Record<string, unknown> | unknown[], key: string | number, w: TypeWalk): void {
  if (w.replacement === KEEP) return;
  (container as Record<string | number, unknown>)[key] = w.replacement;
  w.replacement = KEEP;
}

/**
 * The first value that does not fit its schema node, as an error (see decodeTypeError). Values that fit cost a
 * type test each: the error's words are only put together when one does not.
 */
function typeErrorAt(value: unknown, node: SchemaNode, w: TypeWalk): string | undefined {
  if (value === null || value === undefined) return undefined;
  switch (node.type) {
    case 'string': {
      if (typeof value !== 'string') break;
      if (node.format === 'byte') return base64Error(value);
      const layout = node.definition === undefined ? undefined : TIME_TYPES.get(node.definition);
      return layout ? timeError(value, layout, w) : undefined;
    }
    case 'integer':
      // The converter narrows a whole number to the field's size as Go's conversion does; the decoder refuses one
      // that does not fit.
      if (
        typeof value === 'number' &&
        Number.isInteger(value) &&
        (w.converter || node.format !== 'int32' || (value >= -(2 ** 31) && value <= 2 ** 31 - 1))
      ) {
        return undefined;
      }
      break;
    case 'number':
      if (typeof value === 'number') return undefined;
      break;
    case 'boolean':
      if (typeof value === 'boolean') return undefined;
      break;
    case 'array': {
      if (!Array.isArray(value)) break;
      const items = node.items;
      if (items === undefined) return undefined;
      for (let i = 0; i < value.length; i++) {
        const e = typeErrorAt(value[i], items, w);
        if (e) return e;
        replaceWalked(value, i, w);
      }
      return undefined;
    }
    case 'object': {
      if (!isRecord(value)) break;
      if (opaque(node)) return undefined;
      const values = node.additionalProperties;
      if (isMap(node) && values !== undefined) {
        for (const key in value) {
          const e = typeErrorAt(value[key], values, w);
          if (e) return e;
          replaceWalked(value, key, w);
        }
        return undefined;
      }
      const definition = node.definition;
      if (definition) w.structs.push(definition);
      for (const key in value) {
        const field = node.property(key);
        if (field === undefined) continue;
        w.path.push(key);
        const e = typeErrorAt(value[key], field, w);
        if (e) return e;
        replaceWalked(value, key, w);
        w.path.pop();
      }
      if (definition) w.structs.pop();
      return undefined;
    }
    default:
      return undefined;
  }
  return mismatchError(value, node, w);
}

/** The error for a value whose JSON type its node does not take (undefined for the types that take any). */
function mismatchError(value: unknown, node: SchemaNode, w: TypeWalk): string | undefined {
  const definition = node.definition;
  if (definition === INT_OR_STRING && !w.converter) return intOrStringError(value);
  if (opaque(node) || (definition && LENIENT_TYPES.has(definition))) return undefined;
  if (definition && TIME_TYPES.has(definition)) {
    return `json: cannot unmarshal ${jsonKindWord(value)} into Go value of type string`;
  }
  if (!w.converter) {
    const struct = w.structs.at(-1) ?? '';
    const name = struct.slice(struct.lastIndexOf('.') + 1);
    const kind = node.type === 'integer' && typeof value === 'number' ? `number ${value}` : jsonKindWord(value);
    return `json: cannot unmarshal ${kind} into Go struct field ${name}.${w.path.join('.')} of type ${goTypeOf(node)}`;
  }
  const from = unstructuredKind(value);
  if (node.type === 'array' || node.format === 'byte') return `cannot restore slice from ${from}`;
  if (node.type === 'object') {
    return isMap(node) ? `cannot restore map from ${from}` : `cannot restore struct from: ${from}`;
  }
  return convertScalarError(value, node);
}

/**
 * The paths of the fields of a decoded object that its schema does not know, in the object's key order, as
 * sigs.k8s.io/json names them (`spec.replica`, `spec.template.spec.containers[0].imagePullPolice`).
 */
export function findUnknownFields(obj: unknown, schema: SchemaNode): string[] {
  const out: string[] = [];
  walk(obj, schema, '', { sorted: false, mapKeys: true }, out);
  return out;
}

/**
 * Deletes, in place, the fields the schema does not know, as decoding into the Go type drops them (whatever the
 * directive: upstream stores only what its types have), and returns their paths.
 */
export function dropUnknownFields(obj: unknown, schema: SchemaNode): string[] {
  const out: string[] = [];
  walk(obj, schema, '', { sorted: false, mapKeys: true, prune: true }, out);
  return out;
}

/**
 * The number of keys in a decoded JSON value at any depth, or -1 as soon as one of them is a field the schema does
 * not know (where the schema types the value; below an untyped or preserved value every key is only counted).
 */
function knownKeyCount(value: unknown, node: SchemaNode | undefined): number {
  if (typeof value !== 'object' || value === null) return 0;
  if (Array.isArray(value)) {
    const items = node && !opaque(node) && node.type === 'array' ? node.items : undefined;
    let count = 0;
    for (const v of value) {
      const c = knownKeyCount(v, items);
      if (c < 0) return -1;
      count += c;
    }
    return count;
  }
  const typed = node !== undefined && !opaque(node) && node.type === 'object';
  const values = typed && isMap(node) ? node.additionalProperties : undefined;
  let count = 0;
  // for-in over decoded JSON (no inherited enumerable keys): no array of keys made for each object.
  for (const key in value) {
    let field: SchemaNode | undefined;
    if (values !== undefined) field = values;
    else if (typed) {
      field = node.property(key);
      if (field === undefined) return -1;
    }
    const c = knownKeyCount((value as Record<string, unknown>)[key], field);
    if (c < 0) return -1;
    count += c + 1;
  }
  return count;
}

/**
 * Whether a JSON body certainly has neither unknown nor duplicate fields, found without scanning its text: the
 * decoded value has only known fields and as many keys as the text has key tokens. A key given twice decodes to
 * one key, so the counts then differ; a "…":" inside a string value also makes them differ, and such a body, like
 * any with something to report, goes through the full scan (strictDecodingErrors) for the decoder's messages.
 */
export function cleanJsonBody(rawJson: string, decoded: unknown, schema: SchemaNode): boolean {
  const keys = knownKeyCount(decoded, schema);
  return keys >= 0 && keyTokens(rawJson) === keys;
}

/**
 * The key tokens of JSON text: each quote followed (after JSON whitespace) by a colon. Every key counts, and so may
 * text inside a string, so a count equal to the decoded keys' means no key was repeated. Scanned by hand rather than
 * with a global regular expression, which makes an array for every match.
 */
function keyTokens(rawJson: string): number {
  let tokens = 0;
  let i = rawJson.indexOf('"');
  while (i >= 0) {
    let j = i + 1;
    let c = rawJson.charCodeAt(j);
    while (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) c = rawJson.charCodeAt(++j);
    if (c === 0x3a) {
      tokens++;
      i = rawJson.indexOf('"', j + 1);
    } else {
      i = rawJson.indexOf('"', i + 1);
    }
  }
  return tokens;
}

/**
 * The duplicate-field errors of a JSON body decoded into interface{} (a patch, a custom resource): none when its
 * keys are as many as its key tokens.
 */
export function duplicateFieldErrors(rawJson: string, body: unknown): string[] {
  if (body !== undefined && keyTokens(rawJson) === knownKeyCount(body, undefined)) return [];
  return new StrictScanner(rawJson).run(UNTYPED).map(decoderMessage);
}

// ---- scanning raw JSON -----------------------------------------------------------------------------------------

type StrictKind = 'unknown field' | 'duplicate field';
interface StrictError {
  readonly kind: StrictKind;
  readonly path: string;
}

/** Stands for Go's interface{}: anything goes, but duplicate keys are still found at every depth. */
const UNTYPED: SchemaNode = { type: 'any', property: () => undefined };
/** The decoder stops collecting after this many errors. */
const MAX_ERRORS = 100;

class ScanStop extends Error {}

/** Walks JSON text as sigs.k8s.io/json's strict decoder walks it into a typed value. */
class StrictScanner {
  readonly errors: StrictError[] = [];
  private readonly seen = new Set<string>();
  private i = 0;

  constructor(private readonly text: string) {}

  run(node: SchemaNode): StrictError[] {
    try {
      this.value(node, '');
    } catch (err) {
      if (!(err instanceof ScanStop || err instanceof RangeError || err instanceof SyntaxError)) throw err;
    }
    return this.errors;
  }

  private record(kind: StrictKind, at: string): void {
    const key = `${kind}\0${at}`;
    if (this.seen.has(key) || this.errors.length >= MAX_ERRORS) return;
    this.seen.add(key);
    this.errors.push({ kind, path: at });
  }

  private ws(): string {
    while (/[ \t\n\r]/.test(this.text[this.i] ?? '')) this.i++;
    const c = this.text[this.i];
    if (c === undefined) throw new ScanStop();
    return c;
  }

  private string(): string {
    const start = this.i;
    this.i++;
    for (;;) {
      const c = this.text[this.i++];
      if (c === undefined) throw new ScanStop();
      if (c === '\\') this.i++;
      else if (c === '"') break;
    }
    return JSON.parse(this.text.slice(start, this.i)) as string;
  }

  /** Skips one value of any kind without looking into it. */
  private skip(): void {
    const c = this.ws();
    if (c === '"') return void this.string();
    if (c !== '{' && c !== '[') {
      while (!/[,}\]\s]/.test(this.text[this.i] ?? ',')) this.i++;
      return;
    }
    let depth = 0;
    do {
      const d = this.ws();
      if (d === '"') this.string();
      else {
        if (d === '{' || d === '[') depth++;
        else if (d === '}' || d === ']') depth--;
        this.i++;
      }
    } while (depth > 0);
  }

  private value(node: SchemaNode, at: string): void {
    const c = this.ws();
    const untyped = node === UNTYPED;
    if (c === '{' && (untyped || (!opaque(node) && node.type === 'object'))) this.object(node, at);
    else if (c === '[' && (untyped || (node.type === 'array' && node.items !== undefined))) this.array(node, at);
    else this.skip();
  }

  private object(node: SchemaNode, at: string): void {
    const asMap = node === UNTYPED || isMap(node);
    const keys = new Set<string>();
    this.i++;
    if (this.ws() === '}') return void this.i++;
    for (;;) {
      this.ws();
      const key = this.string();
      if (this.ws() !== ':') throw new ScanStop();
      this.i++;
      const field = asMap ? (node === UNTYPED ? UNTYPED : node.additionalProperties) : node.property(key);
      if (field === undefined) {
        this.record('unknown field', child(at, key));
        this.skip();
      } else {
        if (keys.has(key)) this.record('duplicate field', child(at, key));
        keys.add(key);
        this.value(field, child(at, key));
      }
      const next = this.ws();
      this.i++;
      if (next === '}') return;
      if (next !== ',') throw new ScanStop();
    }
  }

  private array(node: SchemaNode, at: string): void {
    const items = node === UNTYPED ? UNTYPED : (node.items as SchemaNode);
    this.i++;
    if (this.ws() === ']') return void this.i++;
    for (let index = 0; ; index++) {
      this.value(items, `${at}[${index}]`);
      const next = this.ws();
      this.i++;
      if (next === ']') return;
      if (next !== ',') throw new ScanStop();
    }
  }
}

const decoderMessage = (e: StrictError) => `${e.kind} ${goQuote(e.path)}`;

/**
 * The strict decoding errors of a JSON request body decoded into the type `schema` describes, in the decoder's
 * order: `unknown field "spec.replica"`, `duplicate field "metadata.name"`. At most 100, each once.
 */
export function strictDecodingErrors(rawJson: string, schema: SchemaNode): string[] {
  return new StrictScanner(rawJson).run(schema).map(decoderMessage);
}

/** The paths of keys given twice in JSON text: per the schema when there is one, anywhere when there is not. */
export function findDuplicateFields(rawJson: string, schema: SchemaNode = UNTYPED): string[] {
  return new StrictScanner(rawJson)
    .run(schema)
    .filter((e) => e.kind === 'duplicate field')
    .map((e) => e.path);
}

const isYaml = (contentType: string) => contentType === 'application/yaml' || contentType.endsWith('+yaml');

/**
 * The strict errors of a create or update body. JSON is scanned as sent; YAML reaches the decoder as JSON that
 * Go wrote from a map, so its keys are visited in sorted order (duplicate YAML keys are refused while parsing).
 */
export function requestBodyStrictErrors(
  rawBody: string,
  contentType: string,
  decoded: unknown,
  schema: SchemaNode,
): string[] {
  if (!isYaml(contentType)) return strictDecodingErrors(rawBody, schema);
  const out: string[] = [];
  walk(decoded, schema, '', { sorted: true, mapKeys: true }, out);
  return out.map((p) => decoderMessage({ kind: 'unknown field', path: p }));
}

// ---- patches -----------------------------------------------------------------------------------------------------

const STRING: SchemaNode = { type: 'string', property: () => undefined };
const JSON_PATCH_OPERATION_FIELDS: Readonly<Record<string, SchemaNode>> = {
  op: STRING,
  path: STRING,
  from: STRING,
  value: UNTYPED,
};
/** What a JSON patch is decoded into under Strict/Warn: a list of {op, path, from, value}. */
const JSON_PATCH: SchemaNode = {
  type: 'array',
  property: () => undefined,
  items: {
    type: 'object',
    propertyNames: Object.keys(JSON_PATCH_OPERATION_FIELDS),
    property: (name) =>
      Object.hasOwn(JSON_PATCH_OPERATION_FIELDS, name) ? JSON_PATCH_OPERATION_FIELDS[name] : undefined,
  },
};

/**
 * The strict errors of a patch, in upstream's order: first those of the patch body itself (keys given twice;
 * for a JSON patch also unknown operation fields, each prefixed `json patch `), then the unknown fields of the
 * patched object.
 */
export function patchStrictErrors(
  patchType: string,
  rawPatch: string,
  patched: unknown,
  schema: SchemaNode,
  body?: unknown,
): string[] {
  const walked = body === undefined || patchMayAddUnknownFields(patchType, body, schema);
  const own = patchBodyStrictErrors(patchType, rawPatch, body);
  if (!walked) return own;
  if (patchType !== 'application/strategic-merge-patch+json') {
    return [...own, ...sortedUnknown(patched, schema, true).map((p) => `unknown field ${goQuote(p)}`)];
  }
  const converted = sortedUnknown(patched, schema, false).map((p) => `unknown field "${p}"`);
  return [...own, ...converted.sort(byBytes)];
}

/**
 * The strict errors of a patch body itself, before the patched object is looked at: keys given twice; for a JSON
 * patch also unknown operation fields, each prefixed `json patch `.
 */
export function patchBodyStrictErrors(patchType: string, rawPatch: string, body?: unknown): string[] {
  if (patchType === 'application/json-patch+json') {
    return strictDecodingErrors(rawPatch, JSON_PATCH).map((e) => `json patch ${e}`);
  }
  return duplicateFieldErrors(rawPatch, body);
}

/** Strategic merge patch directives: they order, retain or remove what is there, and add no field. */
const SMP_DIRECTIVE = /^\$(patch|retainKeys|setElementOrder\/.+|deleteFromPrimitiveList\/.+)$/;

/**
 * Whether a patch may give the object a field its schema does not know. The stored object has none (unknown
 * fields are dropped on every write), so a patched object can only get them from the patch's own keys; a merge or
 * strategic merge patch whose keys are all known (directives aside) leaves nothing for the walk of the whole
 * patched object to find, and the hot status and finalizer patches skip that walk. JSON patches are walked unless
 * they only test and remove.
 */
export function patchMayAddUnknownFields(patchType: string, body: unknown, schema: SchemaNode): boolean {
  if (patchType === 'application/merge-patch+json') return mayAddUnknown(body, schema, false);
  if (patchType === 'application/strategic-merge-patch+json') return mayAddUnknown(body, schema, true);
  // A JSON patch that only tests and removes adds nothing (a finalizer's removal); any other is walked.
  return !(Array.isArray(body) && body.every((op) => isRecord(op) && (op.op === 'remove' || op.op === 'test')));
}

function mayAddUnknown(value: unknown, node: SchemaNode, strategic: boolean): boolean {
  if (opaque(node)) return false;
  if (Array.isArray(value)) {
    const items = node.items;
    if (node.type !== 'array' || items === undefined) return false;
    for (const v of value) if (mayAddUnknown(v, items, strategic)) return true;
    return false;
  }
  if (!isRecord(value) || node.type !== 'object') return false;
  const values = node.additionalProperties;
  const map = isMap(node) && values !== undefined;
  for (const key in value) {
    const v = value[key];
    if (strategic && key.startsWith('$')) {
      if (SMP_DIRECTIVE.test(key)) continue;
      return true;
    }
    if (v === null) continue;
    const field = map ? values : node.property(key);
    if (field === undefined || mayAddUnknown(v, field, strategic)) return true;
  }
  return false;
}

function sortedUnknown(value: unknown, schema: SchemaNode, mapKeys: boolean): string[] {
  const out: string[] = [];
  walk(value, schema, '', { sorted: true, mapKeys }, out);
  return out;
}

// ---- answers -----------------------------------------------------------------------------------------------------

export function strictDecodingMessage(errors: readonly string[]): string {
  return `strict decoding error: ${errors.join(', ')}`;
}

/**
 * Strict refusal of a create or update body: 400 BadRequest, e.g. `Deployment in version "v1" cannot be handled
 * as a Deployment: strict decoding error: unknown field "spec.replica"`. The first kind and version are the
 * body's (the endpoint's when the body leaves them out).
 */
export function strictDecodingError(
  body: { apiVersion?: unknown; kind?: unknown },
  def: { version: string; kind: string },
  errors: readonly string[],
): StatusError {
  const kind = typeof body.kind === 'string' && body.kind !== '' ? body.kind : def.kind;
  const apiVersion = typeof body.apiVersion === 'string' ? body.apiVersion : '';
  const version = apiVersion === '' ? def.version : apiVersion.slice(apiVersion.lastIndexOf('/') + 1);
  return statusErrors.badRequest(
    `${kind} in version ${goQuote(version)} cannot be handled as a ${def.kind}: ${strictDecodingMessage(errors)}`,
  );
}

/**
 * A patch refused for what it made: 422 Invalid with no kind or name, one cause on field `patch` whose value is the
 * patched object as JSON (JSON and merge patches) or the patch as Go prints a map (strategic merge patches). For a
 * patched object that does not fit the kind's Go type, `message` is the decoder's error (JSON and merge patches) or
 * the converter's (strategic merge patches).
 */
export function patchTypeError(patchType: string, patch: unknown, patched: unknown, message: string): StatusError {
  const value =
    patchType === 'application/strategic-merge-patch+json' ? formatGoValue(patch) : goJsonMarshalSorted(patched);
  const err = invalid(path('patch'), value, message);
  return new StatusError(422, 'Invalid', ` "" is invalid: ${err.message}`, { causes: [err.toCause()] });
}

/** Strict refusal of a patch (unknown or duplicate fields), worded as patchTypeError's. */
export function patchStrictDecodingError(
  patchType: string,
  patch: unknown,
  patched: unknown,
  errors: readonly string[],
): StatusError {
  return patchTypeError(patchType, patch, patched, strictDecodingMessage(errors));
}

// ---- warnings ----------------------------------------------------------------------------------------------------

/**
 * One Warning header value, `299 - "<text>"` with `"` and `\` escaped; undefined for text Go refuses to send
 * (control characters). Non-ASCII text goes out as its UTF-8 bytes.
 */
export function warningHeaderValue(text: string): string | undefined {
  if (/[\p{Cc}]/u.test(text) || /\p{Cs}/u.test(text)) return undefined;
  const value = `299 - "${text.replace(/["\\]/g, (c) => `\\${c}`)}"`;
  return Buffer.from(value, 'utf8').toString('latin1');
}

/** Upstream's limits: 4096 runes of warning text in all; past that, each warning is cut to 256 runes. */
const TOTAL_RUNES = 4096;
const ITEM_RUNES = 256;

interface Recorder {
  readonly texts: string[];
  readonly seen: Set<string>;
  written: number;
  truncating: boolean;
}
const recorders = new WeakMap<object, Recorder>();

const runes = (s: string) => [...s].length;
const cut = (s: string) => [...s].slice(0, ITEM_RUNES).join('');

/**
 * Adds Warning headers to a response as kube-apiserver's warning recorder does: empty and repeated texts are
 * dropped, and once the texts would pass 4096 runes, all of them are sent again cut to 256 runes each, and
 * further ones only while there is room.
 */
export function addWarnings(res: HttpResponse, texts: readonly string[]): void {
  if (res.headersSent) return;
  let rec = recorders.get(res);
  if (rec === undefined) {
    rec = { texts: [], seen: new Set(), written: 0, truncating: false };
    recorders.set(res, rec);
  }
  for (const text of texts) addWarning(res, rec, text);
}

function addWarning(res: HttpResponse, rec: Recorder, text: string): void {
  if (text === '' || (rec.truncating && rec.written >= TOTAL_RUNES) || rec.seen.has(text)) return;
  rec.seen.add(text);
  rec.texts.push(text);
  const shown = rec.truncating ? cut(text) : text;
  const header = warningHeaderValue(shown);
  if (header === undefined) return;
  const current = res.getHeader('warning');
  const values = Array.isArray(current) ? current.map(String) : current === undefined ? [] : [String(current)];
  if (rec.truncating || rec.written + runes(shown) <= TOTAL_RUNES) {
    rec.written += runes(shown);
    res.setHeader('warning', [...values, header]);
    return;
  }
  rec.truncating = true;
  rec.written = 0;
  const all: string[] = [];
  for (const t of rec.texts) {
    const h = warningHeaderValue(cut(t));
    if (h === undefined) continue;
    rec.written += runes(cut(t));
    all.push(h);
  }
  res.setHeader('warning', all);
}
