import { arch, platform } from 'node:os';
import { lookupResource } from '../api/catalog.js';
import { type Clock, realClock } from '../util/clock.js';
import { type Logger, silentLogger } from '../util/logger.js';
import { TokenBucket } from '../util/token-bucket.js';
import { type CancelSignal, RequestCancel } from './cancel.js';
import { type ConnectionConfig, type LoadKubeconfigOptions, loadKubeconfig } from './kubeconfig.js';
import { RestResource, withQuery } from './resource-client.js';
import {
  answerResourceVersion,
  encodeBody,
  errorFromResponse,
  isFailureStatus,
  parseBody,
  type RequestTarget,
  retryAfterSeconds,
  warnings,
} from './response.js';
import { Http2Transport, isRetryableConnectionError, readBody, type TransportResponse } from './transport.js';
import {
  ApiError,
  type GroupVersionResource,
  type KubeObject,
  type ResourceClient,
  type WatchStream,
} from './types.js';
import { HttpWatchStream } from './watch-stream.js';

/** client-go's rest.DefaultQPS and rest.DefaultBurst. */
export const DEFAULT_QPS = 5;
export const DEFAULT_BURST = 10;
/** How often a request is sent again after a Retry-After answer or a lost connection (client-go: 10). */
export const DEFAULT_MAX_RETRIES = 10;
/** The time limit of a request that is not a watch, unless the caller sets one (0: none). */
export const DEFAULT_TIMEOUT_MS = 60_000;

const GO_ARCH: Record<string, string> = { x64: 'amd64', arm64: 'arm64', ia32: '386', arm: 'arm' };
/**
 * A program's User-Agent in client-go's form, `<program>/<version> (<os>/<arch>) kubernetes/<commit>`. The apiserver
 * names a write's field manager after its first part, so a component's writes are recorded under its upstream
 * program name (`kube-controller-manager`, `kube-scheduler`, `kubelet`).
 */
export function userAgentFor(program: string, version = 'v1.33.0'): string {
  return `${program}/${version} (${platform()}/${GO_ARCH[arch()] ?? arch()}) kubernetes/v1.33.0`;
}

export const DEFAULT_USER_AGENT = userAgentFor('wheelhouse', 'v0.1.0');

export interface RestConfig extends ConnectionConfig {
  /** Requests a second, sustained (default 5); <= 0 or Infinity: no limit. Watches are never limited. */
  qps?: number;
  /** Requests allowed at once above qps (default 10). */
  burst?: number;
  userAgent?: string;
  /** Time limit of each request that is not a watch, retries included (default 60 s; 0: none). */
  timeoutMs?: number;
  /** Retries after 429/5xx with Retry-After, and of GETs after a lost connection (default 10). */
  maxRetries?: number;
  clock?: Clock;
  logger?: Logger;
  /**
   * Where each request's bearer token comes from when it may change over time (client-go's WrapTransport with a
   * token source, as kube-controller-manager's ServiceAccount clients use); read per request in place of `token`.
   * A rejection fails the request.
   */
  tokenSource?: TokenSource;
  /**
   * Told the token a request carried when the server answered 401 to it, so that a source can drop a token the
   * server no longer accepts (client-go's ResettableTokenSource).
   */
  onUnauthorized?: (token: string) => void;
}

/** A bearer token that may change over time: the current one, or a promise of it. */
export type TokenSource = () => string | Promise<string>;

export type QueryValue = string | number | boolean | undefined | readonly string[];

export interface RequestOptions {
  method: string;
  /** The URL path, e.g. /api/v1/namespaces/default/pods. */
  path: string;
  query?: Record<string, QueryValue>;
  /** An object is sent as JSON; a string or Buffer as it is. */
  body?: unknown;
  /** Default application/json when there is a body. */
  contentType?: string;
  /** Default application/json. */
  accept?: string;
  /** Overrides the client's time limit for this request (0: none). */
  timeoutMs?: number;
  signal?: AbortSignal;
  headers?: Record<string, string>;
  /** What the request is about, for the message of an error the server answers without a Status. */
  target?: RequestTarget;
}

/** A client-side time limit ran out (the server may still have carried out the request). */
export class RequestTimeoutError extends Error {
  readonly code = 'ETIMEDOUT';
  constructor(method: string, path: string, ms: number) {
    super(`${method} ${path}: the request did not complete within ${ms} ms`);
    this.name = 'RequestTimeoutError';
  }
}

export interface FromKubeconfigOptions extends LoadKubeconfigOptions {
  qps?: number;
  burst?: number;
  userAgent?: string;
  timeoutMs?: number;
  maxRetries?: number;
  clock?: Clock;
  logger?: Logger;
}

