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
import { type GoTimeLayout, reencodeGoTime } from '../go-time.js';
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

/** Whether a JSON value holds a null at any depth. */
function hasNull(v: Json): boolean {
  if (v === null) return true;
  if (typeof v !== 'object') return false;
  if (Array.isArray(v)) return v.some(hasNull);
  for (const k in v as Rec) if (hasNull((v as Rec)[k])) return true;
  return false;
}

function setOwn(target: Rec, key: string, value: Json): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/** metav1.Time or MicroTime as its MarshalJSON writes it: UTC, to the second or microsecond. */
function goTime(v: Json, layout: GoTimeLayout): Json {
  if (typeof v !== 'string') return v;
  const decoded = reencodeGoTime(v, layout);
  return 'error' in decoded ? v : decoded.value;
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

  /**
   * Changes, in place, every null that a field of obj holds into what decoding obj into the struct of its kind and
   * encoding it again leaves there, as upstream stores a built-in kind's objects: nothing for a field with
   * omitempty, the zero value of a non-pointer field (`false`, `0`, `{}`; a Time's zero is null again), null for a
   * pointer, slice or map field without omitempty. A `"reason": null` in a condition thus goes, a
   * `"lastProbeTime": null` stays. A null map value or list item becomes its type's zero value. Keys the struct
   * does not have are left as they are, and so are kinds without a struct in the table.
   */
  dropNulls(obj: Rec, apiVersion: string, kind: string): void {
    const typeName = this.typeNameOf(apiVersion, kind);
    if (typeName !== undefined) this.dropNullsAs(obj, typeName);
  }

  /** dropNulls for a value of a struct type named as the table names it (a custom resource's ObjectMeta). */
  dropNullsAs(obj: Rec, typeName: string): void {
    const facts = this.table.message(typeName);
    if (facts) this.nullsInStruct(facts, obj);
  }

  /**
   * dropNulls for an object that a merge or strategic merge patch changed, whose other nulls were dealt with when it
   * was stored: only the fields below which the patch itself has a null are walked.
   */
  dropPatchedNulls(obj: Rec, apiVersion: string, kind: string, patch: Json): void {
    const typeName = this.typeNameOf(apiVersion, kind);
    const facts = typeName === undefined ? undefined : this.table.message(typeName);
    if (facts && isRecord(patch)) this.patchedNullsInStruct(facts, obj, patch);
  }

  private patchedNullsInStruct(facts: MessageFacts, obj: Rec, patch: Rec): void {
    const fields = this.fieldsByJsonName(facts);
    for (const key in patch) {
      const change = patch[key];
      // A null of the patch's own removes the field; only nulls inside a value it sets may be stored.
      if (change === null || typeof change !== 'object' || !hasNull(change)) continue;
      const f = fields.get(key);
      const v = obj[key];
      if (f === undefined || v === null || typeof v !== 'object') continue;
      const inner = f.mapKey === undefined && !f.repeated ? this.table.message(f.type) : undefined;
      if (inner && !inner.custom && !inner.list && isRecord(change) && isRecord(v)) {
        this.patchedNullsInStruct(inner, v, change);
      } else {
        this.nullsInField(f, v);
      }
    }
  }

  private nullsInStruct(facts: MessageFacts, obj: Rec): void {
    const fields = this.fieldsByJsonName(facts);
    // for-in over decoded JSON (no inherited enumerable keys); deleting the key being visited is allowed.
    for (const key in obj) {
      const f = fields.get(key);
      if (f === undefined) continue;
      const v = obj[key];
      if (v === null) {
        const zero = this.field(f, null);
        if (zero === OMIT) delete obj[key];
        else obj[key] = zero;
      } else if (typeof v === 'object') {
        this.nullsInField(f, v);
      }
    }
  }

  /** The nulls inside the non-null value of field f. */
  private nullsInField(f: FieldFacts, v: object): void {
    if (f.mapKey !== undefined) {
      if (isRecord(v)) for (const k in v) v[k] = this.elementNulls(f.type, v[k]);
    } else if (f.repeated) {
      if (Array.isArray(v)) this.itemNulls(f.type, v);
    } else {
      this.nullsIn(f.type, v);
    }
  }

  private itemNulls(typeName: string, items: Json[]): void {
    for (let i = 0; i < items.length; i++) items[i] = this.elementNulls(typeName, items[i]);
  }

  /**
   * A map value or list item of a type, its nulls changed: a null one is the type's zero value, as Go decodes it
   * into a map or slice of values (`""` for a label, `"0"` for a Quantity, a struct's zero JSON).
   */
  private elementNulls(typeName: string, v: Json): Json {
    if (v !== null) {
      this.nullsIn(typeName, v);
      return v;
    }
    if (SCALAR_TYPES.has(typeName)) return typeName === 'bytes' ? null : zeroScalar(typeName);
    return this.table.message(typeName) ? this.zero.decode(typeName, EMPTY, 0) : null;
  }

  /** The nulls inside a value of a type: in each struct it is or holds. */
  private nullsIn(typeName: string, v: Json): void {
    if (v === null || typeof v !== 'object' || SCALAR_TYPES.has(typeName)) return;
    const facts = this.table.message(typeName);
    if (!facts || facts.custom) return;
    if (facts.list) {
      const items = facts.fields[0];
      if (items && Array.isArray(v)) this.itemNulls(items.type, v);
    } else if (isRecord(v)) {
      this.nullsInStruct(facts, v);
    }
  }

  private readonly byJsonName = new WeakMap<MessageFacts, Map<string, FieldFacts>>();

  /** A struct's fields by their JSON key, those of inline (embedded) structs included. */
  private fieldsByJsonName(facts: MessageFacts): Map<string, FieldFacts> {
    let fields = this.byJsonName.get(facts);
    if (fields) return fields;
    fields = new Map();
    for (const f of facts.fields) {
      if (f.skip) continue;
      if (f.inline) {
        const inner = this.table.message(f.type);
        if (inner) for (const [k, g] of this.fieldsByJsonName(inner)) fields.set(k, g);
      } else {
        fields.set(f.jsonName, f);
      }
    }
    this.byJsonName.set(facts, fields);
    return fields;
  }

  /** A value of a type (a scalar, or a message's JSON) that was given. */
  private element(typeName: string, v: Json): Json {
    if (SCALAR_TYPES.has(typeName)) return v;
    const facts = this.table.message(typeName);
    if (!facts) return v;
    if (facts.custom) {
      if (typeName === `${META}Time`) return goTime(v, 'time');
      if (typeName === `${META}MicroTime`) return goTime(v, 'microtime');
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
