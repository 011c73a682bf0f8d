/**
 * Calling a webhook: where (its `url`, or its `service` resolved to a ready address of the Service's Endpoints or
 * EndpointSlices, with TLS server name `<service>.<namespace>.svc`), checked against the webhook's caBundle (the
 * system roots when it has none), with the webhook's timeout (also sent as `?timeout=<n>s`, as upstream does).
 * wheelhouse sends no traffic off the machine: only loopback addresses (127.0.0.0/8, ::1, localhost) are dialled;
 * any other target is a call failure with a message saying so. Failures read as Go's HTTP client words them
 * (`Post "https://…": dial tcp …: connect: connection refused`, `context deadline exceeded`), since upstream
 * puts that text in the error the client sees.
 */
import { request } from 'node:https';
import { isIP } from 'node:net';
import { rootCertificates } from 'node:tls';
import type { APIRegistry } from '../../api-registry.js';
import { goNetworkError, hostPort } from '../../go-net-errors.js';
import type { KubeObject } from '../../registry/object.js';
import type { ServiceReference, Webhook } from './configuration.js';

/** Where one call goes. */
export interface WebhookTarget {
  /** The URL as upstream prints it in errors (with `?timeout=`). */
  url: string;
  host: string;
  port: number;
  path: string;
  /** The TLS server name (SNI and certificate check). */
  servername: string;
}

/**
 * Why a target could not be found or may not be dialled; the text goes into the call failure. A Service that cannot
 * be resolved fails at dial time upstream, so its error names the URL the call was for.
 */
export class TargetError extends Error {
  constructor(
    message: string,
    readonly url?: string,
  ) {
    super(message);
  }
}

/** A target that is not on this machine: refused, since nothing here may send traffic off it. */
export class LoopbackOnlyError extends TargetError {}

function isLoopback(host: string): boolean {
  if (host === 'localhost') return true;
  const kind = isIP(host);
  if (kind === 4) return host.startsWith('127.');
  if (kind === 6) return host === '::1' || host === '0:0:0:0:0:0:0:1';
  return false;
}

function refuseNonLoopback(host: string): void {
  if (!isLoopback(host)) {
    throw new LoopbackOnlyError(
      `wheelhouse dials only loopback addresses (127.0.0.0/8, ::1, localhost); ${JSON.stringify(host)} is not one`,
    );
  }
}

function withTimeout(path: string, timeoutSeconds: number): string {
  return `${path}${path.includes('?') ? '&' : '?'}timeout=${timeoutSeconds}s`;
}

function urlTarget(raw: string, timeoutSeconds: number): WebhookTarget {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw new TargetError(`invalid webhook URL ${JSON.stringify(raw)}`);
  }
  const host = u.hostname.replace(/^\[|\]$/g, '');
  refuseNonLoopback(host);
  const port = u.port ? Number(u.port) : 443;
  const path = withTimeout(u.pathname || '/', timeoutSeconds);
  return { url: `https://${hostPort(host, port)}${path}`, host, port, path, servername: host };
}

const rec = (v: unknown): Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
const recs = (v: unknown): Record<string, unknown>[] => (Array.isArray(v) ? v.map(rec) : []);

async function cachedOrLive(
  registry: APIRegistry,
  group: string,
  resource: string,
  namespace: string,
  name: string,
): Promise<KubeObject | undefined> {
  const served = registry.lookup(group, 'v1', resource);
  if (!served) return undefined;
  const store = served.store;
  const cached = await store.cacher.get(store.key(namespace, name));
  return cached ?? (await store.get(namespace, name).catch(() => undefined));
}

