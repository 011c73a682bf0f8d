// A small HTTP/2 client for the benchmarks: one TLS session, many concurrent streams, client-certificate or bearer
// token auth.
import { type ClientHttp2Session, connect } from 'node:http2';

export interface Credentials {
  ca: Buffer;
  cert?: Buffer;
  key?: Buffer;
  /** A bearer token sent on every request (instead of, or besides, the client certificate). */
  token?: string;
}

export function credentialsFromKubeconfig(config: {
  clusters: Array<{ cluster: Record<string, string> }>;
  users: Array<{ user: Record<string, string> }>;
}): Credentials {
  const b = (s: string | undefined) => Buffer.from(s ?? '', 'base64');
  return {
    ca: b(config.clusters[0]?.cluster['certificate-authority-data']),
    cert: b(config.users[0]?.user['client-certificate-data']),
    key: b(config.users[0]?.user['client-key-data']),
  };
}

export class Http2Client {
  private readonly session: ClientHttp2Session;
  private readonly auth: Record<string, string>;

  /** windows 'node': Node's default flow-control windows instead of Go's (for comparison). */
  constructor(url: string, creds: Credentials, windows: 'go' | 'node' = 'go') {
    // The flow-control windows of Go's HTTP/2 client, which kubectl and every client-go program use: 4 MiB per
    // stream, 1 GiB for the connection. With Node's default of 64 KiB, an 18 MB LIST needs some 560 window
    // updates, each a round trip through both processes' event loops.
    this.session = connect(url, {
      ca: creds.ca,
      ...(creds.cert && creds.key ? { cert: creds.cert, key: creds.key } : {}),
      ...(windows === 'go' ? { settings: { initialWindowSize: 4 << 20 } } : {}),
    });
    if (windows === 'go') this.session.once('connect', (session) => session.setLocalWindowSize(1 << 30));
    this.auth = creds.token ? { authorization: `Bearer ${creds.token}` } : {};
    this.session.on('error', () => {});
  }

  request(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<{ status: number; text: string }> {
    return new Promise((resolve, reject) => {
      const payload = body === undefined ? undefined : JSON.stringify(body);
      const stream = this.session.request({
        ':method': method,
        ':path': path,
        ...(payload ? { 'content-type': 'application/json' } : {}),
        ...this.auth,
        ...headers,
      });
      let status = 0;
      const chunks: Buffer[] = [];
      stream.on('response', (h) => {
        status = Number(h[':status']);
      });
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => resolve({ status, text: Buffer.concat(chunks).toString('utf8') }));
      stream.on('error', reject);
      if (payload) stream.end(payload);
      else stream.end();
    });
  }

  /** Opens a watch; onLine is called with each event line. Returns a function that closes it. */
  watch(path: string, onLine: (line: string) => void): () => void {
    const stream = this.session.request({ ':method': 'GET', ':path': path, ...this.auth });
    let buffer = '';
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => {
      buffer += chunk;
      for (let nl = buffer.indexOf('\n'); nl >= 0; nl = buffer.indexOf('\n')) {
        onLine(buffer.slice(0, nl));
        buffer = buffer.slice(nl + 1);
      }
    });
    stream.on('error', () => {});
    stream.end();
    return () => stream.close();
  }

  close(): void {
    this.session.close();
  }
}
