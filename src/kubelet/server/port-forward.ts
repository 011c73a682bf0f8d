/**
 * Port-forwarding to a simulated pod. No connection is ever opened to a pod IP: each forwarded connection is
 * answered by a small built-in responder — an HTTP request gets `hello from <pod>`, anything else is echoed back.
 * A pod that declares container ports answers on those only (others get upstream's "connection refused" error on
 * the error stream); a pod that declares none answers on every port.
 *
 * Two transports carry the connections, as the kubelet's own port-forward does:
 *  - SPDY streams (`portforward.k8s.io`), raw after an HTTP upgrade or tunnelled through WebSocket binary
 *    messages (kubectl 1.31+): per connection an error stream and a data stream with the headers streamType,
 *    port and requestID;
 *  - WebSocket channels (`v4.channel.k8s.io`, used by @kubernetes/client-node): per port in `?ports=` a data
 *    and an error channel, each opened by the port number (two bytes, little-endian).
 */
import type { KubeObject } from '../../client/types.js';
import type { SpdyStream } from './spdy.js';

/** The ports a pod's containers declare; empty when none are declared. */
export function declaredPorts(pod: KubeObject): Set<number> {
  const ports = new Set<number>();
  for (const list of [pod.spec?.containers, pod.spec?.initContainers]) {
    for (const c of Array.isArray(list) ? list : []) {
      for (const p of Array.isArray(c?.ports) ? c.ports : []) {
        if (typeof p?.containerPort === 'number' && (p.protocol ?? 'TCP') === 'TCP') ports.add(p.containerPort);
      }
    }
  }
  return ports;
}

/** The error a forwarded connection to a port nobody listens on gets, worded as the kubelet words it. */
export function refusedMessage(pod: KubeObject, port: number): string {
  const uid = pod.metadata.uid ?? '';
  return (
    `error forwarding port ${port} to pod ${uid}, uid : failed to execute portforward in network namespace ` +
    `"/var/run/netns/cni-${uid}": failed to connect to localhost:${port} inside namespace "${uid}", ` +
    `IPv4: dial tcp4 127.0.0.1:${port}: connect: connection refused IPv6 dial tcp6 [::1]:${port}: connect: connection refused `
  );
}

export function accepts(pod: KubeObject, port: number): boolean {
  const ports = declaredPorts(pod);
  return ports.size === 0 || ports.has(port);
}

/** A connection to the responder: bytes in, bytes out, end. */
export interface Connection {
  write(data: Buffer): void;
  end(): void;
}

const HTTP_METHOD = /^(GET|HEAD|POST|PUT|PATCH|DELETE|OPTIONS|TRACE|CONNECT) /;

/**
 * The built-in responder of one forwarded connection. Feed it what the client sends; it answers an HTTP request
 * (once its headers are in) with a 200 and closes, and echoes anything else.
 */
export class Responder {
  private buffer = Buffer.alloc(0);
  private mode: 'unknown' | 'http' | 'echo' = 'unknown';
  private done = false;

  constructor(
    private readonly pod: KubeObject,
    private readonly port: number,
    private readonly out: Connection,
  ) {}

  receive(data: Buffer): void {
    if (this.done) return;
    if (this.mode === 'echo') {
      this.out.write(data);
      return;
    }
    this.buffer = Buffer.concat([this.buffer, data]);
    if (this.mode === 'unknown') {
      const text = this.buffer.toString('latin1');
      if (HTTP_METHOD.test(text)) this.mode = 'http';
      else if (this.buffer.length >= 8 || text.includes('\n')) {
        this.mode = 'echo';
        this.out.write(this.buffer);
        this.buffer = Buffer.alloc(0);
        return;
      } else return;
    }
    const text = this.buffer.toString('latin1');
    const end = text.indexOf('\r\n\r\n');
    if (end < 0) return;
    const head = text.slice(0, end);
    const method = head.split(' ')[0] ?? 'GET';
    const name = this.pod.metadata.name ?? '';
    const body = `hello from ${name}\n`;
    const response =
      'HTTP/1.1 200 OK\r\n' +
      'Content-Type: text/plain; charset=utf-8\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      `X-Wheelhouse-Pod: ${this.pod.metadata.namespace ?? ''}/${name}\r\n` +
      `X-Wheelhouse-Port: ${this.port}\r\n` +
      'Connection: close\r\n\r\n' +
      (method === 'HEAD' ? '' : body);
    this.out.write(Buffer.from(response, 'utf8'));
    this.finish();
  }

  /** The client closed its side. */
  clientEnded(): void {
    this.finish();
  }

  private finish(): void {
    if (this.done) return;
    this.done = true;
    this.out.end();
  }
}

/**
 * Serves the streams of one SPDY port-forward session: pairs each connection's error and data streams by
 * requestID and runs a responder on the data stream.
 */
export class SpdyPortForward {
  private readonly pairs = new Map<string, { error?: SpdyStream; data?: SpdyStream }>();

  constructor(private readonly pod: KubeObject) {}

  stream(stream: SpdyStream): void {
    const type = stream.header('streamType');
    const requestId = stream.header('requestID') ?? String(stream.id);
    const pair = this.pairs.get(requestId) ?? {};
    if (type === 'error') pair.error = stream;
    else if (type === 'data') pair.data = stream;
    else {
      stream.reset();
      return;
    }
    this.pairs.set(requestId, pair);
    if (pair.error && pair.data) {
      this.pairs.delete(requestId);
      this.serve(pair.data, pair.error);
    }
  }

  private serve(data: SpdyStream, error: SpdyStream): void {
    const portText = data.header('port') ?? '';
    const port = Number(portText);
    if (!Number.isInteger(port) || port <= 0 || port > 65535) {
      error.write(`invalid port "${portText}"`);
      error.end();
      data.end();
      return;
    }
    if (!accepts(this.pod, port)) {
      error.write(refusedMessage(this.pod, port));
      error.end();
      data.end();
      return;
    }
    const responder = new Responder(this.pod, port, {
      write: (b) => data.write(b),
      end: () => {
        data.end();
        error.end();
      },
    });
    data.onData((b) => responder.receive(b));
    data.onEnd(() => responder.clientEnded());
  }
}

/** Parses the `ports` query parameter of a WebSocket port-forward (comma-separated, possibly repeated). */
export function parsePorts(values: string[]): number[] | string {
  const ports: number[] = [];
  for (const v of values) {
    for (const part of v.split(',')) {
      const n = Number(part.trim());
      if (!Number.isInteger(n) || n <= 0 || n > 65535) return `unable to parse "${part}" as a port: invalid port`;
      ports.push(n);
    }
  }
  if (ports.length === 0) return 'query parameter "port" is required';
  return ports;
}
