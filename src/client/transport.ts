/**
 * The HTTP/2 connection under the REST client: one session per client, shared by all its requests and watches
 * (as Go's http2 transport multiplexes client-go's requests over one connection), opened on first use and opened
 * again after it closes, fails or receives GOAWAY. The session holds the process open only while a stream is in
 * flight, so an idle client never keeps Node running.
 */
import {
  type ClientHttp2Session,
  type ClientHttp2Stream,
  connect,
  constants,
  type IncomingHttpHeaders,
  type OutgoingHttpHeaders,
} from 'node:http2';
import type { Socket } from 'node:net';
import type { Logger } from '../util/logger.js';
import type { CancelSignal } from './cancel.js';
import type { ConnectionConfig } from './kubeconfig.js';

export interface TransportRequest {
  method: string;
  /** Path and query, e.g. /api/v1/pods?limit=5. */
  path: string;
  headers: OutgoingHttpHeaders;
  body?: Buffer;
  signal?: CancelSignal;
}

export interface TransportResponse {
  status: number;
  headers: IncomingHttpHeaders;
  /** The response body; read it to the end or close it. */
  stream: ClientHttp2Stream;
}

interface OpenSession {
  session: ClientHttp2Session;
  /** The connection under the session, once connected. */
  socket?: Socket;
  /** Streams in flight; the session is ref'ed while there are any. */
  streams: number;
  /** False once it failed or got GOAWAY: new streams go to a new session, and this one ends with its last stream. */
  usable: boolean;
}

/**
 * The flow-control windows this client grants the server, as Go's HTTP/2 transport under client-go does (4 MiB per
 * stream, 1 GiB for the connection) rather than HTTP/2's 64 KiB defaults. With 64 KiB, a watch can carry only one
 * window of events per round trip of WINDOW_UPDATE: when either side's event loop is busy, a busy watch (the
 * scheduler's pods) falls seconds behind the writes it reports, and a window held by one stream's unread data
 * stalls every other stream of the connection.
 */
const STREAM_WINDOW_BYTES = 4 << 20;
const CONNECTION_WINDOW_BYTES = 1 << 30;

export class Http2Transport {
  private readonly origin: string;
  private current: OpenSession | undefined;
  private readonly all = new Set<OpenSession>();
  private closed = false;

  constructor(
    private readonly config: ConnectionConfig,
    private readonly logger: Logger,
  ) {
    const url = new URL(config.server);
    if (url.protocol !== 'https:' && url.protocol !== 'http:') {
      throw new Error(`server ${config.server}: the scheme must be https or http`);
    }
    this.origin = url.origin;
  }

  /** Sends one request; resolves once the response headers are in. */
  open(req: TransportRequest): Promise<TransportResponse> {
    if (this.closed) return Promise.reject(new Error('the client has been closed'));
    if (req.signal?.aborted) return Promise.reject(req.signal.reason);
    let open = this.session();
    let stream: ClientHttp2Stream;
    const headers = { ':method': req.method, ':path': req.path, ...req.headers };
    try {
      stream = open.session.request(headers, { endStream: req.body === undefined });
    } catch {
      // The session was going away under us (GOAWAY being processed, or closing): once more on a new one.
      open.usable = false;
      open = this.session();
      try {
        stream = open.session.request(headers, { endStream: req.body === undefined });
      } catch (error) {
        return Promise.reject(error);
      }
    }
    open.streams++;
    if (open.streams === 1) open.session.ref();
    // One listener per stream event, each settling the answer while it is awaited: 'error' also keeps an error after
    // the response headers (for whoever reads the body) from becoming an uncaught exception.
    let settle: ((error: unknown, headers?: IncomingHttpHeaders) => void) | undefined;
    const answer = new Promise<TransportResponse>((resolve, reject) => {
      settle = (error, headers) => {
        settle = undefined;
        if (headers !== undefined) resolve({ status: Number(headers[':status']), headers, stream });
        else reject(req.signal?.aborted ? req.signal.reason : error);
      };
    });
    const onAbort = () => {
      if (!stream.closed) stream.close(constants.NGHTTP2_CANCEL);
    };
    stream.on('error', (error) => settle?.(error));
    stream.once('close', () => {
      open.streams--;
      if (open.streams === 0) {
        if (!open.session.destroyed) open.session.unref();
        if (!open.usable) this.finish(open);
      }
      req.signal?.removeEventListener('abort', onAbort);
      settle?.(streamClosedError(stream));
    });
    stream.once('response', (headers) => settle?.(undefined, headers));
    req.signal?.addEventListener('abort', onAbort, { once: true });
    if (req.body !== undefined) stream.end(req.body);
    return answer;
  }

