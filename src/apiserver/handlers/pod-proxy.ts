/**
 * The pod subresources the apiserver serves by talking to the pod's kubelet (upstream's LogREST, ExecREST,
 * AttachREST and PortForwardREST): `pods/log` is a GET proxied to `/containerLogs/…` and streamed back;
 * `pods/exec`, `pods/attach` and `pods/portforward` are connection upgrades (WebSocket or SPDY) passed through to
 * `/exec/…`, `/attach/…` and `/portForward/…` once the request has been authenticated, authorized and admitted
 * (operation CONNECT with the request's options object, `connect-options.ts`).
 *
 * The kubelet is found as upstream does: the pod's spec.nodeName, that Node's address (InternalIP, then
 * ExternalIP, then Hostname — kubeadm's --kubelet-preferred-address-types) and
 * status.daemonEndpoints.kubeletEndpoint.Port (10250 when unset). The apiserver does not verify the kubelet's
 * serving certificate, as upstream without --kubelet-certificate-authority.
 */
import { request as httpsRequest } from 'node:https';
import type { Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { StatusError, statusErrors } from '../../api/status-error.js';
import type { APIRegistry } from '../api-registry.js';
import type { HttpRequest, RequestContext } from '../context.js';
import type { KubeObject } from '../registry/object.js';
import type { RequestInfo } from '../request-info.js';
import {
  admitConnect,
  type ConnectOptions,
  connectOptionsOf,
  kubeletStreamQuery,
  optionsContainer,
} from './connect-options.js';

/** The subresources of pods served through the kubelet, with the verbs discovery lists for them. */
export const POD_CONNECT_SUBRESOURCES: ReadonlySet<string> = new Set(['log', 'exec', 'attach', 'portforward']);

/** --kubelet-preferred-address-types as kubeadm sets it. */
const PREFERRED_ADDRESS_TYPES = ['InternalIP', 'ExternalIP', 'Hostname'];
const DEFAULT_KUBELET_PORT = 10250;

export function isPodConnectRequest(info: RequestInfo): boolean {
  return (
    info.isResourceRequest &&
    info.apiGroup === '' &&
    info.apiVersion === 'v1' &&
    info.resource === 'pods' &&
    !!info.namespace &&
    !!info.name &&
    POD_CONNECT_SUBRESOURCES.has(info.subresource)
  );
}

/** An HTTP/1.1 upgrade request's connection, handed over by the server's 'upgrade' event. */
interface UpgradeConnection {
  socket: Socket;
  head: Buffer;
}

const upgrades = new WeakMap<HttpRequest, UpgradeConnection>();

/** Records the raw connection of an upgrade request, so a handler down the chain can take it over. */
export function registerUpgrade(req: HttpRequest, socket: Socket, head: Buffer): void {
  upgrades.set(req, { socket, head });
}

interface KubeletLocation {
  host: string;
  port: number;
  path: string;
  query: URLSearchParams;
}

// biome-ignore lint/suspicious/noExplicitAny: pod and node fields are read as plain JSON
type Json = any;

const LOG_RESOURCE = { group: '', resource: 'pods/log' };

/** Serves GET pods/log and the exec, attach and portforward connect requests. */
export async function servePodConnect(ctx: RequestContext, registry: APIRegistry): Promise<void> {
  const info = ctx.info;
  const pods = registry.lookup('', 'v1', 'pods');
  const nodes = registry.lookup('', 'v1', 'nodes');
  if (!pods || !nodes) throw statusErrors.pathNotFound();
  const sub = info.subresource;
  const method = ctx.method;
  if (sub === 'log' ? method !== 'GET' : method !== 'GET' && method !== 'POST') {
    throw statusErrors.methodNotSupported({ group: '', resource: `pods/${sub}` }, info.verb || method.toLowerCase());
  }
  const q = ctx.url.searchParams;
  let options: ConnectOptions | undefined;
  if (sub === 'log') validateLogOptions(info.name, q);
  else {
    // Upstream's ConnectResource: no dry run, the options read from the query, then admission (CONNECT), all
    // before the pod is looked at.
    if (q.has('dryRun')) throw statusErrors.badRequest('dryRun is not supported');
    options = await admitConnect(ctx, pods, connectOptionsOf(sub, q));
  }
  const pod = (await pods.store.get(info.namespace, info.name)) as KubeObject & Json;
  const name = info.name;

  let container = '';
  if (sub !== 'portforward') {
    container = chooseContainer(pod, name, options ? optionsContainer(options) : (q.get('container') ?? ''));
  }
  const nodeName: string = pod.spec?.nodeName ?? '';
  if (!nodeName) {
    // Upstream answers an empty log for a pod that has no node yet.
    if (sub === 'log') {
      ctx.res.writeHead(200, { 'content-type': 'text/plain', 'audit-id': ctx.auditId });
      ctx.res.end();
      return;
    }
    throw statusErrors.badRequest(`pod ${name} does not have a host assigned`);
  }
  const node = (await nodes.store.get('', nodeName)) as KubeObject & Json;
  const { host, port } = kubeletAddress(node);
  const ns = encodeURIComponent(pod.metadata.namespace ?? info.namespace);
  const podName = encodeURIComponent(name);
  if (sub === 'log') {
    return proxyLog(ctx, {
      host,
      port,
      path: `/containerLogs/${ns}/${podName}/${encodeURIComponent(container)}`,
      query: logQuery(q),
    });
  }
  const upgrade = upgrades.get(ctx.req);
  if (!upgrade || !isUpgradeRequest(ctx.req)) throw statusErrors.badRequest('Upgrade request required');
  const path =
    sub === 'portforward'
      ? `/portForward/${ns}/${podName}`
      : `/${sub}/${ns}/${podName}/${encodeURIComponent(container)}`;
  return proxyUpgrade(ctx, upgrade, { host, port, path, query: kubeletStreamQuery(options as ConnectOptions) });
}

/** Upstream's container choice for logs, exec and attach, with its error texts. */
function chooseContainer(pod: Json, name: string, requested: string): string {
  const containers: Json[] = pod.spec?.containers ?? [];
  const initContainers: Json[] = pod.spec?.initContainers ?? [];
  const names = (list: Json[]) => list.map((c) => c?.name).join(' ');
  if (requested) {
    const known = [...containers, ...initContainers, ...(pod.spec?.ephemeralContainers ?? [])].some(
      (c) => c?.name === requested,
    );
    if (!known) throw statusErrors.badRequest(`container ${requested} is not valid for pod ${name}`);
    return requested;
  }
  if (containers.length === 1) return containers[0]?.name ?? '';
  if (containers.length === 0) throw statusErrors.badRequest(`a container name must be specified for pod ${name}`);
  let message = `a container name must be specified for pod ${name}, choose one of: [${names(containers)}]`;
  if (initContainers.length > 0) message += ` or one of the init containers: [${names(initContainers)}]`;
  throw statusErrors.badRequest(message);
}

function kubeletAddress(node: Json): { host: string; port: number } {
  const addresses: { type?: string; address?: string }[] = node.status?.addresses ?? [];
  let host: string | undefined;
  for (const type of PREFERRED_ADDRESS_TYPES) {
    host = addresses.find((a) => a?.type === type && a.address)?.address;
    if (host) break;
  }
  if (!host) {
    const known = addresses.map((a) => `{${a?.type ?? ''} ${a?.address ?? ''}}`).join(' ');
    throw statusErrors.internal(`no preferred addresses found; known addresses: [${known}]`);
  }
  const port = Number(node.status?.daemonEndpoints?.kubeletEndpoint?.Port ?? 0);
  return { host, port: port > 0 ? port : DEFAULT_KUBELET_PORT };
}

const isTrue = (v: string | null) => v === 'true' || v === '1' || v === 'True' || v === 'TRUE' || v === 't';

/** PodLogOptions validation (upstream's ValidatePodLogOptions), refused as Invalid. */
function validateLogOptions(name: string, q: URLSearchParams): void {
  const problems: { field: string; value: string; detail: string }[] = [];
  const intParam = (field: string, min: number, detail: string) => {
    const v = q.get(field);
    if (v === null || v === '') return;
    const n = Number(v);
    if (!Number.isInteger(n)) throw statusErrors.badRequest(`${field}: invalid value "${v}": not an integer`);
    if (n < min) problems.push({ field, value: v, detail });
  };
  intParam('tailLines', 0, 'must be greater than or equal to 0');
  intParam('limitBytes', 1, 'must be greater than 0');
  intParam('sinceSeconds', 1, 'must be greater than 0');
  const causes = problems.map((p) => ({
    reason: 'FieldValueInvalid',
    message: `Invalid value: ${p.value}: ${p.detail}`,
    field: p.field,
  }));
  const messages = problems.map((p) => `${p.field}: Invalid value: ${p.value}: ${p.detail}`);
  if (q.get('sinceSeconds') && q.get('sinceTime')) {
    const detail = 'at most one of `sinceTime` or `sinceSeconds` may be specified';
    causes.push({ reason: 'FieldValueForbidden', message: `Forbidden: ${detail}`, field: '' });
    messages.push(`Forbidden: ${detail}`);
  }
  if (causes.length === 0) return;
  const message = messages.length === 1 ? (messages[0] as string) : `[${messages.join(', ')}]`;
  throw statusErrors.invalid({ group: '', kind: 'PodLogOptions' }, name, causes, message);
}

/** The kubelet's query for a log request: only the options set, as upstream's LogLocation writes them. */
function logQuery(q: URLSearchParams): URLSearchParams {
  const out = new URLSearchParams();
  if (isTrue(q.get('follow'))) out.set('follow', 'true');
  if (isTrue(q.get('previous'))) out.set('previous', 'true');
  if (isTrue(q.get('timestamps'))) out.set('timestamps', 'true');
  for (const key of ['sinceSeconds', 'sinceTime', 'tailLines', 'limitBytes']) {
    const v = q.get(key);
    if (v !== null && v !== '') out.set(key, v);
  }
  return out;
}

function isUpgradeRequest(req: HttpRequest): boolean {
  const connection = String(req.headers.connection ?? '').toLowerCase();
  return connection.split(',').some((t) => t.trim() === 'upgrade') && !!req.headers.upgrade;
}

function target(loc: KubeletLocation): string {
  const qs = loc.query.toString();
  return `${loc.path}${qs ? `?${qs}` : ''}`;
}

/** GET from the kubelet and stream its answer back; kubelet errors become Status errors as upstream maps them. */
function proxyLog(ctx: RequestContext, loc: KubeletLocation): Promise<void> {
  const follow = loc.query.get('follow') === 'true';
  if (follow) ctx.longRunning = true;
  return new Promise<void>((resolve, reject) => {
    const upstream = httpsRequest(
      {
        host: loc.host,
        port: loc.port,
        path: target(loc),
        method: 'GET',
        rejectUnauthorized: false,
        agent: false,
        headers: { 'user-agent': String(ctx.req.headers['user-agent'] ?? 'kube-apiserver') },
      },
      (res) => {
        const code = res.statusCode ?? 500;
        if (code < 200 || code > 206) {
          const chunks: Buffer[] = [];
          let size = 0;
          res.on('data', (c: Buffer) => {
            if (size < 4096) chunks.push(c);
            size += c.length;
          });
          res.on('end', () => reject(kubeletError(code, Buffer.concat(chunks).toString('utf8'), ctx.info.name)));
          res.on('error', reject);
          return;
        }
        ctx.res.writeHead(200, {
          'content-type': 'text/plain',
          'cache-control': 'no-cache, private',
          'audit-id': ctx.auditId,
        });
        res.on('data', (c: Buffer) => ctx.res.write(c));
        res.on('end', () => {
          ctx.res.end();
          resolve();
        });
        res.on('error', () => {
          ctx.res.end();
          resolve();
        });
      },
    );
    upstream.on('error', (err) => {
      if (ctx.res.headersSent) {
        ctx.res.end();
        resolve();
      } else reject(unknownError(`Get "https://${hostPort(loc)}${target(loc)}": ${dialError(loc, err)}`));
    });
    ctx.res.on('close', () => upstream.destroy());
    upstream.end();
  });
}

/** Upstream's GenericHttpResponseChecker: a kubelet error answer as the apiserver's Status. */
function kubeletError(code: number, body: string, name: string): StatusError {
  if (code === 400) return statusErrors.badRequest(body);
  if (code === 500) return statusErrors.internal(body);
  const details = { name, kind: LOG_RESOURCE.resource };
  const suffix = ` ( ${LOG_RESOURCE.resource} ${name})`;
  switch (code) {
    case 404:
      return new StatusError(404, 'NotFound', `the server could not find the requested resource${suffix}`, details);
    case 403:
      return new StatusError(403, 'Forbidden', `${body}${suffix}`, details);
    case 401:
      return new StatusError(
        401,
        'Unauthorized',
        `the server has asked for the client to provide credentials${suffix}`,
        details,
      );
    default:
      return new StatusError(
        code,
        code >= 500 ? 'InternalError' : 'Unknown',
        code >= 500
          ? `an error on the server (${JSON.stringify(body)}) has prevented the request from succeeding${suffix}`
          : `the server responded with the status code ${code} but did not return more information${suffix}`,
        details,
      );
  }
}

function hostPort(loc: KubeletLocation): string {
  return loc.host.includes(':') ? `[${loc.host}]:${loc.port}` : `${loc.host}:${loc.port}`;
}

/** A failed connection to the kubelet, worded as Go's dialer words it. */
function dialError(loc: KubeletLocation, err: Error & { code?: string }): string {
  const what = `dial tcp ${hostPort(loc)}`;
  if (err.code === 'ECONNREFUSED') return `${what}: connect: connection refused`;
  if (err.code === 'ETIMEDOUT') return `${what}: i/o timeout`;
  return `${what}: ${err.message}`;
}

/** An error that is not a Status upstream: a 500 with no reason, whose message kubectl prints as it is. */
function unknownError(message: string): StatusError {
  return new StatusError(500, '', message);
}

/** Request headers not passed on to the kubelet: the client's credentials and hop-by-hop headers. */
const DROPPED_HEADERS = new Set(['host', 'authorization', 'proxy-authorization', 'keep-alive', 'te', 'trailer']);

/**
 * Passes an upgrade request through to the kubelet: opens a TLS connection, sends the request for the kubelet's
 * path with the client's upgrade headers, then copies bytes both ways — the kubelet's answer (101 or an error)
 * reaches the client as the kubelet wrote it.
 */
function proxyUpgrade(ctx: RequestContext, upgrade: UpgradeConnection, loc: KubeletLocation): Promise<void> {
  ctx.longRunning = true;
  const client = upgrade.socket;
  return new Promise<void>((resolve, reject) => {
    let connected = false;
    const backend = tlsConnect({
      host: loc.host,
      port: loc.port,
      rejectUnauthorized: false,
      ALPNProtocols: ['http/1.1'],
      ...(/^[0-9.:]+$/.test(loc.host) ? {} : { servername: loc.host }),
    });
    backend.once('secureConnect', () => {
      connected = true;
      const lines = [`${ctx.method} ${target(loc)} HTTP/1.1`, `Host: ${loc.host}:${loc.port}`];
      const raw = ctx.req.rawHeaders;
      for (let i = 0; i + 1 < raw.length; i += 2) {
        const name = raw[i] as string;
        if (DROPPED_HEADERS.has(name.toLowerCase()) || name.toLowerCase().startsWith('impersonate-')) continue;
        lines.push(`${name}: ${raw[i + 1]}`);
      }
      backend.write(`${lines.join('\r\n')}\r\n\r\n`);
      if (upgrade.head.length > 0) backend.write(upgrade.head);
      // From here on the connection belongs to the stream: no Status may be written on it.
      ctx.res.detachSocket?.(client);
      backend.pipe(client);
      client.pipe(backend);
      resolve();
    });
    const finish = () => {
      backend.destroy();
      client.destroy();
    };
    backend.on('error', (err) => {
      if (!connected) reject(unknownError(`error dialing backend: ${dialError(loc, err)}`));
      else finish();
    });
    backend.on('close', () => client.end());
    client.on('error', finish);
    client.on('close', () => backend.destroy());
  });
}
