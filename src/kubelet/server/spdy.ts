/**
 * The server side of SPDY/3.1 as Kubernetes streaming uses it (moby/spdystream under client-go's httpstream):
 * framing, header blocks, and a session that accepts the client's streams, answers each with a SYN_REPLY, carries
 * data both ways, echoes PINGs and ignores flow control (spdystream does not enforce it). kubectl's port-forward
 * speaks it over a raw upgraded connection or, since 1.31, tunnelled in WebSocket binary messages.
 *
 * Header blocks are zlib streams primed with SPDY/3's dictionary, one stream per direction for the whole session.
 * Incoming blocks are inflated with node:zlib; outgoing ones are written as stored (uncompressed) deflate blocks,
 * which any zlib reader accepts and which need no compressor state.
 */
import { createInflate, type Inflate, constants as zlibConstants } from 'node:zlib';

const VERSION = 3;

export const FrameType = {
  SynStream: 1,
  SynReply: 2,
  RstStream: 3,
  Settings: 4,
  Ping: 6,
  GoAway: 7,
  Headers: 8,
  WindowUpdate: 9,
} as const;

const FLAG_FIN = 0x01;

/** RST_STREAM status codes. */
export const RstStatus = { ProtocolError: 1, InvalidStream: 2, RefusedStream: 3, Cancel: 5, InternalError: 6 } as const;

/** SPDY/3's header compression dictionary: length-prefixed header names and common values, then a tail. */
export const SPDY3_DICTIONARY: Buffer = (() => {
  const words = [
    'options',
    'head',
    'post',
    'put',
    'delete',
    'trace',
    'accept',
    'accept-charset',
    'accept-encoding',
    'accept-language',
    'accept-ranges',
    'age',
    'allow',
    'authorization',
    'cache-control',
    'connection',
    'content-base',
    'content-encoding',
    'content-language',
    'content-length',
    'content-location',
    'content-md5',
    'content-range',
    'content-type',
    'date',
    'etag',
    'expect',
    'expires',
    'from',
    'host',
    'if-match',
    'if-modified-since',
    'if-none-match',
    'if-range',
    'if-unmodified-since',
    'last-modified',
    'location',
    'max-forwards',
    'pragma',
    'proxy-authenticate',
    'proxy-authorization',
    'range',
    'referer',
    'retry-after',
    'server',
    'te',
    'trailer',
    'transfer-encoding',
    'upgrade',
    'user-agent',
    'vary',
    'via',
    'warning',
    'www-authenticate',
    'method',
    'get',
    'status',
    '200 OK',
    'version',
    'HTTP/1.1',
    'url',
    'public',
    'set-cookie',
    'keep-alive',
    'origin',
  ];
  const tail =
    '100101201202205206300302303304305306307402405406407408409410411412413414415416417502504505' +
    '203 Non-Authoritative Information204 No Content301 Moved Permanently400 Bad Request401 Unauthorized' +
    '403 Forbidden404 Not Found500 Internal Server Error501 Not Implemented503 Service Unavailable' +
    'Jan Feb Mar Apr May Jun Jul Aug Sept Oct Nov Dec 00:00:00 Mon, Tue, Wed, Thu, Fri, Sat, Sun, GMT' +
    'chunked,text/html,image/png,image/jpg,image/gif,application/xml,application/xhtml+xml,text/plain,' +
    'text/javascript,publicprivatemax-age=gzip,deflate,sdchcharset=utf-8charset=iso-8859-1,utf-,*,enq=0.';
  const parts: Buffer[] = [];
  for (const w of words) {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(w.length);
    parts.push(len, Buffer.from(w, 'latin1'));
  }
  parts.push(Buffer.from(tail, 'latin1'));
  return Buffer.concat(parts);
})();

export function adler32(data: Buffer): number {
  let a = 1;
  let b = 0;
  for (let i = 0; i < data.length; i++) {
    a = (a + (data[i] as number)) % 65521;
    b = (b + a) % 65521;
  }
  return ((b << 16) | a) >>> 0;
}

