import { describe, it } from 'node:test';
import assert from '../../testing/assert.js';
import { ProtobufError } from './protobuf-error.js';
import { readFields, readVarint } from './wire.js';
import { bytesField, doubleField, fixed32Field, message, varintBytes, varintField } from './wire-writer.js';

describe('readVarint', () => {
  it('reads one-byte, multi-byte and 64-bit values', () => {
    assert.deepEqual(readVarint(Uint8Array.of(0x01), 0), [1n, 1]);
    assert.deepEqual(readVarint(Uint8Array.of(0xac, 0x02), 0), [300n, 2]);
    assert.deepEqual(readVarint(varintBytes(-1), 0), [2n ** 64n - 1n, 10]);
    assert.deepEqual(readVarint(Uint8Array.of(0, 0x96, 0x01), 1), [150n, 3]);
  });

  it('refuses a truncated varint, an 11-byte one and one past 64 bits', () => {
    assert.throws(() => readVarint(Uint8Array.of(0x80, 0x80), 0), /end of data inside a varint/);
    assert.throws(() => readVarint(new Uint8Array(11).fill(0x80), 0), /longer than 10 bytes/);
    const overflow = Uint8Array.of(0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02);
    assert.throws(() => readVarint(overflow, 0), /overflows 64 bits/);
  });
});

describe('readFields', () => {
  it('splits a message into its fields with their wire types and values', () => {
    const fields = readFields(message(varintField(1, 7), bytesField(2, 'hi'), doubleField(3, 1.5), fixed32Field(4, 9)));
    assert.deepEqual(
      fields.map((f) => [f.number, f.wireType]),
      [
        [1, 0],
        [2, 2],
        [3, 1],
        [4, 5],
      ],
    );
    assert.equal(fields[0]?.value, 7n);
    assert.equal(Buffer.from(fields[1]?.value as Uint8Array).toString(), 'hi');
    assert.equal((fields[2]?.value as Uint8Array | undefined)?.length, 8);
  });

  it('skips groups, nested ones included', () => {
    // field 5 start-group, inside it field 6 start-group { field 1 varint } field 6 end, field 5 end; then field 2.
    const group = Uint8Array.of(0x2b, 0x33, 0x08, 0x01, 0x34, 0x2c);
    const fields = readFields(message(group, varintField(2, 3)));
    assert.deepEqual(
      fields.map((f) => f.number),
      [2],
    );
  });

  it('reports each kind of malformed message', () => {
    const cases: [Uint8Array, RegExp][] = [
      [Uint8Array.of(0x00, 0x01), /invalid field number 0/],
      [Uint8Array.of(0x0f), /invalid wire type 7/],
      [Uint8Array.of(0x0a, 0x05, 0x61), /runs past the end/],
      [Uint8Array.of(0x09, 0x01, 0x02), /unexpected end of data in field 1/],
      [Uint8Array.of(0x0c), /end of group 1 without a start/],
      [Uint8Array.of(0x0b, 0x08, 0x01), /group 1 is not terminated/],
      [Uint8Array.of(0x0b, 0x14), /end of group 2 does not match its start 1/],
      [Uint8Array.of(0x08), /end of data inside a varint/],
    ];
    for (const [bytes, message] of cases) {
      assert.throws(
        () => readFields(bytes),
        (err: unknown) => err instanceof ProtobufError && message.test(err.message),
      );
    }
  });

  it('reads an empty message as no fields', () => {
    assert.deepEqual(readFields(new Uint8Array(0)), []);
  });
});
