/**
 * The kubelet's HTTPS endpoint (upstream's port 10250) for every simulated node of the process: `/healthz`,
 * `GET /containerLogs/<ns>/<pod>/<container>`, and the streaming endpoints `/exec/…`, `/attach/…` and
 * `/portForward/<ns>/<pod>` over WebSocket (the channel protocols up to v5, and SPDY tunnelled in WebSocket for
 * port-forward) or over a raw SPDY/3.1 upgrade, as the apiserver proxies `pods/log`, `pods/exec`, `pods/attach`
 * and `pods/portforward` to them. It listens on loopback; the nodes advertise its port in
 * `status.daemonEndpoints.kubeletEndpoint.Port`.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { type WebSocket, WebSocketServer } from 'ws';
import type { KubeObject } from '../../client/types.js';
import { type CertificateAndKey, createCertificateAuthority, signCertificate } from '../../util/certificates.js';
import { type Clock, realClock } from '../../util/clock.js';
import { type Logger, silentLogger } from '../../util/logger.js';
import { type ChannelProtocol, EXEC_PROTOCOLS, selectProtocol } from './channel.js';
import {
  attachBody,
  execBody,
  parseStreamOptions,
  type SessionBody,
  SpdyExecSession,
  serveWebSocketSession,
} from './exec.js';
import { checkContainerLogStatus, parseLogQuery, streamLog } from './logs.js';
import type { PodDNSSettings } from './pod-dns.js';
import { findContainer } from './pod-files.js';
import { accepts, parsePorts, Responder, refusedMessage, SpdyPortForward } from './port-forward.js';
import { SpdySession, type SpdyStream } from './spdy.js';
import type { ObjectSource, PodRuntime } from './types.js';

export interface KubeletServerOptions {
  /** The pods served (see `runtime` to set it later). */
  runtime: PodRuntime;
  /** Where exec reads ConfigMaps and Secrets for env and mounted files. */
  objects?: ObjectSource;
  /** The cluster DNS of the pods' /etc/resolv.conf (kubeadm's by default). */
  dns?: PodDNSSettings;
  /** The serving certificate; a self-signed one for 127.0.0.1 and localhost is made at start without it. */
  tls?: CertificateAndKey;
  /** Clients must present a certificate signed by this CA (upstream's --client-ca-file); anyone may connect without. */
  clientCaPem?: string;
  /** 127.0.0.1 by default. */
  bindAddress?: string;
  /** 0 (a free port) by default. */
  port?: number;
  clock?: Clock;
  logger?: Logger;
}

/** The subprotocol kubectl tunnels SPDY port-forward streams with. */
export const PORT_FORWARD_TUNNEL_PROTOCOL = 'SPDY/3.1+portforward.k8s.io';
const PORT_FORWARD_PROTOCOL = 'portforward.k8s.io';
const SPDY_EXEC_PROTOCOLS = EXEC_PROTOCOLS.filter((p) => !p.base64 && p.version <= 4);
/** The WebSocket port-forward protocols besides the tunnel: channel pairs per port. */
const WS_PORT_FORWARD_PROTOCOLS: readonly ChannelProtocol[] = [
  { name: 'v4.channel.k8s.io', version: 4, base64: false },
  { name: 'v4.base64.channel.k8s.io', version: 4, base64: true },
  { name: 'channel.k8s.io', version: 1, base64: false },
];

class HttpError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

const STATUS_TEXT: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  422: 'Unprocessable Entity',
  500: 'Internal Server Error',
};

interface StreamRoute {
  kind: 'exec' | 'attach' | 'portForward';
  namespace: string;
  pod: string;
  uid?: string;
  container?: string;
}

/** /exec/<ns>/<pod>[/<uid>]/<container>, /attach/…, /portForward/<ns>/<pod>[/<uid>]. */
function parseStreamRoute(path: string): StreamRoute | undefined {
  const parts = path.split('/').filter(Boolean).map(decodeURIComponent);
  const [kind, namespace, pod, ...rest] = parts;
  if (!namespace || !pod) return undefined;
  if (kind === 'exec' || kind === 'attach') {
    if (rest.length === 1) return { kind, namespace, pod, container: rest[0] as string };
    if (rest.length === 2) return { kind, namespace, pod, uid: rest[0] as string, container: rest[1] as string };
    return undefined;
  }
  if (kind === 'portForward' && rest.length <= 1) return { kind, namespace, pod, ...(rest[0] ? { uid: rest[0] } : {}) };
  return undefined;
}