/** Header names and values (names lower-case; several values of one name joined with NUL on the wire). */
export type SpdyHeaders = Map<string, string[]>;

export function encodeHeaderBlock(headers: SpdyHeaders): Buffer {
  const parts: Buffer[] = [];
  const count = Buffer.alloc(4);
  count.writeUInt32BE(headers.size);
  parts.push(count);
  for (const [name, values] of headers) {
    const n = Buffer.from(name.toLowerCase(), 'utf8');
    const v = Buffer.from(values.join('\0'), 'utf8');
    const nl = Buffer.alloc(4);
    nl.writeUInt32BE(n.length);
    const vl = Buffer.alloc(4);
    vl.writeUInt32BE(v.length);
    parts.push(nl, n, vl, v);
  }
  return Buffer.concat(parts);
}

export function decodeHeaderBlock(block: Buffer): SpdyHeaders {
  const headers: SpdyHeaders = new Map();
  let off = 0;
  const u32 = () => {
    if (off + 4 > block.length) throw new Error('truncated SPDY header block');
    const v = block.readUInt32BE(off);
    off += 4;
    return v;
  };
  const bytes = (n: number) => {
    if (off + n > block.length) throw new Error('truncated SPDY header block');
    const b = block.subarray(off, off + n);
    off += n;
    return b;
  };
  const count = u32();
  for (let i = 0; i < count; i++) {
    const name = bytes(u32()).toString('utf8').toLowerCase();
    const value = bytes(u32()).toString('utf8');
    headers.set(name, [...(headers.get(name) ?? []), ...value.split('\0')]);
  }
  return headers;
}

/**
 * Writes header blocks as one zlib stream of stored deflate blocks, primed with the dictionary's id, each block
 * followed by an empty one as a sync flush does.
 */
export class HeaderWriter {
  private started = false;

  write(block: Buffer): Buffer {
    const parts: Buffer[] = [];
    if (!this.started) {
      this.started = true;
      const cmf = 0x78;
      let flg = 0x20 | 0x80; // FDICT, default compression level
      flg += 31 - ((cmf * 256 + flg) % 31);
      if ((cmf * 256 + flg) % 31 !== 0) flg -= 31;
      const head = Buffer.alloc(6);
      head[0] = cmf;
      head[1] = flg;
      head.writeUInt32BE(adler32(SPDY3_DICTIONARY), 2);
      parts.push(head);
    }
    for (let off = 0; off < block.length; off += 0xffff) {
      const piece = block.subarray(off, off + 0xffff);
      const h = Buffer.alloc(5);
      h[0] = 0; // not final, stored
      h.writeUInt16LE(piece.length, 1);
      h.writeUInt16LE(~piece.length & 0xffff, 3);
      parts.push(h, piece);
    }
    // An empty stored block ends each header block, as a sync flush does: a reader that has the block's bytes
    // hands them out only once it has seen where the next block starts.
    parts.push(Buffer.from([0x00, 0x00, 0x00, 0xff, 0xff]));
    return Buffer.concat(parts);
  }
}

/** Inflates the peer's header blocks, which share one zlib stream. */
export class HeaderReader {
  private readonly inflate: Inflate = createInflate({
    dictionary: SPDY3_DICTIONARY,
    flush: zlibConstants.Z_SYNC_FLUSH,
  });

  constructor() {
    this.inflate.on('error', () => {});
  }

  read(compressed: Buffer): Promise<Buffer> {
    return new Promise((resolve, reject) => {
      this.inflate.write(compressed, (err) => {
        if (err) return reject(err);
        const chunks: Buffer[] = [];
        for (let c = this.inflate.read() as Buffer | null; c !== null; c = this.inflate.read() as Buffer | null) {
          chunks.push(c);
        }
        resolve(Buffer.concat(chunks));
      });
    });
  }