const core = (resource: string): GroupVersionResource => ({ group: '', version: 'v1', resource });
const gvr = (group: string, version: string, resource: string): GroupVersionResource => ({ group, version, resource });

export class KubeClient {
  /** The namespace of the kubeconfig context ('default' when none). */
  readonly defaultNamespace: string;
  readonly server: string;
  private readonly transport: Http2Transport;
  private readonly limiter: TokenBucket;
  private readonly clock: Clock;
  private readonly logger: Logger;
  private readonly userAgent: string;
  private readonly timeoutMs: number;
  private readonly maxRetries: number;
  private readonly token: string | undefined;
  private readonly config: RestConfig;
  private readonly ownsTransport: boolean;

  constructor(config: RestConfig, shared?: { transport: Http2Transport }) {
    this.config = config;
    this.server = config.server;
    this.defaultNamespace = config.namespace || 'default';
    this.clock = config.clock ?? realClock;
    this.logger = config.logger ?? silentLogger;
    this.limiter = new TokenBucket(config.qps ?? DEFAULT_QPS, config.burst ?? DEFAULT_BURST, this.clock);
    this.userAgent = config.userAgent ?? DEFAULT_USER_AGENT;
    this.timeoutMs = config.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.maxRetries = Math.max(0, config.maxRetries ?? DEFAULT_MAX_RETRIES);
    this.token = config.token;
    this.ownsTransport = shared === undefined;
    this.transport = shared?.transport ?? new Http2Transport(config, this.logger);
  }

  /**
   * A client with its own rate limit over this client's connection and with its credentials (token source
   * included), as upstream gives some controllers a client with a multiple of --kube-api-qps. Closing it leaves the
   * connection open; closing the client that opened the connection closes it.
   */
  withRateLimit(qps: number, burst: number): KubeClient {
    return new KubeClient({ ...this.config, qps, burst }, { transport: this.transport });
  }

  /**
   * This client's configuration without its credentials (no client certificate, token or token source): the same
   * server, TLS trust, user agent, limits, clock and logger (client-go's rest.AnonymousClientConfig).
   */
  anonymousConfig(): RestConfig {
    return { ...withoutCredentials(this.config), userAgent: this.userAgent };
  }

  /** The rate limit this client was made with. */
  get rateLimit(): { qps: number; burst: number } {
    return { qps: this.config.qps ?? DEFAULT_QPS, burst: this.config.burst ?? DEFAULT_BURST };
  }

  /** A client for the current context of the kubeconfig kubectl would use (or the one named in opts). */
  static async fromKubeconfig(opts: FromKubeconfigOptions = {}): Promise<KubeClient> {
    const { kubeconfigPath, context, env, ...rest } = opts;
    const connection = await loadKubeconfig({
      ...(kubeconfigPath !== undefined ? { kubeconfigPath } : {}),
      ...(context !== undefined ? { context } : {}),
      ...(env !== undefined ? { env } : {}),
    });
    return new KubeClient({ ...connection, ...rest });
  }

  /**
   * One request. Resolves with the parsed JSON body (text when the answer is not JSON; undefined when empty);
   * rejects with ApiError when the server answers with an error.
   */
  async request<R = unknown>(opts: RequestOptions): Promise<R> {
    const { response, body } = await this.send(opts, false);
    const text = (body ?? Buffer.alloc(0)).toString('utf8');
    const parsed = parseBody(response.headers['content-type'], text);
    if (isFailureStatus(parsed)) throw ApiError.fromStatus({ code: response.status, ...parsed });
    return parsed as R;
  }

  /**
   * A write whose caller looks only at the written object's resourceVersion, which it resolves with: the answer's
   * JSON is not decoded when that can be read off its text (see answerResourceVersion). Rejects as request() does.
   */
  async requestResourceVersion(opts: RequestOptions): Promise<string> {
    const { response, body } = await this.send(opts, false);
    return answerResourceVersion(body ?? Buffer.alloc(0), response.status);
  }

  /**
   * Opens a watch (the caller puts watch=true in the query): resolves once the server has answered 200, with the
   * stream of events; rejects with ApiError when it answers with an error (e.g. 410 Gone).
   */
  async watchRequest<T extends KubeObject = KubeObject>(opts: RequestOptions): Promise<WatchStream<T>> {
    const { response } = await this.send(opts, true);
    return new HttpWatchStream<T>(response, this.logger);
  }

  /** The client of one resource; namespaced as the catalog says, or as opts.namespaced says for resources it does not know. */
  resource<T extends KubeObject = KubeObject>(
    resource: GroupVersionResource,
    opts: { namespaced?: boolean } = {},
  ): ResourceClient<T> {
    const known = lookupResource(resource.group, resource.version, resource.resource);
    return new RestResource<T>(this, resource, known?.namespaced ?? opts.namespaced, undefined);
  }