function isRunning(pod: KubeObject, container: string): boolean {
  const status = pod.status ?? {};
  const all = [
    ...(status.containerStatuses ?? []),
    ...(status.initContainerStatuses ?? []),
    ...(status.ephemeralContainerStatuses ?? []),
  ];
  return all.some((s: { name?: string; state?: { running?: unknown } }) => s?.name === container && !!s.state?.running);
}

export class KubeletServer {
  private server: Server | undefined;
  private readonly wss = new WebSocketServer({ noServer: true, perMessageDeflate: false });
  private readonly chosenProtocol = new WeakMap<IncomingMessage, string>();
  private readonly sockets = new Set<Socket>();
  private readonly clock: Clock;
  private readonly log: Logger;
  private listeningPort = 0;
  /**
   * The pods served. It may be replaced after start: the kubelets advertise the server's port, so they are often
   * made once it listens.
   */
  runtime: PodRuntime;

  constructor(private readonly opts: KubeletServerOptions) {
    this.runtime = opts.runtime;
    this.clock = opts.clock ?? realClock;
    this.log = opts.logger ?? silentLogger;
    // The subprotocol is chosen before the handshake and written here: ws refuses names like
    // "SPDY/3.1+portforward.k8s.io" that Kubernetes clients use.
    this.wss.on('headers', (headers: string[], req: IncomingMessage) => {
      const chosen = this.chosenProtocol.get(req);
      if (chosen) headers.push(`Sec-WebSocket-Protocol: ${chosen}`);
    });
  }

  /** Completes a WebSocket handshake with the given subprotocol (none when undefined). */
  private acceptWebSocket(
    req: IncomingMessage,
    socket: Socket,
    head: Buffer,
    protocol: string | undefined,
    then: (ws: WebSocket) => void,
  ): void {
    if (protocol) this.chosenProtocol.set(req, protocol);
    delete req.headers['sec-websocket-protocol'];
    this.wss.handleUpgrade(req, socket, head, then);
  }

  /** The port it listens on (after start). */
  get port(): number {
    return this.listeningPort;
  }

  get address(): string {
    return this.opts.bindAddress ?? '127.0.0.1';
  }

