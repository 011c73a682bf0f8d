/**
 * kube-scheduler's secure port (--secure-port, 10259 upstream): /healthz, /livez, /readyz (with ?verbose), /metrics
 * (Prometheus text), and — beyond upstream — GET /debug/verdicts/<namespace>/<pod>, the pod's last scheduling
 * attempt as JSON. HTTPS with the given certificate or a self-signed one. Unlike upstream, requests are not
 * authenticated: bind it to loopback where that matters.
 */
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { selfSignedServingCert } from './serving-cert.js';
import type { PodVerdicts } from './verdicts.js';

export interface SecureServingOptions {
  /** --bind-address (default 0.0.0.0 as upstream; use 127.0.0.1 for loopback only). */
  bindAddress?: string;
  /** --secure-port; 0 picks a free port. */
  port: number;
  certPem?: string;
  keyPem?: string;
}

/** A named health check: undefined when healthy, else what is wrong. */
export type HealthCheck = { name: string; check: () => string | undefined };

export interface SchedulerServerHandlers {
  livez: HealthCheck[];
  readyz: HealthCheck[];
  metrics(): Promise<{ contentType: string; body: string }>;
  verdicts(namespace: string, name: string): PodVerdicts | undefined;
}

export class SchedulerServer {
  private server: Server | undefined;
  private address: AddressInfo | undefined;

  constructor(
    private readonly opts: SecureServingOptions,
    private readonly handlers: SchedulerServerHandlers,
  ) {}

  /** https://host:port once listening. */
  get url(): string | undefined {
    if (!this.address) return undefined;
    const host = this.address.family === 'IPv6' ? `[${this.address.address}]` : this.address.address;
    return `https://${host === '0.0.0.0' ? '127.0.0.1' : host}:${this.address.port}`;
  }

  get port(): number | undefined {
    return this.address?.port;
  }

  async start(): Promise<void> {
    let { certPem, keyPem } = this.opts;
    if (!certPem || !keyPem) {
      const generated = await selfSignedServingCert(this.opts.bindAddress ? [this.opts.bindAddress] : []);
      certPem = generated.certPem;
      keyPem = generated.keyPem;
    }
    const server = createServer({ cert: certPem, key: keyPem }, (req, res) => {
      void this.handle(req.method ?? 'GET', req.url ?? '/')
        .then(({ status, type, body }) => {
          res.writeHead(status, { 'content-type': type, 'cache-control': 'no-cache, private' });
          res.end(body);
        })
        .catch((err) => {
          res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' });
          res.end(`internal error: ${String(err)}\n`);
        });
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.opts.port, this.opts.bindAddress ?? '0.0.0.0', () => {
        server.off('error', reject);
        resolve();
      });
    });
    this.server = server;
    this.address = server.address() as AddressInfo;
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** Routes one request (exported for tests without TLS). */
  async handle(method: string, rawUrl: string): Promise<{ status: number; type: string; body: string }> {
    const url = new URL(rawUrl, 'https://localhost');
    const text = (status: number, body: string) => ({ status, type: 'text/plain; charset=utf-8', body });
    if (method !== 'GET' && method !== 'HEAD') return text(405, 'method not allowed\n');
    const path = url.pathname.replace(/\/+$/, '') || '/';
    if (path === '/healthz' || path === '/livez' || path === '/readyz') {
      const checks = path === '/readyz' ? [...this.handlers.livez, ...this.handlers.readyz] : this.handlers.livez;
      return this.health(checks, url.searchParams.has('verbose'));
    }
    if (path === '/metrics') {
      const m = await this.handlers.metrics();
      return { status: 200, type: m.contentType, body: m.body };
    }
    const verdicts = /^\/debug\/verdicts\/([^/]+)\/([^/]+)$/.exec(path);
    if (verdicts) {
      const namespace = decodeURIComponent(verdicts[1] as string);
      const name = decodeURIComponent(verdicts[2] as string);
      const v = this.handlers.verdicts(namespace, name);
      if (!v) {
        return {
          status: 404,
          type: 'application/json',
          body: `${JSON.stringify({ error: `no scheduling attempt recorded for pod ${namespace}/${name}` })}\n`,
        };
      }
      return { status: 200, type: 'application/json', body: `${JSON.stringify(v, null, 2)}\n` };
    }
    return text(404, '404 page not found\n');
  }

  private health(checks: HealthCheck[], verbose: boolean): { status: number; type: string; body: string } {
    const lines: string[] = [];
    let failed = false;
    for (const c of [{ name: 'ping', check: () => undefined }, ...checks]) {
      const problem = c.check();
      if (problem) {
        failed = true;
        lines.push(`[-]${c.name} failed: ${problem}`);
      } else {
        lines.push(`[+]${c.name} ok`);
      }
    }
    const type = 'text/plain; charset=utf-8';
    if (failed) return { status: 500, type, body: `${lines.join('\n')}\nhealthz check failed\n` };
    if (verbose) return { status: 200, type, body: `${lines.join('\n')}\nhealthz check passed\n` };
    return { status: 200, type, body: 'ok' };
  }
}