  /** Closes the connection; requests in flight fail and watches end. */
  close(): void {
    if (this.ownsTransport) this.transport.close();
  }

  // The typed shorthands (client-go's clientset, without its typed objects).
  pods(ns?: string) {
    return this.scoped(core('pods'), ns);
  }
  services(ns?: string) {
    return this.scoped(core('services'), ns);
  }
  endpoints(ns?: string) {
    return this.scoped(core('endpoints'), ns);
  }
  namespaces() {
    return this.resource(core('namespaces'));
  }
  nodes() {
    return this.resource(core('nodes'));
  }
  configMaps(ns?: string) {
    return this.scoped(core('configmaps'), ns);
  }
  secrets(ns?: string) {
    return this.scoped(core('secrets'), ns);
  }
  serviceAccounts(ns?: string) {
    return this.scoped(core('serviceaccounts'), ns);
  }
  events(ns?: string) {
    return this.scoped(core('events'), ns);
  }
  replicationControllers(ns?: string) {
    return this.scoped(core('replicationcontrollers'), ns);
  }
  resourceQuotas(ns?: string) {
    return this.scoped(core('resourcequotas'), ns);
  }
  deployments(ns?: string) {
    return this.scoped(gvr('apps', 'v1', 'deployments'), ns);
  }
  replicaSets(ns?: string) {
    return this.scoped(gvr('apps', 'v1', 'replicasets'), ns);
  }
  statefulSets(ns?: string) {
    return this.scoped(gvr('apps', 'v1', 'statefulsets'), ns);
  }
  daemonSets(ns?: string) {
    return this.scoped(gvr('apps', 'v1', 'daemonsets'), ns);
  }
  controllerRevisions(ns?: string) {
    return this.scoped(gvr('apps', 'v1', 'controllerrevisions'), ns);
  }
  jobs(ns?: string) {
    return this.scoped(gvr('batch', 'v1', 'jobs'), ns);
  }
  cronJobs(ns?: string) {
    return this.scoped(gvr('batch', 'v1', 'cronjobs'), ns);
  }
  leases(ns?: string) {
    return this.scoped(gvr('coordination.k8s.io', 'v1', 'leases'), ns);
  }
  endpointSlices(ns?: string) {
    return this.scoped(gvr('discovery.k8s.io', 'v1', 'endpointslices'), ns);
  }
  podDisruptionBudgets(ns?: string) {
    return this.scoped(gvr('policy', 'v1', 'poddisruptionbudgets'), ns);
  }
  clusterRoles() {
    return this.resource(gvr('rbac.authorization.k8s.io', 'v1', 'clusterroles'));
  }
  priorityClasses() {
    return this.resource(gvr('scheduling.k8s.io', 'v1', 'priorityclasses'));
  }

  private scoped(resource: GroupVersionResource, ns: string | undefined): ResourceClient {
    const client = this.resource(resource);
    return ns === undefined ? client : client.namespace(ns);
  }

  /**
   * Sends a request with throttling, the time limit and retries. For a watch, resolves with the open 200 response
   * (body unread); otherwise with the 2xx response and its body. Error answers reject with ApiError.
   */
  private async send(
    opts: RequestOptions,
    watch: boolean,
  ): Promise<{ response: TransportResponse; body: Buffer | undefined }> {
    const method = opts.method.toUpperCase();
    const path = withQuery(opts.path, opts.query);
    // client-go throttles before the time limit starts, and never throttles watches.
    if (!watch) await this.limiter.take();
    const limitMs = opts.timeoutMs ?? (watch ? 0 : this.timeoutMs);
    const abort = new RequestCancel();
    const onCallerAbort = () => abort.abort(opts.signal?.reason);
    if (opts.signal?.aborted) throw opts.signal.reason;
    opts.signal?.addEventListener('abort', onCallerAbort, { once: true });
    const timer =
      limitMs > 0
        ? this.clock.after(limitMs, () => abort.abort(new RequestTimeoutError(method, path, limitMs)))
        : undefined;
    const headers: Record<string, string> = {
      accept: opts.accept ?? 'application/json',
      'user-agent': this.userAgent,
      ...(this.token !== undefined ? { authorization: `Bearer ${this.token}` } : {}),
      ...opts.headers,
    };
    const payload = encodeBody(opts.body);
    if (payload !== undefined) headers['content-type'] = opts.contentType ?? 'application/json';
    try {
      for (let attempt = 0; ; attempt++) {
        // A token source is asked on every attempt: a retry after Retry-After may need a refreshed token.
        const token = await this.currentToken(abort);
        if (token !== undefined && opts.headers?.authorization === undefined) {
          headers.authorization = `Bearer ${token}`;
        }
        let response: TransportResponse;
        try {
          response = await this.transport.open({
            method,
            path,
            headers,
            ...(payload !== undefined ? { body: payload } : {}),
            signal: abort,
          });
        } catch (error) {
          if (abort.aborted) throw abort.reason;
          // client-go sends a GET again after a lost connection, as if told Retry-After: 1.
          if (method === 'GET' && attempt < this.maxRetries && isRetryableConnectionError(error)) {
            this.logger.v(4).info('retrying after a connection error', { method, path, attempt: attempt + 1 });
            await this.retryWait(1, abort, watch);
            continue;
          }
          throw error;
        }
        const ok = response.status >= 200 && response.status < 300;
        for (const warning of warnings(response)) this.logger.info(`Warning: ${warning}`, { method, path });
        if (ok && watch) return { response, body: undefined };
        let body: Buffer;
        try {
          body = await readBody(response.stream);
        } catch (error) {
          if (abort.aborted) throw abort.reason;
          throw error;
        }
        this.logger.v(6).info('request', { method, path, status: response.status });
        if (ok) return { response, body };
        if (response.status === 401 && token !== undefined) this.config.onUnauthorized?.(token);
        const retryAfter = retryAfterSeconds(response);
        if (
          (response.status === 429 || response.status >= 500) &&
          retryAfter !== undefined &&
          attempt < this.maxRetries
        ) {
          this.logger.v(4).info('got a Retry-After response', {
            method,
            path,
            status: response.status,
            retryAfterSeconds: retryAfter,
            attempt: attempt + 1,
          });
          await this.retryWait(retryAfter, abort, watch);
          continue;
        }
        throw errorFromResponse(response, body, method, opts.target);
      }
    } finally {
      timer?.cancel();
      opts.signal?.removeEventListener('abort', onCallerAbort);
    }
  }

