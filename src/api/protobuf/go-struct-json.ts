/**
 * A JSON object as Go's encoding/json writes it once it has been decoded into the struct of its kind and encoded
 * again — what kube-apiserver's audit log shows as a request's object. The rules are those of message.ts, read from
 * the same table, applied to a JSON value instead of protobuf bytes:
 * - fields in the struct's order, keys the struct does not have left out;
 * - a non-pointer field that was absent (or null) holds Go's zero value: structs appear whole (`status: {}`,
 *   `creationTimestamp: null`), scalars appear as zero unless omitempty;
 * - a non-pointer scalar set to its zero value is left out when omitempty (Go cannot tell it from unset);
 * - empty slices and maps are left out when omitempty; types with their own JSON keep their value (a Time in UTC
 *   to the second, a Quantity in canonical form).
 */
import { canonicalQuantity } from '../quantity.js';
import { messageTypeOf } from './decode.js';
import { MessageDecoder } from './message.js';
import { isEmptyScalar, SCALAR_TYPES, type Scalar, zeroScalar } from './scalars.js';
import { type FieldFacts, kubernetesProtoTable, type MessageFacts, type ProtoTable } from './table.js';

type Json = unknown;
type Rec = Record<string, Json>;

const OMIT = Symbol('omit');
const EMPTY = new Uint8Array(0);
const META = 'k8s.io.apimachinery.pkg.apis.meta.v1.';

const isRecord = (v: Json): v is Rec => v !== null && typeof v === 'object' && !Array.isArray(v);

function setOwn(target: Rec, key: string, value: Json): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/** metav1.Time as its MarshalJSON writes it: UTC, to the second. */
function goTime(v: Json): Json {
  if (typeof v !== 'string') return v;
  const ms = Date.parse(v);
  if (Number.isNaN(ms)) return v;
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

function goQuantity(v: Json): Json {
  if (typeof v !== 'string' && typeof v !== 'number') return v;
  try {
    return canonicalQuantity(String(v));
  } catch {
    return v;
  }
}

export class GoStructEncoder {
  private readonly zero: MessageDecoder;

  constructor(private readonly table: ProtoTable = kubernetesProtoTable()) {
    this.zero = new MessageDecoder(table, () => null as unknown as Rec);
  }

  /** The object of apiVersion and kind as Go writes it: kind and apiVersion first, then the struct's fields. */
  encodeObject(obj: Rec, apiVersion: string, kind: string, typeName = this.typeNameOf(apiVersion, kind)): Rec {
    const facts = typeName === undefined ? undefined : this.table.message(typeName);
    if (!facts) {
      const { kind: _k, apiVersion: _a, ...rest } = obj;
      return { kind, apiVersion, ...rest };
    }
    return { kind, apiVersion, ...this.struct(facts, obj) };
  }

  private typeNameOf(apiVersion: string, kind: string): string | undefined {
    try {
      return messageTypeOf(this.table, apiVersion, kind);
    } catch {
      return undefined;
    }
  }

  private struct(facts: MessageFacts, obj: Rec): Rec {
    const out: Rec = {};
    for (const f of facts.fields) {
      if (f.skip) continue;
      if (f.inline) {
        const inner = this.table.message(f.type);
        if (inner) Object.assign(out, this.struct(inner, obj));
        continue;
      }
      const value = this.field(f, Object.hasOwn(obj, f.jsonName) ? obj[f.jsonName] : undefined);
      if (value !== OMIT) setOwn(out, f.jsonName, value);
    }
    return out;
  }

  private field(f: FieldFacts, v: Json): Json | typeof OMIT {
    const nil = f.omitempty ? OMIT : null;
    if (f.mapKey !== undefined) {
      if (v === undefined || v === null) return nil;
      if (!isRecord(v)) return v;
      const keys = Object.keys(v);
      if (keys.length === 0) return f.omitempty ? OMIT : {};
      const out: Rec = {};
      for (const k of keys) setOwn(out, k, this.element(f.type, v[k]));
      return out;
    }
    if (f.repeated) {
      if (v === undefined || v === null) return nil;
      if (!Array.isArray(v)) return v;
      if (v.length === 0) return f.omitempty ? OMIT : [];
      return v.map((x) => this.element(f.type, x));
    }
    if (!SCALAR_TYPES.has(f.type)) {
      const facts = this.table.message(f.type);
      if (v === undefined || v === null) {
        if (f.pointer || !facts) return nil;
        const zero = this.zero.decode(f.type, EMPTY, 0);
        return facts.list && zero === null ? nil : zero;
      }
      if (facts?.list && Array.isArray(v) && v.length === 0) return f.omitempty ? OMIT : [];
      return this.element(f.type, v);
    }
    if (v === undefined || v === null) {
      if (f.pointer || f.type === 'bytes') return nil;
      return f.omitempty ? OMIT : zeroScalar(f.type);
    }
    if (!f.pointer && f.omitempty && isEmptyScalar(v as Scalar)) return OMIT;
    return v;
  }

  /** A value of a type (a scalar, or a message's JSON) that was given. */
  private element(typeName: string, v: Json): Json {
    if (SCALAR_TYPES.has(typeName)) return v;
    const facts = this.table.message(typeName);
    if (!facts) return v;
    if (facts.custom) {
      if (typeName === `${META}Time`) return goTime(v);
      if (typeName.endsWith('.Quantity')) return goQuantity(v);
      return v;
    }
    if (facts.list) {
      const items = facts.fields[0];
      return Array.isArray(v) && items ? v.map((x) => this.element(items.type, x)) : v;
    }
    return isRecord(v) ? this.struct(facts, v) : v;
  }
}

let shared: GoStructEncoder | undefined;

/** The encoder over the served types' table. */
export function goStructEncoder(): GoStructEncoder {
  shared ??= new GoStructEncoder();
  return shared;
}
