/**
 * A small protobuf writer, the mirror of wire.ts: each helper returns the bytes of one field (tag and value), and
 * `message` concatenates fields. Tests build bodies with it, and /openapi/v2 is written in protobuf with it (once per
 * set of served resources); the decoder does not use it.
 */
import { KUBERNETES_PROTOBUF_PREFIX, WIRE_BYTES, WIRE_FIXED32, WIRE_FIXED64, WIRE_VARINT } from './wire.js';

const utf8 = new TextEncoder();

/** The varint bytes of an unsigned 64-bit value; negative numbers are written as their two's complement. */
export function varintBytes(value: bigint | number): Uint8Array {
  let v = BigInt.asUintN(64, BigInt(value));
  const out: number[] = [];
  while (v >= 0x80n) {
    out.push(Number(v & 0x7fn) | 0x80);
    v >>= 7n;
  }
  out.push(Number(v));
  return Uint8Array.from(out);
}

const tag = (number: number, wireType: number): Uint8Array => varintBytes((BigInt(number) << 3n) | BigInt(wireType));

export function message(...fields: readonly Uint8Array[]): Uint8Array {
  return Buffer.concat(fields);
}

/** A varint field: ints, bools and enum-like values. */
export function varintField(number: number, value: bigint | number | boolean): Uint8Array {
  return message(tag(number, WIRE_VARINT), varintBytes(typeof value === 'boolean' ? (value ? 1 : 0) : value));
}

/** A length-delimited field: bytes, a string or an embedded message's bytes. */
export function bytesField(number: number, value: Uint8Array | string): Uint8Array {
  const bytes = typeof value === 'string' ? utf8.encode(value) : value;
  return message(tag(number, WIRE_BYTES), varintBytes(bytes.length), bytes);
}

/** An embedded message made of the given fields. */
export function messageField(number: number, ...fields: readonly Uint8Array[]): Uint8Array {
  return bytesField(number, message(...fields));
}

export function doubleField(number: number, value: number): Uint8Array {
  const bytes = new Uint8Array(8);
  new DataView(bytes.buffer).setFloat64(0, value, true);
  return message(tag(number, WIRE_FIXED64), bytes);
}

export function fixed32Field(number: number, value: number): Uint8Array {
  const bytes = new Uint8Array(4);
  new DataView(bytes.buffer).setUint32(0, value, true);
  return message(tag(number, WIRE_FIXED32), bytes);
}

/** One entry of a map field. */
export function mapEntry(number: number, key: string, value: Uint8Array | string): Uint8Array {
  return messageField(number, bytesField(1, key), bytesField(2, value));
}

/** A whole Kubernetes protobuf body: the prefix, then runtime.Unknown{typeMeta, raw}. */
export function kubernetesBody(apiVersion: string, kind: string, raw: Uint8Array): Uint8Array {
  return message(
    KUBERNETES_PROTOBUF_PREFIX,
    messageField(1, bytesField(1, apiVersion), bytesField(2, kind)),
    bytesField(2, raw),
  );
}