  /** The token of the token source (undefined without one); gives up when the request is aborted. */
  private async currentToken(signal: CancelSignal): Promise<string | undefined> {
    const source = this.config.tokenSource;
    if (source === undefined) return undefined;
    const pending = Promise.resolve(source());
    if (signal.aborted) throw signal.reason;
    let onAbort: (() => void) | undefined;
    const aborted = new Promise<never>((_, reject) => {
      onAbort = () => reject(signal.reason);
      signal.addEventListener('abort', onAbort, { once: true });
    });
    try {
      return await Promise.race([pending, aborted]);
    } finally {
      if (onAbort) signal.removeEventListener('abort', onAbort);
      // The token source may still fail after the request gave up; that failure is the source's to report.
      pending.catch(() => {});
    }
  }

  /** Waits `seconds` on the clock, then (as client-go) for the rate limiter; ends early when aborted. */
  private async retryWait(seconds: number, signal: CancelSignal, watch: boolean): Promise<void> {
    if (seconds > 0) {
      await new Promise<void>((resolve, reject) => {
        const onAbort = () => {
          handle.cancel();
          reject(signal.reason);
        };
        const handle = this.clock.after(seconds * 1000, () => {
          signal.removeEventListener('abort', onAbort);
          resolve();
        });
        signal.addEventListener('abort', onAbort, { once: true });
      });
    }
    if (!watch) await this.limiter.take();
    if (signal.aborted) throw signal.reason;
  }
}

/** A configuration with its credentials taken out: no client certificate, token or token source. */
function withoutCredentials(config: RestConfig): RestConfig {
  const { certPem: _cert, keyPem: _key, token: _token, tokenSource: _source, onUnauthorized: _reset, ...rest } = config;
  return rest;
}

/** What each client of a TokenClientPool sets for itself. */
export type PooledClientConfig = Pick<
  RestConfig,
  'token' | 'tokenSource' | 'onUnauthorized' | 'qps' | 'burst' | 'userAgent' | 'logger'
>;

/**
 * Clients that each send their own bearer token over one HTTP/2 connection, which carries no client certificate
 * (the apiserver tries client certificates before bearer tokens, as upstream, so a connection with one would make
 * every request the certificate's). The controller manager's ServiceAccount clients and the simulated kubelets'
 * node identities use it, so that any number of identities cost one connection.
 */
export class TokenClientPool {
  private readonly config: RestConfig;
  private readonly transport: Http2Transport;

  /** config: where the clients connect and what they trust; its credentials, if any, are left out. */
  constructor(config: RestConfig, logger: Logger = silentLogger) {
    this.config = withoutCredentials(config);
    this.transport = new Http2Transport(this.config, logger);
  }

  /** A client over the pool's connection, with its own credentials and limits. */
  client(own: PooledClientConfig): KubeClient {
    return new KubeClient({ ...this.config, ...own }, { transport: this.transport });
  }

  /** Closes the shared connection: every client's requests and watches end. */
  close(): void {
    this.transport.close();
  }
}