/** An address and port of the Service's endpoints serving the named service port ('' for an unnamed one). */
async function endpointAddress(
  registry: APIRegistry,
  ref: ServiceReference,
  portName: string,
): Promise<{ ip: string; port: number } | undefined> {
  const endpoints = await cachedOrLive(registry, '', 'endpoints', ref.namespace, ref.name);
  for (const subset of recs(endpoints?.subsets)) {
    const port = recs(subset.ports).find((p) => (typeof p.name === 'string' ? p.name : '') === portName);
    const address = recs(subset.addresses).find((a) => typeof a.ip === 'string');
    if (port && typeof port.port === 'number' && address) return { ip: address.ip as string, port: port.port };
  }
  const slices = registry.lookup('discovery.k8s.io', 'v1', 'endpointslices');
  if (!slices) return undefined;
  const { items } = await slices.store.cacher.list(`${slices.def.storagePrefix}/${ref.namespace}/`, (o) => {
    return o.metadata.labels?.['kubernetes.io/service-name'] === ref.name;
  });
  for (const slice of items) {
    const port = recs(slice.ports).find((p) => (typeof p.name === 'string' ? p.name : '') === portName);
    if (!port || typeof port.port !== 'number') continue;
    for (const ep of recs(slice.endpoints)) {
      if (rec(ep.conditions).ready === false) continue;
      const ip = Array.isArray(ep.addresses) ? ep.addresses.find((a) => typeof a === 'string') : undefined;
      if (ip) return { ip, port: port.port };
    }
  }
  return undefined;
}

/** A service reference resolved to one of its endpoints, as upstream's endpoint routing resolves it. */
async function serviceTarget(registry: APIRegistry, ref: ServiceReference, timeoutSeconds: number) {
  const path = withTimeout(ref.path || '/', timeoutSeconds);
  const servername = `${ref.name}.${ref.namespace}.svc`;
  const url = `https://${servername}:${ref.port}${path}`;
  const service = await cachedOrLive(registry, '', 'services', ref.namespace, ref.name);
  if (!service) throw new TargetError(`service ${JSON.stringify(ref.name)} not found`, url);
  const spec = rec(service.spec);
  const type = typeof spec.type === 'string' ? spec.type : 'ClusterIP';
  if (!['ClusterIP', 'NodePort', 'LoadBalancer'].includes(type)) {
    throw new TargetError(`unsupported service type ${JSON.stringify(type)}`, url);
  }
  const servicePort = recs(spec.ports).find((p) => p.port === ref.port);
  if (!servicePort) {
    throw new TargetError(`no service port ${ref.port} found for service ${JSON.stringify(ref.name)}`, url);
  }
  const portName = typeof servicePort.name === 'string' ? servicePort.name : '';
  const address = await endpointAddress(registry, ref, portName);
  if (!address) throw new TargetError(`no endpoints available for service ${JSON.stringify(ref.name)}`, url);
  refuseNonLoopback(address.ip);
  return {
    url,
    host: address.ip,
    port: address.port,
    path,
    servername,
  };
}

export async function resolveTarget(registry: APIRegistry, webhook: Webhook): Promise<WebhookTarget> {
  if (webhook.url !== undefined) return urlTarget(webhook.url, webhook.timeoutSeconds);
  if (webhook.service) return serviceTarget(registry, webhook.service, webhook.timeoutSeconds);
  throw new TargetError('the webhook has neither url nor service');
}

/** The HTTP answer of a webhook. */
export interface WebhookReply {
  statusCode: number;
  body: string;
}

/** Why a POST failed, in Go's words (`Post "<url>": …`). */
export class PostError extends Error {}

const MAX_RESPONSE_BYTES = 3 * 1024 * 1024;

export function postReview(
  target: WebhookTarget,
  caBundle: string,
  body: unknown,
  timeoutSeconds: number,
): Promise<WebhookReply> {
  const payload = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    let settled = false;
    const fail = (text: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      reject(new PostError(`Post ${JSON.stringify(target.url)}: ${text}`));
    };
    const req = request(
      {
        host: target.host,
        port: target.port,
        path: target.path,
        method: 'POST',
        servername: isIP(target.servername) ? undefined : target.servername,
        ca: caBundle ? caBundle : [...rootCertificates],
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, */*',
          'content-length': String(Buffer.byteLength(payload)),
        },
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > MAX_RESPONSE_BYTES) {
            req.destroy();
            fail('response body too large');
            return;
          }
          chunks.push(chunk);
        });
        res.on('end', () => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          resolve({ statusCode: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') });
        });
        res.on('error', (err) => fail(goNetworkError(err, target)));
      },
    );
    const timer = setTimeout(() => {
      fail('context deadline exceeded');
      req.destroy();
    }, timeoutSeconds * 1000);
    req.on('error', (err: NodeJS.ErrnoException) => fail(goNetworkError(err, target)));
    req.end(payload);
  });
}