  async start(): Promise<number> {
    const tls = this.opts.tls ?? (await selfSignedKubeletCertificate());
    const server = createServer({
      cert: tls.certPem,
      key: tls.keyPem,
      ...(this.opts.clientCaPem ? { ca: this.opts.clientCaPem, requestCert: true, rejectUnauthorized: false } : {}),
    });
    server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      this.handleRequest(req, res).catch((err) => {
        const code = err instanceof HttpError ? err.code : 500;
        if (code >= 500) this.log.error('kubelet request failed', { path: req.url, err: String(err) });
        if (!res.headersSent) {
          res.writeHead(code, { 'content-type': 'text/plain; charset=utf-8' });
          res.end((err as Error).message);
        } else res.end();
      });
    });
    server.on('upgrade', (req: IncomingMessage, socket: Socket, head: Buffer) => {
      socket.on('error', () => {});
      try {
        this.handleUpgrade(req, socket, head);
      } catch (err) {
        const code = err instanceof HttpError ? err.code : 500;
        writeRawError(socket, code, (err as Error).message);
      }
    });
    server.on('tlsClientError', () => {});
    server.on('secureConnection', (socket: TLSSocket) => {
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.opts.port ?? 0, this.address, () => {
        server.off('error', reject);
        resolve();
      });
    });
    this.server = server;
    this.listeningPort = (server.address() as AddressInfo).port;
    return this.listeningPort;
  }

  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    for (const client of this.wss.clients) client.terminate();
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      for (const s of this.sockets) s.destroy();
      this.sockets.clear();
    });
    this.wss.close();
  }

  private authorized(req: IncomingMessage): boolean {
    if (!this.opts.clientCaPem) return true;
    return (req.socket as TLSSocket).authorized === true;
  }

  private pod(namespace: string, name: string): KubeObject | undefined {
    return this.runtime.pod(namespace, name);
  }

  private async handleRequest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'https://kubelet');
    const path = url.pathname;
    if (path === '/healthz' || path === '/healthz/') {
      res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
      res.end('ok');
      return;
    }
    if (!this.authorized(req)) throw new HttpError(401, 'Unauthorized');
    if (path.startsWith('/containerLogs/')) return this.serveLogs(req, res, url);
    if (parseStreamRoute(path)) throw new HttpError(400, 'Upgrade request required');
    throw new HttpError(404, '404 page not found');
  }

  private serveLogs(req: IncomingMessage, res: ServerResponse, url: URL): void {
    if (req.method !== 'GET') throw new HttpError(405, 'Method Not Allowed');
    const [, namespace, name, container] = url.pathname.split('/').filter(Boolean).map(decodeURIComponent);
    if (!name) throw new HttpError(400, '{"message": "Missing podID."}');
    if (!container) throw new HttpError(400, '{"message": "Missing container name."}');
    if (!namespace) throw new HttpError(400, '{"message": "Missing podNamespace."}');
    const query = parseLogQuery(url.searchParams);
    if (typeof query === 'string') throw new HttpError(422, '{"message": "Invalid request."}');
    const pod = this.pod(namespace, name);
    if (!pod) throw new HttpError(404, `pod ${JSON.stringify(name)} does not exist`);
    const spec = pod.spec ?? {};
    const inSpec = [...(spec.containers ?? []), ...(spec.initContainers ?? [])].some(
      (c: { name?: string }) => c?.name === container,
    );
    if (!inSpec)
      throw new HttpError(404, `container ${JSON.stringify(container)} not found in pod ${JSON.stringify(name)}`);
    const problem = checkContainerLogStatus(pod, container, query.previous);
    if (problem) throw new HttpError(400, problem);
    const source = this.runtime.containerLog(namespace, name, container, query.previous);
    res.writeHead(200, { 'content-type': 'text/plain', 'transfer-encoding': 'chunked' });
    res.flushHeaders();
    const stop = streamLog(
      source,
      query,
      this.clock.now(),
      (chunk) => res.write(chunk),
      () => res.end(),
    );
    res.on('close', stop);
  }

  private handleUpgrade(req: IncomingMessage, socket: Socket, head: Buffer): void {
    const url = new URL(req.url ?? '/', 'https://kubelet');
    if (!this.authorized(req)) throw new HttpError(401, 'Unauthorized');
    const route = parseStreamRoute(url.pathname);
    if (!route) throw new HttpError(404, '404 page not found');
    const upgrade = String(req.headers.upgrade ?? '').toLowerCase();
    const websocket = upgrade === 'websocket';
    const spdy = upgrade === 'spdy/3.1';
    if (!websocket && !spdy) throw new HttpError(400, `unsupported upgrade "${req.headers.upgrade ?? ''}"`);
    const pod = this.pod(route.namespace, route.pod);
    if (!pod) throw new HttpError(404, 'pod does not exist');
    if (route.uid && pod.metadata.uid !== route.uid) throw new HttpError(404, 'pod not found');
    if (route.kind === 'portForward') {
      this.portForward(req, socket, head, pod, url, websocket);
      return;
    }

    const opts = parseStreamOptions(url.searchParams);
    if (typeof opts === 'string') throw new HttpError(400, opts);
    const container = route.container ?? '';
    if (!findContainer(pod, container) || !isRunning(pod, container)) {
      throw new HttpError(500, `container not found (${JSON.stringify(container)})`);
    }
    let body: SessionBody;
    if (route.kind === 'exec') {
      const command = url.searchParams.getAll('command');
      if (command.length === 0) throw new HttpError(400, 'you must specify at least one command for the container');
      body = execBody(this.runtime, this.opts.objects, pod, container, command, this.opts.dns);
    } else body = attachBody(this.runtime, pod, container);

    if (websocket) {
      const protocol = selectProtocol(offeredProtocols(req), EXEC_PROTOCOLS);
      if (!protocol) throw new HttpError(400, unableToNegotiate(offeredProtocols(req), EXEC_PROTOCOLS));
      this.acceptWebSocket(req, socket, head, protocol.name, (ws) => {
        serveWebSocketSession(ws, protocol, opts, body).catch(() => ws.terminate());
      });
      return;
    }
    const offered = spdyProtocols(req);
    const protocol =
      offered.length === 0
        ? SPDY_EXEC_PROTOCOLS.find((p) => p.version === 1)
        : SPDY_EXEC_PROTOCOLS.find((p) => offered.includes(p.name));
    if (!protocol) throw new HttpError(403, unableToNegotiate(offered, SPDY_EXEC_PROTOCOLS));
    switchToSpdy(socket, head, protocol.name, (spdySession) => {
      const exec = new SpdyExecSession(protocol.version, opts, body, () => spdySession.close());
      socket.once('close', () => exec.terminate());
      return (stream) => exec.stream(stream);
    });
  }

  private portForward(
    req: IncomingMessage,
    socket: Socket,
    head: Buffer,
    pod: KubeObject,
    url: URL,
    websocket: boolean,
  ): void {
    if (!websocket) {
      const offered = spdyProtocols(req);
      if (offered.length > 0 && !offered.includes(PORT_FORWARD_PROTOCOL)) {
        throw new HttpError(403, unableToNegotiate(offered, [{ name: PORT_FORWARD_PROTOCOL }]));
      }
      switchToSpdy(socket, head, PORT_FORWARD_PROTOCOL, () => {
        const pf = new SpdyPortForward(pod);
        return (stream) => pf.stream(stream);
      });
      return;
    }
    const offered = offeredProtocols(req);
    if (offered.includes(PORT_FORWARD_TUNNEL_PROTOCOL)) {
      this.acceptWebSocket(req, socket, head, PORT_FORWARD_TUNNEL_PROTOCOL, (ws) => tunnelSpdy(ws, pod));
      return;
    }
    const protocol =
      offered.length === 0 ? WS_PORT_FORWARD_PROTOCOLS[0] : selectProtocol(offered, WS_PORT_FORWARD_PROTOCOLS);
    if (!protocol) throw new HttpError(400, unableToNegotiate(offered, WS_PORT_FORWARD_PROTOCOLS));
    const ports = parsePorts(url.searchParams.getAll('ports'));
    if (typeof ports === 'string') throw new HttpError(400, ports);
    this.acceptWebSocket(req, socket, head, offered.length > 0 ? protocol.name : undefined, (ws) =>
      channelPortForward(ws, protocol, pod, ports),
    );
  }
}