  /** Closes every session; streams in flight are cancelled. The transport cannot be used afterwards. */
  close(): void {
    this.closed = true;
    for (const open of [...this.all]) {
      open.usable = false;
      this.finish(open);
    }
    this.current = undefined;
  }

  /**
   * Ends a retired session that has no streams left. After a GOAWAY, Node's session shuts down but may leave its
   * connection half-open, so the socket is destroyed as well.
   */
  private finish(open: OpenSession): void {
    this.all.delete(open);
    if (!open.session.destroyed) open.session.destroy();
    open.socket?.destroy();
  }

  private session(): OpenSession {
    const current = this.current;
    if (current?.usable && !current.session.closed && !current.session.destroyed) return current;
    const { caPem, certPem, keyPem, insecureSkipTlsVerify, tlsServerName } = this.config;
    const session = connect(this.origin, {
      ...(caPem !== undefined ? { ca: caPem } : {}),
      ...(certPem !== undefined ? { cert: certPem } : {}),
      ...(keyPem !== undefined ? { key: keyPem } : {}),
      ...(tlsServerName !== undefined ? { servername: tlsServerName } : {}),
      rejectUnauthorized: insecureSkipTlsVerify !== true,
      settings: { initialWindowSize: STREAM_WINDOW_BYTES },
    });
    const open: OpenSession = { session, streams: 0, usable: true };
    const retire = () => {
      open.usable = false;
      if (this.current === open) this.current = undefined;
      if (open.streams === 0) this.finish(open);
    };
    session.once('connect', (_session: ClientHttp2Session, socket: Socket) => {
      open.socket = socket;
      session.setLocalWindowSize(CONNECTION_WINDOW_BYTES);
    });
    session.on('error', (error) => {
      this.logger.v(4).info('connection to the apiserver failed', { server: this.origin, error: String(error) });
      retire();
    });
    session.on('goaway', (code) => {
      this.logger.v(4).info('the apiserver sent GOAWAY', { server: this.origin, code });
      retire();
    });
    session.on('close', () => {
      retire();
      this.all.delete(open);
    });
    session.unref();
    this.all.add(open);
    this.current = open;
    return open;
  }
}

/** The error for a stream that ended before its response headers arrived. */
function streamClosedError(stream: ClientHttp2Stream): Error {
  const error = new Error(`the connection was closed before the response arrived (HTTP/2 code ${stream.rstCode})`);
  (error as NodeJS.ErrnoException).code = 'ERR_HTTP2_STREAM_CLOSED_EARLY';
  return error;
}

/**
 * A failure that means the request may not have reached the server, or the connection was lost under it: worth
 * trying a GET again (client-go: connection reset, probable EOF, HTTP/2 connection lost). A refused connection is
 * not among them.
 */
export function isRetryableConnectionError(error: unknown): boolean {
  let e: unknown = error;
  for (let depth = 0; depth < 4 && e instanceof Error; depth++) {
    const code = (e as NodeJS.ErrnoException).code;
    if (
      code === 'ECONNRESET' ||
      code === 'EPIPE' ||
      code === 'ERR_HTTP2_GOAWAY_SESSION' ||
      code === 'ERR_HTTP2_INVALID_SESSION' ||
      code === 'ERR_HTTP2_SESSION_ERROR' ||
      code === 'ERR_HTTP2_STREAM_CLOSED_EARLY' ||
      code === 'ERR_STREAM_PREMATURE_CLOSE'
    ) {
      return true;
    }
    if (code === 'ERR_HTTP2_STREAM_ERROR' && /REFUSED_STREAM/.test(e.message)) return true;
    e = e.cause;
  }
  return false;
}

/** Reads a response body to its end. */
export function readBody(stream: ClientHttp2Stream): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.once('end', () => resolve(Buffer.concat(chunks)));
    stream.once('error', reject);
    stream.once('close', () => {
      // A stream cancelled or reset before 'end' closes without one.
      if (!stream.readableEnded) reject(streamClosedError(stream));
    });
  });
}
