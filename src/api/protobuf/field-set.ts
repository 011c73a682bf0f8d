/**
 * The fields of one decoded message, grouped by their facts: lookups by proto name for the converters of
 * custom types, and the proto rules for repeated occurrences (the last scalar wins, occurrences of a message
 * field merge, which is the same as decoding their concatenated bytes).
 */
import { ProtobufError } from './protobuf-error.js';
import { checkWireType, decodeScalar, type Scalar } from './scalars.js';
import type { FieldFacts, MessageFacts } from './table.js';
import { readFields, WIRE_BYTES, WIRE_VARINT, type WireField } from './wire.js';

export class FieldSet {
  private readonly byNumber = new Map<number, WireField[]>();
  /** The message had no bytes at all (Go decodes that as the type's zero value, Time included). */
  readonly empty: boolean;

  constructor(
    readonly facts: MessageFacts,
    bytes: Uint8Array,
  ) {
    this.empty = bytes.length === 0;
    for (const w of readFields(bytes)) {
      if (!facts.byNumber.has(w.number)) continue; // unknown fields are skipped, as Go skips them
      const list = this.byNumber.get(w.number);
      if (list) list.push(w);
      else this.byNumber.set(w.number, [w]);
    }
  }

  /** Every occurrence of a field, in wire order. */
  all(f: FieldFacts): readonly WireField[] {
    return this.byNumber.get(f.number) ?? [];
  }

  /** The facts of a field by its proto name; a missing one is a table the code does not match. */
  field(protoName: string): FieldFacts {
    const f = this.facts.fields.find((x) => x.protoName === protoName);
    if (!f) throw new ProtobufError(`message ${this.facts.name} has no field ${protoName}`);
    return f;
  }

  /** The last occurrence's value of a scalar field, or undefined when absent. */
  scalar(protoName: string): Scalar | undefined {
    const f = this.field(protoName);
    const last = this.all(f).at(-1);
    return last === undefined ? undefined : decodeScalar(this.facts.name, f, last);
  }

  /** The last occurrence of a varint field as a raw unsigned 64-bit value, or undefined. */
  varint(protoName: string): bigint | undefined {
    const f = this.field(protoName);
    const last = this.all(f).at(-1);
    if (last === undefined) return undefined;
    checkWireType(this.facts.name, f, last, WIRE_VARINT);
    return last.value as bigint;
  }

  /** The last occurrence of a bytes field, or undefined. */
  bytes(protoName: string): Uint8Array | undefined {
    const f = this.field(protoName);
    const last = this.all(f).at(-1);
    if (last === undefined) return undefined;
    checkWireType(this.facts.name, f, last, WIRE_BYTES);
    return last.value as Uint8Array;
  }

  /** The bytes of one element of a repeated message field. */
  elementBytes(f: FieldFacts, w: WireField): Uint8Array {
    checkWireType(this.facts.name, f, w, WIRE_BYTES);
    return w.value as Uint8Array;
  }

  /** The merged bytes of a singular message field, or undefined when absent. */
  message(f: FieldFacts): Uint8Array | undefined {
    const parts = this.all(f);
    for (const w of parts) checkWireType(this.facts.name, f, w, WIRE_BYTES);
    if (parts.length === 0) return undefined;
    if (parts.length === 1) return parts[0]?.value as Uint8Array;
    return Buffer.concat(parts.map((w) => w.value as Uint8Array));
  }
}