function offeredProtocols(req: IncomingMessage): string[] {
  const header = req.headers['sec-websocket-protocol'];
  const text = Array.isArray(header) ? header.join(',') : (header ?? '');
  return text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

function spdyProtocols(req: IncomingMessage): string[] {
  const out: string[] = [];
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    if ((req.rawHeaders[i] as string).toLowerCase() === 'x-stream-protocol-version') {
      out.push(...(req.rawHeaders[i + 1] as string).split(',').map((s) => s.trim()));
    }
  }
  return out.filter(Boolean);
}

function unableToNegotiate(offered: string[], supported: readonly { name: string }[]): string {
  return (
    `unable to upgrade: unable to negotiate protocol: client supports [${offered.join(' ')}], ` +
    `server supports [${supported.map((p) => p.name).join(' ')}]`
  );
}

function writeRawError(socket: Socket, code: number, message: string): void {
  if (socket.destroyed) return;
  const body = Buffer.from(message, 'utf8');
  socket.end(
    `HTTP/1.1 ${code} ${STATUS_TEXT[code] ?? 'Error'}\r\n` +
      'Content-Type: text/plain; charset=utf-8\r\n' +
      'X-Content-Type-Options: nosniff\r\n' +
      `Content-Length: ${body.length}\r\n` +
      'Connection: close\r\n\r\n' +
      message,
  );
}

/** Answers a SPDY/3.1 upgrade and runs a SPDY session on the connection. */
function switchToSpdy(
  socket: Socket,
  head: Buffer,
  protocol: string,
  setup: (session: SpdySession) => (stream: SpdyStream) => void,
): SpdySession {
  socket.write(
    'HTTP/1.1 101 Switching Protocols\r\n' +
      'Connection: Upgrade\r\n' +
      'Upgrade: SPDY/3.1\r\n' +
      `X-Stream-Protocol-Version: ${protocol}\r\n\r\n`,
  );
  let onStream: (stream: SpdyStream) => void = () => {};
  const session = new SpdySession(
    {
      send: (bytes) => {
        if (!socket.destroyed) socket.write(bytes);
      },
      close: () => socket.end(),
    },
    (stream) => onStream(stream),
  );
  onStream = setup(session);
  socket.on('data', (d: Buffer) => session.receive(d));
  socket.on('close', () => session.terminated());
  socket.on('end', () => session.terminated());
  if (head.length > 0) session.receive(head);
  return session;
}

