/**
 * Scalar field values as Go's JSON encoding writes them: strings as text (invalid UTF-8 replaced, as Go replaces
 * it), bytes as standard base64, integers and doubles as numbers, bools as booleans. int64 values beyond 2^53 lose
 * precision, as any JSON number read by JavaScript does.
 */
import { ProtobufError } from './protobuf-error.js';
import type { FieldFacts } from './table.js';
import { readVarint, WIRE_BYTES, WIRE_FIXED64, WIRE_VARINT, type WireField } from './wire.js';

export type Scalar = string | number | boolean;

export const SCALAR_TYPES: ReadonlySet<string> = new Set(['string', 'int32', 'int64', 'bool', 'bytes', 'double']);

const utf8 = new TextDecoder('utf-8', { ignoreBOM: true });

const WIRE_NAMES = ['varint', 'fixed64', 'length-delimited', 'start-group', 'end-group', 'fixed32'];

function expectedWireType(type: string): number {
  if (type === 'string' || type === 'bytes') return WIRE_BYTES;
  if (type === 'double') return WIRE_FIXED64;
  if (type === 'int32' || type === 'int64' || type === 'bool') return WIRE_VARINT;
  return WIRE_BYTES; // messages
}

/** Fails with the field's name when a value arrived with another wire type than its declared type has. */
export function checkWireType(owner: string, f: FieldFacts, w: WireField, expected = expectedWireType(f.type)): void {
  if (w.wireType !== expected) {
    throw new ProtobufError(
      `field ${owner}.${f.protoName} (${f.number}) has wire type ${WIRE_NAMES[w.wireType] ?? w.wireType}, ` +
        `expected ${WIRE_NAMES[expected]} for ${f.type}`,
    );
  }
}

function fromVarint(type: string, v: bigint): Scalar {
  if (type === 'bool') return v !== 0n;
  if (type === 'int32') return Number(BigInt.asIntN(32, v));
  return Number(BigInt.asIntN(64, v));
}

function fromDouble(owner: string, f: FieldFacts, bytes: Uint8Array): number {
  const value = new DataView(bytes.buffer, bytes.byteOffset, 8).getFloat64(0, true);
  if (!Number.isFinite(value))
    throw new ProtobufError(`field ${owner}.${f.protoName} is ${value}, which JSON cannot hold`);
  return value;
}

/** The value of one occurrence of a scalar field. */
export function decodeScalar(owner: string, f: FieldFacts, w: WireField): Scalar {
  checkWireType(owner, f, w);
  if (w.wireType === WIRE_VARINT) return fromVarint(f.type, w.value);
  const bytes = w.value as Uint8Array;
  if (f.type === 'double') return fromDouble(owner, f, bytes);
  return f.type === 'bytes'
    ? Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('base64')
    : utf8.decode(bytes);
}

/** The values of every occurrence of a repeated scalar field; numbers may also come packed. */
export function decodeRepeatedScalars(owner: string, f: FieldFacts, ws: readonly WireField[]): Scalar[] {
  const values: Scalar[] = [];
  const numeric = f.type !== 'string' && f.type !== 'bytes';
  for (const w of ws) {
    if (!numeric || w.wireType !== WIRE_BYTES) {
      values.push(decodeScalar(owner, f, w));
      continue;
    }
    const packed = w.value;
    let pos = 0;
    while (pos < packed.length) {
      if (f.type === 'double') {
        if (pos + 8 > packed.length)
          throw new ProtobufError(`packed field ${owner}.${f.protoName} ends inside a value`);
        values.push(fromDouble(owner, f, packed.subarray(pos, pos + 8)));
        pos += 8;
      } else {
        const [v, next] = readVarint(packed, pos);
        values.push(fromVarint(f.type, v));
        pos = next;
      }
    }
  }
  return values;
}

/** The value Go holds in a non-pointer scalar field that was never set. */
export function zeroScalar(type: string): Scalar {
  if (type === 'string' || type === 'bytes') return '';
  return type === 'bool' ? false : 0;
}

/** Go's omitempty test for scalars (an empty byte slice is base64 ""). */
export function isEmptyScalar(value: Scalar): boolean {
  return value === '' || value === 0 || value === false;
}