  close(): void {
    this.inflate.destroy();
  }
}

export function controlFrame(type: number, flags: number, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt16BE(0x8000 | VERSION, 0);
  head.writeUInt16BE(type, 2);
  head.writeUInt32BE(((flags & 0xff) << 24) | data.length, 4);
  return Buffer.concat([head, data]);
}

export function dataFrame(streamId: number, flags: number, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(streamId & 0x7fffffff, 0);
  head.writeUInt32BE(((flags & 0xff) << 24) | data.length, 4);
  return Buffer.concat([head, data]);
}

export type Frame =
  | { control: true; type: number; flags: number; data: Buffer }
  | { control: false; streamId: number; flags: number; data: Buffer };

/** Splits a byte stream into frames. */
export class FrameParser {
  private buffer: Buffer = Buffer.alloc(0);

  push(bytes: Buffer): Frame[] {
    this.buffer = this.buffer.length === 0 ? bytes : Buffer.concat([this.buffer, bytes]);
    const frames: Frame[] = [];
    while (this.buffer.length >= 8) {
      const word = this.buffer.readUInt32BE(0);
      const flagsLength = this.buffer.readUInt32BE(4);
      const length = flagsLength & 0xffffff;
      if (this.buffer.length < 8 + length) break;
      const data = this.buffer.subarray(8, 8 + length);
      const flags = flagsLength >>> 24;
      if (word & 0x80000000) frames.push({ control: true, type: word & 0xffff, flags, data });
      else frames.push({ control: false, streamId: word & 0x7fffffff, flags, data });
      this.buffer = this.buffer.subarray(8 + length);
    }
    return frames;
  }
}

/** One stream the client opened. */
export class SpdyStream {
  private remoteClosed = false;
  private localClosed = false;
  private readonly pending: Buffer[] = [];
  private dataListener: ((data: Buffer) => void) | undefined;
  private endListener: (() => void) | undefined;

  constructor(
    readonly id: number,
    readonly headers: SpdyHeaders,
    private readonly session: SpdySession,
  ) {}

  /** The first value of a header (names are case-insensitive). */
  header(name: string): string | undefined {
    return this.headers.get(name.toLowerCase())?.[0];
  }

  /** Receives the client's data; data that came before a listener was set is delivered at once. */
  onData(listener: (data: Buffer) => void): void {
    this.dataListener = listener;
    for (const d of this.pending.splice(0)) listener(d);
  }

  /** Called once the client has half-closed the stream (or it was reset or the session ended). */
  onEnd(listener: () => void): void {
    this.endListener = listener;
    if (this.remoteClosed) listener();
  }

  get ended(): boolean {
    return this.remoteClosed;
  }

  write(data: Buffer | string): void {
    if (this.localClosed) return;
    const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
    for (let off = 0; off < bytes.length; off += 0xffff) {
      this.session.send(dataFrame(this.id, 0, bytes.subarray(off, off + 0xffff)));
    }
  }

  /** Half-closes the stream from this side (an empty DATA frame with FIN). */
  end(): void {
    if (this.localClosed) return;
    this.localClosed = true;
    this.session.send(dataFrame(this.id, FLAG_FIN, Buffer.alloc(0)));
  }

  reset(status: number = RstStatus.Cancel): void {
    const body = Buffer.alloc(8);
    body.writeUInt32BE(this.id & 0x7fffffff, 0);
    body.writeUInt32BE(status, 4);
    this.localClosed = true;
    this.session.send(controlFrame(FrameType.RstStream, 0, body));
    this.remoteEnd();
  }

  /** @internal */
  deliver(data: Buffer, fin: boolean): void {
    if (this.remoteClosed) return;
    if (data.length > 0) {
      if (this.dataListener) this.dataListener(data);
      else this.pending.push(data);
    }
    if (fin) this.remoteEnd();
  }