/** SPDY port-forward carried in WebSocket binary messages (kubectl 1.31+). */
function tunnelSpdy(ws: WebSocket, pod: KubeObject): void {
  const pf = new SpdyPortForward(pod);
  const session = new SpdySession(
    {
      send: (bytes) => {
        if (ws.readyState === ws.OPEN) ws.send(bytes, { binary: true });
      },
      close: () => {
        if (ws.readyState === ws.OPEN) ws.close(1000);
      },
    },
    (stream) => pf.stream(stream),
  );
  ws.on('message', (raw: Buffer | ArrayBuffer | Buffer[]) => {
    session.receive(Array.isArray(raw) ? Buffer.concat(raw) : Buffer.from(raw as ArrayBuffer));
  });
  ws.on('close', () => session.terminated());
  ws.on('error', () => {});
}

/**
 * The WebSocket channel port-forward: channel 2i carries port i's data and 2i+1 its errors, each opened by the
 * port number in two little-endian bytes. One WebSocket is one connection per port.
 */
function channelPortForward(ws: WebSocket, protocol: ChannelProtocol, pod: KubeObject, ports: number[]): void {
  const send = (channel: number, data: Buffer) => {
    if (ws.readyState !== ws.OPEN) return;
    if (protocol.base64) ws.send(String.fromCharCode(48 + channel) + data.toString('base64'));
    else ws.send(Buffer.concat([Buffer.from([channel]), data]), { binary: true });
  };
  const responders: (Responder | undefined)[] = [];
  let open = ports.length;
  const closeOne = () => {
    open--;
    if (open <= 0 && ws.readyState === ws.OPEN) ws.close(1000);
  };
  ports.forEach((port, i) => {
    const portBytes = Buffer.alloc(2);
    portBytes.writeUInt16LE(port);
    send(2 * i, portBytes);
    send(2 * i + 1, portBytes);
    if (!accepts(pod, port)) {
      send(2 * i + 1, Buffer.from(refusedMessage(pod, port), 'utf8'));
      responders.push(undefined);
      closeOne();
      return;
    }
    responders.push(new Responder(pod, port, { write: (d) => send(2 * i, d), end: closeOne }));
  });
  ws.on('message', (raw: Buffer | ArrayBuffer | Buffer[], isBinary: boolean) => {
    const buf = Array.isArray(raw) ? Buffer.concat(raw) : Buffer.from(raw as ArrayBuffer);
    if (buf.length === 0) return;
    const channel = protocol.base64 || !isBinary ? (buf[0] as number) - 48 : (buf[0] as number);
    const data = protocol.base64 ? Buffer.from(buf.subarray(1).toString('latin1'), 'base64') : buf.subarray(1);
    if (channel % 2 !== 0) return;
    responders[channel / 2]?.receive(data);
  });
  ws.on('close', () => {
    for (const r of responders) r?.clientEnded();
  });
  ws.on('error', () => {});
}

/** A self-signed serving certificate for 127.0.0.1 and localhost, as a kubelet without --tls-cert-file makes. */
export async function selfSignedKubeletCertificate(hostname = 'localhost'): Promise<CertificateAndKey> {
  const now = Date.now();
  const notBefore = new Date(now - 60_000);
  const notAfter = new Date(now + 365 * 86_400_000);
  const ca = await createCertificateAuthority({
    commonName: `${hostname}-ca@${Math.floor(now / 1000)}`,
    notBefore,
    notAfter,
  });
  return signCertificate(ca, {
    commonName: `${hostname}@${Math.floor(now / 1000)}`,
    notBefore,
    notAfter,
    extendedKeyUsages: ['serverAuth'],
    altNames: { dnsNames: ['localhost', hostname], ips: ['127.0.0.1'] },
  });
}
