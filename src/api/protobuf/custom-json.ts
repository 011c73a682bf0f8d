/**
 * The JSON of the types that write their own (the messages the table marks `c`), as their Go MarshalJSON methods
 * write it. Absent non-pointer fields of these types are decoded from no bytes, which yields Go's zero JSON:
 * Time and MicroTime null, Duration "0s", Quantity "0", IntOrString 0, raw values null.
 */

import { canonicalQuantity } from '../quantity.js';
import type { FieldSet } from './field-set.js';
import { formatGoDuration, formatRFC3339, GO_ZERO_TIME_UNIX_SECONDS } from './go-time.js';
import { ProtobufError } from './protobuf-error.js';
import { decodeRepeatedScalars } from './scalars.js';
import { hasKubernetesPrefix } from './wire.js';

export interface DecodeContext {
  /** Decodes a nested message into its JSON value. */
  decode(typeName: string, bytes: Uint8Array): unknown;
  /** Decodes bytes that carry their own Kubernetes protobuf envelope (k8s\0…) into an object. */
  envelope(bytes: Uint8Array): Record<string, unknown>;
}

type Converter = (set: FieldSet, ctx: DecodeContext) => unknown;

const META = 'k8s.io.apimachinery.pkg.apis.meta.v1.';
const RUNTIME = 'k8s.io.apimachinery.pkg.runtime.';
const RESOURCE = 'k8s.io.apimachinery.pkg.api.resource.';
const EXTENSIONS = 'k8s.io.apiextensions_apiserver.pkg.apis.apiextensions.v1.';
const SCHEMA = `${EXTENSIONS}JSONSchemaProps`;

const utf8 = new TextDecoder('utf-8', { ignoreBOM: true });

/** Go's time.Unix(seconds, nanos) normalisation, then its JSON: null for the zero time. */
function timeJson(set: FieldSet, micro: boolean): string | null {
  if (set.empty) return null;
  let seconds = BigInt.asIntN(64, set.varint('seconds') ?? 0n);
  let nanos = 0;
  if (micro) {
    const raw = Number(BigInt.asIntN(32, set.varint('nanos') ?? 0n));
    nanos = Math.trunc(raw / 1000) * 1000;
    if (nanos < 0 || nanos >= 1e9) {
      const carry = Math.trunc(nanos / 1e9);
      seconds += BigInt(carry);
      nanos -= carry * 1e9;
      if (nanos < 0) {
        nanos += 1e9;
        seconds -= 1n;
      }
    }
  }
  if (seconds === GO_ZERO_TIME_UNIX_SECONDS && nanos === 0) return null;
  return formatRFC3339(seconds, nanos, micro ? 6 : 0);
}

/** Raw bytes that hold JSON (or a nested protobuf object) as a value; none at all is null. */
function rawJson(owner: string, raw: Uint8Array | undefined, ctx: DecodeContext): unknown {
  if (raw === undefined || raw.length === 0) return null;
  if (hasKubernetesPrefix(raw)) return ctx.envelope(raw);
  if (raw[0] === 0xd9 && raw[1] === 0xd9 && raw[2] === 0xf7) {
    throw new ProtobufError(`${owner} holds CBOR, which is not supported`);
  }
  try {
    return JSON.parse(utf8.decode(raw));
  } catch (err) {
    throw new ProtobufError(`${owner} does not hold valid JSON: ${(err as Error).message}`);
  }
}

/** A Quantity's string, parsed as upstream's Unmarshal does and written in canonical form as its MarshalJSON does. */
function quantityJson(set: FieldSet): string {
  const text = set.scalar('string');
  if (text === undefined) return '0';
  try {
    if (typeof text === 'string' && text.trim() === text) return canonicalQuantity(text);
  } catch {
    // Refused below.
  }
  throw new ProtobufError(`quantity ${JSON.stringify(text)} is not a valid Kubernetes quantity`);
}

const converters: Readonly<Record<string, Converter>> = {
  [`${META}Time`]: (set) => timeJson(set, false),
  [`${META}MicroTime`]: (set) => timeJson(set, true),
  [`${META}Duration`]: (set) => formatGoDuration(BigInt.asIntN(64, set.varint('duration') ?? 0n)),
  [`${META}FieldsV1`]: (set, ctx) => rawJson('FieldsV1', set.bytes('Raw'), ctx),
  [`${META}GroupVersion`]: (set) => {
    const group = set.scalar('group') ?? '';
    const version = set.scalar('version') ?? '';
    return group === '' ? version : `${group}/${version}`;
  },
  [`${RESOURCE}Quantity`]: quantityJson,
  [`${RESOURCE}QuantityValue`]: quantityJson,
  'k8s.io.apimachinery.pkg.util.intstr.IntOrString': (set) => {
    const type = BigInt.asIntN(64, set.varint('type') ?? 0n);
    if (type === 0n) return set.scalar('intVal') ?? 0;
    if (type === 1n) return set.scalar('strVal') ?? '';
    throw new ProtobufError(`IntOrString type ${type} is neither 0 (integer) nor 1 (string)`);
  },
  [`${RUNTIME}RawExtension`]: (set, ctx) => rawJson('RawExtension', set.bytes('raw'), ctx),
  [`${RUNTIME}Unknown`]: (set, ctx) => {
    const contentType = set.scalar('contentType') ?? '';
    if (contentType !== '' && contentType !== 'application/json') {
      throw new ProtobufError(`Unknown with content type ${contentType} has no JSON form`);
    }
    return rawJson('Unknown', set.bytes('raw'), ctx);
  },
  [`${EXTENSIONS}JSON`]: (set, ctx) => rawJson('JSON', set.bytes('raw'), ctx),
  [`${EXTENSIONS}JSONSchemaPropsOrBool`]: (set, ctx) => {
    const schema = set.message(set.field('schema'));
    return schema !== undefined ? ctx.decode(SCHEMA, schema) : (set.scalar('allows') ?? false);
  },
  [`${EXTENSIONS}JSONSchemaPropsOrStringArray`]: (set, ctx) => {
    const property = set.field('property');
    const strings = decodeRepeatedScalars(set.facts.name, property, set.all(property));
    if (strings.length > 0) return strings;
    const schema = set.message(set.field('schema'));
    return schema !== undefined ? ctx.decode(SCHEMA, schema) : null;
  },
  [`${EXTENSIONS}JSONSchemaPropsOrArray`]: (set, ctx) => {
    const schemas = set.field('jSONSchemas');
    const items = set.all(schemas).map((w) => ctx.decode(SCHEMA, set.elementBytes(schemas, w)));
    if (items.length > 0) return items;
    const schema = set.message(set.field('schema'));
    return schema !== undefined ? ctx.decode(SCHEMA, schema) : null;
  },
};

/** The converter of a type that writes its own JSON, if this module knows it. */
export function customJsonConverter(typeName: string): Converter | undefined {
  return Object.hasOwn(converters, typeName) ? converters[typeName] : undefined;
}
