/**
 * kube-scheduler's secure port (--secure-port, 10259 upstream): /healthz, /livez, /readyz (with ?verbose), /metrics
 * (Prometheus text), and — beyond upstream — GET /debug/verdicts/<namespace>/<pod>, the pod's last scheduling
 * attempt as JSON. The shared component server (src/util/component-server.ts) serves it, with the given certificate
 * or a self-signed one. Unlike upstream, requests are not authenticated: bind it to loopback where that matters.
 */
import type { Registry } from 'prom-client';
import { type ComponentServer, type HealthCheck, startComponentServer } from '../util/component-server.js';
import type { PodVerdicts } from './verdicts.js';

export interface SecureServingOptions {
  /** --bind-address (default 0.0.0.0 as upstream; use 127.0.0.1 for loopback only). */
  bindAddress?: string;
  /** --secure-port; 0 picks a free port. */
  port: number;
  certPem?: string;
  keyPem?: string;
}

export interface SchedulerServerHandlers {
  livez: Record<string, HealthCheck>;
  readyz: Record<string, HealthCheck>;
  metrics: Registry;
  verdicts(namespace: string, name: string): PodVerdicts | undefined;
}

export class SchedulerServer {
  private server: ComponentServer | undefined;

  constructor(
    private readonly opts: SecureServingOptions,
    private readonly handlers: SchedulerServerHandlers,
  ) {}

  /** https://host:port once listening. */
  get url(): string | undefined {
    return this.server?.url;
  }

  get port(): number | undefined {
    return this.server?.port;
  }

  async start(): Promise<void> {
    const { certPem, keyPem } = this.opts;
    this.server = await startComponentServer({
      name: 'kube-scheduler',
      bindAddress: this.opts.bindAddress ?? '0.0.0.0',
      port: this.opts.port,
      ...(certPem && keyPem ? { tls: { certPem, keyPem } } : {}),
      checks: this.handlers.livez,
      readyChecks: this.handlers.readyz,
      metrics: this.handlers.metrics,
      routes: {
        '/debug/verdicts': (_req, res, url) => {
          const m = /^\/debug\/verdicts\/([^/]+)\/([^/]+)\/?$/.exec(url.pathname);
          const namespace = decodeURIComponent(m?.[1] ?? '');
          const name = decodeURIComponent(m?.[2] ?? '');
          const v = m ? this.handlers.verdicts(namespace, name) : undefined;
          res.writeHead(v ? 200 : 404, { 'content-type': 'application/json', 'cache-control': 'no-cache, private' });
          res.end(
            `${JSON.stringify(v ?? { error: `no scheduling attempt recorded for pod ${namespace}/${name}` }, null, v ? 2 : 0)}\n`,
          );
        },
      },
    });
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    await server?.close();
  }
}
