/**
 * A message's bytes as the JSON object Go's encoding/json writes for the struct they decode into, so that a body
 * sent as protobuf reads exactly like the same object sent as JSON by a Go client:
 * - pointer fields: absent stays absent (null without omitempty), present is kept even when zero (`replicas: 0`);
 * - non-pointer scalars: Go cannot tell zero from unset, so omitempty drops zero values (`generateName: ""`,
 *   which Go clients always put on the wire) and fields without omitempty always appear;
 * - non-pointer structs always appear (an absent one as its zero value: `status: {}`, `creationTimestamp: null`);
 * - repeated fields and maps are arrays and objects; none on the wire is nil (omitted, or null without omitempty);
 * - inlined embeds put their fields at the parent's level; types with their own JSON go through custom-json.ts.
 */
import { customJsonConverter, type DecodeContext } from './custom-json.js';
import { FieldSet } from './field-set.js';
import { ProtobufError } from './protobuf-error.js';
import {
  checkWireType,
  decodeRepeatedScalars,
  decodeScalar,
  isEmptyScalar,
  SCALAR_TYPES,
  zeroScalar,
} from './scalars.js';
import type { FieldFacts, MessageFacts, ProtoTable } from './table.js';
import { readFields, WIRE_BYTES, type WireField } from './wire.js';

/** Decodes bytes that carry their own envelope (a RawExtension holding a protobuf object). */
export type EnvelopeDecoder = (bytes: Uint8Array, depth: number) => Record<string, unknown>;

/** Deeper nesting than any real object has; it keeps hostile bodies from exhausting the stack. */
export const MAX_DEPTH = 1000;

const EMPTY = new Uint8Array(0);
const OMIT = Symbol('omit');

type Json = unknown;

/** Sets an own property even for keys like `__proto__` (map keys come from the client). */
function setOwn(target: Record<string, Json>, key: string, value: Json): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

export class MessageDecoder {
  constructor(
    private readonly table: ProtoTable,
    private readonly envelope: EnvelopeDecoder,
  ) {}

  /** The JSON value of a message of type typeName (an object, or another value for custom and slice types). */
  decode(typeName: string, bytes: Uint8Array, depth: number): Json {
    if (depth > MAX_DEPTH) throw new ProtobufError(`message nesting deeper than ${MAX_DEPTH} levels`);
    const facts = this.facts(typeName);
    const set = new FieldSet(facts, bytes);
    const ctx: DecodeContext = {
      decode: (name, inner) => this.decode(name, inner, depth + 1),
      envelope: (inner) => this.envelope(inner, depth + 1),
    };
    if (facts.custom) {
      const convert = customJsonConverter(typeName);
      if (!convert) throw new ProtobufError(`no JSON form is known for ${typeName}`);
      return convert(set, ctx);
    }
    if (facts.list) {
      const items = facts.fields[0];
      if (!items) throw new ProtobufError(`${typeName} has no items field`);
      const values = this.repeated(facts, items, set.all(items), ctx);
      return values.length === 0 ? null : values;
    }
    return this.struct(facts, set, ctx);
  }

  private facts(typeName: string): MessageFacts {
    const facts = this.table.message(typeName);
    if (!facts) throw new ProtobufError(`no protobuf type ${typeName} is known`);
    return facts;
  }

  private struct(facts: MessageFacts, set: FieldSet, ctx: DecodeContext): Record<string, Json> {
    const out: Record<string, Json> = {};
    for (const f of facts.fields) {
      if (f.skip) continue;
      if (f.inline) {
        const inner = ctx.decode(f.type, set.message(f) ?? EMPTY);
        if (inner !== null && typeof inner === 'object') Object.assign(out, inner);
        continue;
      }
      const value = this.field(facts, f, set, ctx);
      if (value !== OMIT) out[f.jsonName] = value;
    }
    return out;
  }

  private field(facts: MessageFacts, f: FieldFacts, set: FieldSet, ctx: DecodeContext): Json | typeof OMIT {
    const wire = set.all(f);
    const nil = f.omitempty ? OMIT : null;
    if (f.mapKey !== undefined) return wire.length === 0 ? nil : this.map(facts, f, wire, ctx);
    if (f.repeated) {
      const values = this.repeated(facts, f, wire, ctx);
      return values.length === 0 ? nil : values; // an empty packed run leaves Go's slice nil too
    }
    if (!SCALAR_TYPES.has(f.type)) {
      const bytes = set.message(f);
      if (bytes === undefined && f.pointer) return nil;
      const slice = this.facts(f.type).list;
      if (bytes === undefined && slice) return nil;
      const value = ctx.decode(f.type, bytes ?? EMPTY);
      return slice && value === null && !f.pointer ? nil : value;
    }
    const last = wire.at(-1);
    if (last === undefined) {
      if (f.pointer || f.type === 'bytes') return nil;
      return f.omitempty ? OMIT : zeroScalar(f.type);
    }
    const value = decodeScalar(facts.name, f, last);
    return !f.pointer && f.omitempty && isEmptyScalar(value) ? OMIT : value;
  }

  private repeated(facts: MessageFacts, f: FieldFacts, wire: readonly WireField[], ctx: DecodeContext): Json[] {
    if (SCALAR_TYPES.has(f.type)) return decodeRepeatedScalars(facts.name, f, wire);
    return wire.map((w) => {
      checkWireType(facts.name, f, w, WIRE_BYTES);
      return ctx.decode(f.type, w.value as Uint8Array);
    });
  }

  private map(
    facts: MessageFacts,
    f: FieldFacts,
    wire: readonly WireField[],
    ctx: DecodeContext,
  ): Record<string, Json> {
    const out: Record<string, Json> = {};
    const owner = `${facts.name}.${f.protoName}`;
    const keyFacts: FieldFacts = { ...f, number: 1, protoName: 'key', type: 'string', mapKey: undefined };
    const valueFacts: FieldFacts = { ...f, number: 2, protoName: 'value', mapKey: undefined };
    for (const entry of wire) {
      checkWireType(facts.name, f, entry, WIRE_BYTES);
      let key = '';
      const values: WireField[] = [];
      for (const w of readFields(entry.value as Uint8Array)) {
        if (w.number === 1) key = decodeScalar(owner, keyFacts, w) as string;
        else if (w.number === 2) values.push(w);
      }
      setOwn(out, key, this.mapValue(owner, valueFacts, values, ctx));
    }
    return out;
  }

  /** A map value; Go fills a missing one with the zero value (bytes: an empty slice). */
  private mapValue(owner: string, f: FieldFacts, values: readonly WireField[], ctx: DecodeContext): Json {
    if (SCALAR_TYPES.has(f.type)) {
      const last = values.at(-1);
      return last === undefined ? zeroScalar(f.type) : decodeScalar(owner, f, last);
    }
    for (const w of values) checkWireType(owner, f, w, WIRE_BYTES);
    const bytes =
      values.length === 1 ? (values[0]?.value as Uint8Array) : Buffer.concat(values.map((w) => w.value as Uint8Array));
    return ctx.decode(f.type, bytes);
  }
}
