/**
 * The protobuf wire format, read without a schema: a message's bytes become the list of its fields, each a field
 * number, a wire type and the raw value. Groups (wire types 3 and 4, long deprecated) are skipped as unknown fields,
 * as Go's generated decoders skip them.
 */
import { ProtobufError } from './protobuf-error.js';

/** The 4 bytes (`k8s\0`) before every Kubernetes protobuf object, ahead of its runtime.Unknown envelope. */
export const KUBERNETES_PROTOBUF_PREFIX: Uint8Array = Uint8Array.of(0x6b, 0x38, 0x73, 0x00);

/** Whether bytes start with the Kubernetes protobuf prefix. */
export function hasKubernetesPrefix(bytes: Uint8Array): boolean {
  return KUBERNETES_PROTOBUF_PREFIX.every((b, i) => bytes[i] === b);
}

export const WIRE_VARINT = 0;
export const WIRE_FIXED64 = 1;
export const WIRE_BYTES = 2;
export const WIRE_FIXED32 = 5;

export type WireField =
  | { readonly number: number; readonly wireType: typeof WIRE_VARINT; readonly value: bigint }
  | {
      readonly number: number;
      readonly wireType: typeof WIRE_FIXED64 | typeof WIRE_FIXED32;
      readonly value: Uint8Array;
    }
  | { readonly number: number; readonly wireType: typeof WIRE_BYTES; readonly value: Uint8Array };

const START_GROUP = 3;
const END_GROUP = 4;
const MAX_FIELD_NUMBER = 2 ** 29 - 1;

/** Reads the varint at pos; returns its value (as an unsigned 64-bit integer) and the position after it. */
export function readVarint(bytes: Uint8Array, pos: number): [bigint, number] {
  let result = 0n;
  for (let i = 0; i < 10; i++) {
    const b = bytes[pos + i];
    if (b === undefined) throw new ProtobufError('unexpected end of data inside a varint');
    result |= BigInt(b & 0x7f) << BigInt(7 * i);
    if (b < 0x80) {
      if (i === 9 && b > 1) throw new ProtobufError('varint overflows 64 bits');
      return [result, pos + i + 1];
    }
  }
  throw new ProtobufError('varint longer than 10 bytes');
}

/** A varint used as a length or position: it must fit in the data that remains. */
function readLength(bytes: Uint8Array, pos: number): [number, number] {
  const [value, next] = readVarint(bytes, pos);
  if (value > BigInt(bytes.length - next)) {
    throw new ProtobufError(`length ${value} runs past the end of the data (${bytes.length - next} bytes left)`);
  }
  return [Number(value), next];
}

function readTag(bytes: Uint8Array, pos: number): [number, number, number] {
  const [tag, next] = readVarint(bytes, pos);
  const number = tag >> 3n;
  if (number === 0n || number > BigInt(MAX_FIELD_NUMBER)) throw new ProtobufError(`invalid field number ${number}`);
  return [Number(number), Number(tag & 7n), next];
}

/** Skips a group whose start tag (field `number`) ended at pos; returns the position after its end tag. */
function skipGroup(bytes: Uint8Array, number: number, pos: number, depth: number): number {
  if (depth > 100) throw new ProtobufError('groups nested too deeply');
  let at = pos;
  while (at < bytes.length) {
    const [inner, wireType, next] = readTag(bytes, at);
    if (wireType === END_GROUP) {
      if (inner !== number) throw new ProtobufError(`end of group ${inner} does not match its start ${number}`);
      return next;
    }
    at = skipValue(bytes, inner, wireType, next, depth + 1);
  }
  throw new ProtobufError(`group ${number} is not terminated`);
}

function skipValue(bytes: Uint8Array, number: number, wireType: number, pos: number, depth: number): number {
  switch (wireType) {
    case WIRE_VARINT:
      return readVarint(bytes, pos)[1];
    case WIRE_FIXED64:
    case WIRE_FIXED32: {
      const size = wireType === WIRE_FIXED64 ? 8 : 4;
      if (pos + size > bytes.length) throw new ProtobufError(`unexpected end of data in field ${number}`);
      return pos + size;
    }
    case WIRE_BYTES: {
      const [length, next] = readLength(bytes, pos);
      return next + length;
    }
    case START_GROUP:
      return skipGroup(bytes, number, pos, depth);
    default:
      throw new ProtobufError(`field ${number} has invalid wire type ${wireType}`);
  }
}

/** Splits the bytes of one message into its fields, in the order they appear. */
export function readFields(bytes: Uint8Array): WireField[] {
  const fields: WireField[] = [];
  let pos = 0;
  while (pos < bytes.length) {
    const [number, wireType, next] = readTag(bytes, pos);
    switch (wireType) {
      case WIRE_VARINT: {
        const [value, after] = readVarint(bytes, next);
        fields.push({ number, wireType, value });
        pos = after;
        break;
      }
      case WIRE_FIXED64:
      case WIRE_FIXED32:
      case WIRE_BYTES: {
        const after = skipValue(bytes, number, wireType, next, 0);
        const start = wireType === WIRE_BYTES ? readLength(bytes, next)[1] : next;
        fields.push({ number, wireType, value: bytes.subarray(start, after) });
        pos = after;
        break;
      }
      case START_GROUP:
        pos = skipGroup(bytes, number, next, 0);
        break;
      case END_GROUP:
        throw new ProtobufError(`end of group ${number} without a start`);
      default:
        throw new ProtobufError(`field ${number} has invalid wire type ${wireType}`);
    }
  }
  return fields;
}