  /** @internal */
  remoteEnd(): void {
    if (this.remoteClosed) return;
    this.remoteClosed = true;
    this.endListener?.();
  }
}

/**
 * The server end of a SPDY session over some byte transport: feed it the bytes received, and it sends its bytes
 * through `send`. Each stream the client opens is answered with an empty SYN_REPLY and handed to `onStream`.
 */
export class SpdySession {
  private readonly parser = new FrameParser();
  private readonly headerReader = new HeaderReader();
  private readonly headerWriter = new HeaderWriter();
  private readonly streams = new Map<number, SpdyStream>();
  private queue: Promise<void> = Promise.resolve();
  private closed = false;
  private lastStreamId = 0;

  constructor(
    private readonly transport: { send(bytes: Buffer): void; close(): void },
    private readonly onStream: (stream: SpdyStream) => void,
  ) {}

  /** Feeds bytes received from the client. */
  receive(bytes: Buffer): void {
    if (this.closed) return;
    let frames: Frame[];
    try {
      frames = this.parser.push(bytes);
    } catch {
      this.close();
      return;
    }
    for (const frame of frames) {
      this.queue = this.queue.then(() => this.handle(frame)).catch(() => this.close());
    }
  }

  /** @internal */
  send(bytes: Buffer): void {
    if (!this.closed) this.transport.send(bytes);
  }

  /** Ends every stream and the transport (with a GOAWAY first). */
  close(): void {
    if (this.closed) return;
    const body = Buffer.alloc(8);
    body.writeUInt32BE(this.lastStreamId, 0);
    this.transport.send(controlFrame(FrameType.GoAway, 0, body));
    this.closed = true;
    this.headerReader.close();
    for (const s of this.streams.values()) s.remoteEnd();
    this.streams.clear();
    this.transport.close();
  }

  /** The transport went away: end every stream without writing. */
  terminated(): void {
    if (this.closed) return;
    this.closed = true;
    this.headerReader.close();
    for (const s of this.streams.values()) s.remoteEnd();
    this.streams.clear();
  }

  private async handle(frame: Frame): Promise<void> {
    if (this.closed) return;
    if (!frame.control) {
      const stream = this.streams.get(frame.streamId);
      if (!stream) return;
      const fin = (frame.flags & FLAG_FIN) !== 0;
      stream.deliver(frame.data, fin);
      if (stream.ended) this.streams.delete(stream.id);
      return;
    }
    const d = frame.data;
    switch (frame.type) {
      case FrameType.SynStream: {
        if (d.length < 10) throw new Error('short SYN_STREAM');
        const id = d.readUInt32BE(0) & 0x7fffffff;
        const headers = decodeHeaderBlock(await this.headerReader.read(d.subarray(10)));
        const stream = new SpdyStream(id, headers, this);
        this.lastStreamId = Math.max(this.lastStreamId, id);
        this.streams.set(id, stream);
        const reply = Buffer.concat([uint32(id), this.headerWriter.write(encodeHeaderBlock(new Map()))]);
        this.send(controlFrame(FrameType.SynReply, 0, reply));
        if (frame.flags & FLAG_FIN) stream.remoteEnd();
        this.onStream(stream);
        return;
      }
      case FrameType.SynReply:
      case FrameType.Headers:
        // Keep the shared decompression state in step even though these carry nothing we need.
        if (d.length >= 4) await this.headerReader.read(d.subarray(4));
        return;
      case FrameType.RstStream: {
        const id = d.readUInt32BE(0) & 0x7fffffff;
        this.streams.get(id)?.remoteEnd();
        this.streams.delete(id);
        return;
      }
      case FrameType.Ping:
        this.send(controlFrame(FrameType.Ping, 0, d));
        return;
      case FrameType.GoAway:
        this.close();
        return;
      default:
        // SETTINGS, WINDOW_UPDATE and unknown frames: nothing to do.
        return;
    }
  }
}

function uint32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n >>> 0);
  return b;
}
