import { describe, it } from 'node:test';
import { constants, createDeflate, createInflate, type Deflate, type Inflate } from 'node:zlib';
import assert from '../../testing/assert.js';
import {
  adler32,
  controlFrame,
  dataFrame,
  decodeHeaderBlock,
  encodeHeaderBlock,
  FrameParser,
  FrameType,
  HeaderReader,
  HeaderWriter,
  SPDY3_DICTIONARY,
  SpdySession,
  type SpdyStream,
} from './spdy.js';

/** Runs bytes through a zlib stream and collects what comes out. */
function through(stream: Deflate | Inflate, bytes: Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    stream.write(bytes, (err) => {
      if (err) return reject(err);
      const chunks: Buffer[] = [];
      for (let c = stream.read() as Buffer | null; c !== null; c = stream.read() as Buffer | null) chunks.push(c);
      resolve(Buffer.concat(chunks));
    });
  });
}

/** The client side of header compression, as a Go peer does it (zlib with the dictionary, sync flush). */
function clientCompressor() {
  const deflate = createDeflate({ dictionary: SPDY3_DICTIONARY, flush: constants.Z_SYNC_FLUSH });
  return (headers: Record<string, string>) =>
    through(deflate, encodeHeaderBlock(new Map(Object.entries(headers).map(([k, v]) => [k, [v]]))));
}

function synStream(id: number, block: Buffer, fin = false): Buffer {
  const body = Buffer.alloc(10);
  body.writeUInt32BE(id, 0);
  return controlFrame(FrameType.SynStream, fin ? 1 : 0, Buffer.concat([body, block]));
}

describe('SPDY/3 header blocks', () => {
  it('has the dictionary SPDY/3 specifies', () => {
    assert.equal(SPDY3_DICTIONARY.length, 1423);
    assert.equal(adler32(SPDY3_DICTIONARY), 0xe3c6a7c2);
    assert.equal(adler32(Buffer.from('Wikipedia')), 0x11e60398);
  });

  it('encodes and decodes name/value blocks, several values joined by NUL', () => {
    const block = encodeHeaderBlock(
      new Map([
        ['StreamType', ['data']],
        ['x', ['a', 'b']],
      ]),
    );
    assert.deepEqual(
      decodeHeaderBlock(block),
      new Map([
        ['streamtype', ['data']],
        ['x', ['a', 'b']],
      ]),
    );
  });

  it('reads blocks a zlib peer compressed, one stream across frames', async () => {
    const compress = clientCompressor();
    const reader = new HeaderReader();
    for (const type of ['error', 'data', 'error']) {
      const block = await reader.read(await compress({ streamtype: type, port: '80' }));
      assert.deepEqual(decodeHeaderBlock(block).get('streamtype'), [type]);
    }
    reader.close();
  });

  it('writes blocks any zlib reader with the dictionary reads, each ending with a sync marker', async () => {
    const writer = new HeaderWriter();
    const inflate = createInflate({ dictionary: SPDY3_DICTIONARY, flush: constants.Z_SYNC_FLUSH });
    const first = writer.write(encodeHeaderBlock(new Map([['a', ['1']]])));
    assert.equal(first.readUInt16BE(0) % 31, 0, 'a valid zlib header');
    assert.equal(first.readUInt32BE(2), adler32(SPDY3_DICTIONARY), 'names the dictionary');
    assert.deepEqual([...first.subarray(-5)], [0, 0, 0, 0xff, 0xff]);
    assert.deepEqual(decodeHeaderBlock(await through(inflate, first)).get('a'), ['1']);
    const second = writer.write(encodeHeaderBlock(new Map()));
    assert.equal(decodeHeaderBlock(await through(inflate, second)).size, 0);
  });
});

describe('SpdySession', () => {
  it('splits frames across reads', () => {
    const parser = new FrameParser();
    const bytes = Buffer.concat([
      dataFrame(3, 1, Buffer.from('abc')),
      controlFrame(FrameType.Ping, 0, Buffer.alloc(4)),
    ]);
    assert.deepEqual(parser.push(bytes.subarray(0, 5)), []);
    const frames = parser.push(bytes.subarray(5));
    assert.equal(frames.length, 2);
    assert.deepEqual(frames[0], { control: false, streamId: 3, flags: 1, data: Buffer.from('abc') });
    assert.equal(frames[1]?.control && frames[1].type, FrameType.Ping);
  });

  it('answers streams, carries data both ways and echoes pings', async () => {
    const sent: Buffer[] = [];
    const streams: SpdyStream[] = [];
    const session = new SpdySession({ send: (b) => sent.push(b), close: () => {} }, (s) => streams.push(s));
    const compress = clientCompressor();
    session.receive(synStream(1, await compress({ streamtype: 'data', port: '80' })));
    session.receive(dataFrame(1, 0, Buffer.from('hello')));
    const ping = Buffer.alloc(4);
    ping.writeUInt32BE(7);
    session.receive(controlFrame(FrameType.Ping, 0, ping));
    session.receive(dataFrame(1, 1, Buffer.alloc(0)));
    await new Promise((r) => setTimeout(r, 20));
    assert.equal(streams.length, 1);
    const stream = streams[0] as SpdyStream;
    assert.equal(stream.header('streamType'), 'data');
    const got: string[] = [];
    stream.onData((d) => got.push(d.toString()));
    let ended = false;
    stream.onEnd(() => {
      ended = true;
    });
    assert.deepEqual(got, ['hello']);
    assert.equal(ended, true);
    stream.write('bye');
    stream.end();

    const frames = new FrameParser().push(Buffer.concat(sent));
    const [reply, pong, data, fin] = frames;
    assert.ok(reply?.control && reply.type === FrameType.SynReply);
    assert.equal(reply.data.readUInt32BE(0), 1);
    const inflate = createInflate({ dictionary: SPDY3_DICTIONARY, flush: constants.Z_SYNC_FLUSH });
    assert.equal(decodeHeaderBlock(await through(inflate, reply.data.subarray(4))).size, 0);
    assert.ok(pong?.control && pong.type === FrameType.Ping && pong.data.readUInt32BE(0) === 7);
    assert.deepEqual(data, { control: false, streamId: 1, flags: 0, data: Buffer.from('bye') });
    assert.deepEqual(fin, { control: false, streamId: 1, flags: 1, data: Buffer.alloc(0) });
    session.terminated();
  });
});
