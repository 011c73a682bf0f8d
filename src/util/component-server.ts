/**
 * The secure port every control-plane component serves besides the apiserver (kube-controller-manager 10257,
 * kube-scheduler 10259): `/healthz`, `/livez`, `/readyz` (with `?verbose` and per-check paths, as upstream's
 * healthz package answers), `/metrics` in Prometheus text, and any extra routes the component adds. HTTPS with a
 * certificate given, or a self-signed one made at start (upstream does the same when no --tls-cert-file is given).
 * Health and metrics are readable without credentials here; upstream asks the apiserver to authorize /metrics.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';
import { type CertificateAndKey, createCertificateAuthority, signCertificate } from './certificates.js';

/** A health check: resolves (or returns) true when healthy, or a string saying what is wrong. */
export type HealthCheck = () => boolean | string | Promise<boolean | string>;

export interface ComponentServerOptions {
  /** The component's name, for the self-signed certificate. */
  name: string;
  bindAddress?: string;
  /** 0 picks a free port. */
  port: number;
  tls?: CertificateAndKey;
  checks?: Record<string, HealthCheck>;
  /** Checks only /readyz runs, besides `checks` (e.g. caches synced). */
  readyChecks?: Record<string, HealthCheck>;
  metrics?: Registry;
  /** Extra GET routes by path prefix; the handler answers the request. */
  routes?: Record<string, (req: IncomingMessage, res: ServerResponse, url: URL) => void | Promise<void>>;
}

export interface ComponentServer {
  port: number;
  /** https://<address>:<port> (127.0.0.1 when bound to all addresses). */
  url: string;
  close(): Promise<void>;
}

/** A self-signed serving certificate for localhost and 127.0.0.1, valid a year. */
export async function selfSignedServing(name: string): Promise<CertificateAndKey> {
  const now = Date.now();
  const ca = await createCertificateAuthority({
    commonName: `${name}-ca@${Math.floor(now / 1000)}`,
    notBefore: new Date(now - 60_000),
    notAfter: new Date(now + 365 * 86_400_000),
  });
  return signCertificate(ca, {
    commonName: `${name}@${Math.floor(now / 1000)}`,
    notBefore: new Date(now - 60_000),
    notAfter: new Date(now + 365 * 86_400_000),
    extendedKeyUsages: ['serverAuth'],
    altNames: { dnsNames: ['localhost'], ips: ['127.0.0.1'] },
  });
}

export async function startComponentServer(opts: ComponentServerOptions): Promise<ComponentServer> {
  const tls = opts.tls ?? (await selfSignedServing(opts.name));
  const checks = { ping: () => true, ...opts.checks } as Record<string, HealthCheck>;
  const server: Server = createServer({ cert: tls.certPem, key: tls.keyPem }, (req, res) => {
    handle(req, res).catch((err) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' });
      res.end(`internal error: ${String(err)}\n`);
    });
  });
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'https://component');
    const path = url.pathname;
    const health = /^\/(healthz|livez|readyz)(?:\/(.+))?$/.exec(path);
    if (health) {
      const all = health[1] === 'readyz' ? { ...checks, ...opts.readyChecks } : checks;
      return answerHealth(res, url, all as Record<string, HealthCheck>, health[2]);
    }
    if (path === '/metrics' && opts.metrics) {
      res.writeHead(200, { 'content-type': opts.metrics.contentType });
      res.end(await opts.metrics.metrics());
      return;
    }
    for (const [prefix, route] of Object.entries(opts.routes ?? {})) {
      if (path === prefix || path.startsWith(prefix.endsWith('/') ? prefix : `${prefix}/`)) return route(req, res, url);
    }
    res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' });
    res.end('404 page not found\n');
  };
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.bindAddress ?? '127.0.0.1', () => resolve());
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    port: address.port,
    url: `https://${host === '0.0.0.0' || host === '[::]' ? '127.0.0.1' : host}:${address.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Upstream's healthz answers: `ok`, or `[+]name ok` / `[-]name failed: reason` lines with ?verbose or on failure. */
async function answerHealth(
  res: ServerResponse,
  url: URL,
  checks: Record<string, HealthCheck>,
  only: string | undefined,
): Promise<void> {
  const text = { 'content-type': 'text/plain; charset=utf-8', 'x-content-type-options': 'nosniff' };
  if (only !== undefined) {
    const check = checks[only];
    if (!check) {
      res.writeHead(404, text);
      res.end('404 page not found\n');
      return;
    }
    const result = await check();
    res.writeHead(result === true ? 200 : 500, text);
    res.end(result === true ? 'ok' : `internal server error: ${result === false ? 'failed' : result}\n`);
    return;
  }
  const results = await Promise.all(
    Object.entries(checks).map(async ([name, check]) => [name, await check()] as const),
  );
  const failed = results.some(([, r]) => r !== true);
  if (!failed && !url.searchParams.has('verbose')) {
    res.writeHead(200, text);
    res.end('ok');
    return;
  }
  const lines = results.map(([name, r]) => (r === true ? `[+]${name} ok` : `[-]${name} failed: reason withheld`));
  res.writeHead(failed ? 500 : 200, text);
  res.end(`${lines.join('\n')}\n${failed ? 'healthz check failed' : 'healthz check passed'}\n`);
}
