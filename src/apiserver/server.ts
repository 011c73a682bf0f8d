import { type IncomingMessage, ServerResponse } from 'node:http';
import { createSecureServer, type Http2SecureServer } from 'node:http2';
import type { AddressInfo, Socket } from 'node:net';
import { type StatusError, statusErrors } from '../api/status-error.js';
import type { Store } from '../storage/types.js';
import { type Logger, silentLogger } from '../util/logger.js';
import type { APIRegistry } from './api-registry.js';
import { APIServiceRegistration } from './apiservices.js';
import { type AuditOptions, Auditor } from './audit/auditor.js';
import { type Authentication, type AuthenticationOptions, buildAuthentication } from './authn/options.js';
import { isSelfSubjectReview, serveSelfSubjectReview } from './authn/self-subject-review.js';
import { JWKS_CONTENT_TYPE, OPENID_METADATA_CACHE_CONTROL } from './authn/serviceaccount/issuer.js';
import { serveTokenRequest } from './authn/serviceaccount/token-request.js';
import { addAuthenticationReviews } from './authn/token-review.js';
import { type Authorization, setUpAuthorization } from './authz/authorization.js';
import { WebhookAuthorizer, type WebhookAuthorizerOptions } from './authz/webhook/webhook-authorizer.js';
import { addComponentStatuses, type ComponentProbe, defaultComponentProbes } from './component-status.js';
import type { Handler } from './context.js';
import { CustomResourceController } from './crd/controller.js';
import { auditFilters } from './filters/audit.js';
import { APIServerMetrics } from './filters/metrics.js';
import { buildHandlerChain } from './handler-chain.js';
import { Discovery } from './handlers/discovery.js';
import { HealthChecks } from './handlers/health.js';
import { isPodConnectRequest, registerUpgrade, servePodConnect } from './handlers/pod-proxy.js';
import { addLegacyBindings, serveResource, subresourceCreateAdmission } from './handlers/rest.js';
import { versionHandler } from './handlers/version.js';
import { addMetricsAPI } from './metrics-api.js';
import { OpenAPIService } from './openapi/service.js';
import { writeRawJson, writeText } from './respond.js';

export interface ServingCerts {
  certPem: string;
  keyPem: string;
  /** CA that client certificates must be signed by. */
  clientCaPem: string;
}

export interface APIServerOptions {
  storage: Store;
  registry: APIRegistry;
  tls: ServingCerts;
  /** --bind-address (default 0.0.0.0 as upstream; `wheelhouse up` and tests pass 127.0.0.1). */
  bindAddress?: string;
  /** --secure-port (0 picks a free port). */
  securePort?: number;
  /**
   * --authorization-mode, parsed (AlwaysAllow, AlwaysDeny, RBAC). Undefined: wheelhouse's current default,
   * every authenticated user allowed (RBAC becomes the default once every component has its own identity).
   */
  authorizationModes?: string[];
  /** The Webhook mode's --authorization-webhook-* flags (required when authorizationModes names Webhook). */
  authorizationWebhook?: WebhookAuthorizerOptions;
  logger?: Logger;
  /** kube-apiserver's authentication flags (--anonymous-auth, --token-auth-file, --service-account-*…). */
  authentication?: AuthenticationOptions;
  /** --audit-policy-file and --audit-log-* (no policy: no auditing). */
  audit?: AuditOptions;
  /** What componentstatuses reports on (default: upstream's — the components' default ports, and the storage). */
  componentProbes?: () => ComponentProbe[];
}

/**
 * HTTP/2 flow control as kube-apiserver sets it: each stream may send 256 KiB of request body unread (upstream's
 * "resourceBody99Percentile"), and a connection 250 times that (250 being the stream count upstream sizes it
 * for). Node's defaults, 64 KiB for a stream and for the whole connection, let a client that multiplexes many
 * writes on one connection (a scheduler's bindings) have only 64 KiB of bodies in flight: the rest wait until the
 * server has read earlier ones and returned their window.
 */
const HTTP2_STREAM_WINDOW = 256 * 1024;
const HTTP2_CONNECTION_WINDOW = 250 * HTTP2_STREAM_WINDOW;
/** Megabytes a session may hold (Node's default is 10): room for the connection window and the answers queued. */
const HTTP2_SESSION_MEMORY_MB = 128;

/**
 * kube-apiserver: HTTPS with HTTP/2 and HTTP/1.1 on one port, the request pipeline, and the handlers for
 * version, health, discovery and resources.
 */

/**
 * The post-start hooks of kube-apiserver this server has a step for, in upstream's order: each is a
 * `poststarthook/<name>` health check that fails (`not finished`) until its step is done.
 */
export const POST_START_HOOKS = [
  'start-apiextensions-controllers',
  'crd-informer-synced',
  'start-system-namespaces-controller',
  'rbac/bootstrap-roles',
  'scheduling/bootstrap-system-priority-classes',
  'bootstrap-controller',
  'start-kubernetes-service-cidr-controller',
  'apiservice-status-local-available-controller',
  'kube-apiserver-autoregistration',
] as const;
export type PostStartHook = (typeof POST_START_HOOKS)[number];

export class APIServer {
  readonly health = new HealthChecks();
  private server: Http2SecureServer | undefined;
  private readonly log: Logger;
  private port = 0;
  private readonly discovery: Discovery;
  private readonly metrics: APIServerMetrics;
  private readonly openapi: OpenAPIService;
  private readonly sockets = new Set<Socket>();
  private stopping = false;
  private authorization: Authorization | undefined;
  private readonly authn: Authentication;
  private readonly customResources: CustomResourceController;
  private readonly apiServices: APIServiceRegistration;
  private webhookAuthorizer: WebhookAuthorizer | undefined;
  private auditor: Auditor | undefined;
  /** The post-start hooks finished so far (see finishHook). */
  private readonly hooksDone = new Set<PostStartHook>();

  constructor(private readonly opts: APIServerOptions) {
    this.log = opts.logger ?? silentLogger;
    this.discovery = new Discovery(opts.registry, () => `${this.host}:${this.port}`);
    this.metrics = new APIServerMetrics(opts.registry);
    this.openapi = new OpenAPIService(opts.registry);
    this.customResources = new CustomResourceController(opts.registry, this.log.child('apiextensions'));
    this.apiServices = new APIServiceRegistration(opts.registry, this.log.child('apiservices'));
    this.authn = buildAuthentication(
      opts.authentication ?? {},
      opts.registry,
      undefined,
      this.log.child('authentication'),
    );
    addAuthenticationReviews(opts.registry, this.authn);
    const defaultProbes = defaultComponentProbes(opts.storage);
    addComponentStatuses(opts.registry, opts.componentProbes ?? (() => defaultProbes));
    addMetricsAPI(opts.registry);
    addLegacyBindings(opts.registry);
    this.health.add(['healthz', 'livez', 'readyz'], { name: 'ping', check: () => {} });
    this.health.add(['healthz', 'livez', 'readyz'], { name: 'log', check: () => {} });
    const storageReachable = async () => {
      await opts.storage.currentRevision();
    };
    this.health.add(['healthz', 'livez', 'readyz'], { name: 'etcd', check: storageReachable });
    this.health.add(['readyz'], { name: 'etcd-readiness', check: storageReachable });
    this.health.add(['readyz'], {
      name: 'informer-sync',
      check: () => {
        const waiting = opts.registry.all().filter((s) => !s.store.cacher.synced).length;
        if (waiting > 0) throw new Error(`${waiting} informers not started yet`);
      },
    });
    // Upstream's post-start hooks for what this server does at start, in the order kube-apiserver lists them.
    for (const hook of POST_START_HOOKS) {
      this.health.add(['healthz', 'livez', 'readyz'], {
        name: `poststarthook/${hook}`,
        check: () => {
          if (!this.hooksDone.has(hook)) throw new Error('not finished');
        },
      });
      if (hook === 'kube-apiserver-autoregistration') {
        this.health.add(['healthz', 'livez', 'readyz'], {
          name: 'autoregister-completion',
          check: () => {
            const missing = this.apiServices.missing();
            if (missing.length > 0) throw new Error(`missing APIService: [${missing.join(' ')}]`);
          },
        });
      }
    }
    this.health.add(['readyz'], {
      name: 'shutdown',
      check: () => {
        if (this.stopping) throw new Error('process is shutting down');
      },
    });
  }

  /** Marks one of the start-up steps done (those the cluster bootstrap performs are marked by it). */
  finishHook(hook: PostStartHook): void {
    this.hooksDone.add(hook);
  }

  private get host(): string {
    const bind = this.opts.bindAddress ?? '0.0.0.0';
    return bind === '0.0.0.0' || bind === '::' ? '127.0.0.1' : bind;
  }

  get url(): string {
    return `https://${this.host}:${this.port}`;
  }

  async start(): Promise<string> {
    // A cache that cannot load (storage holds a value no encryption key reads) keeps trying on its own, and its
    // readers are refused meanwhile, as upstream's; the server starts all the same.
    await Promise.all(this.opts.registry.all().map((s) => s.store.cacher.start().catch(() => {})));
    await this.customResources.start();
    this.finishHook('start-apiextensions-controllers');
    this.finishHook('crd-informer-synced');
    await this.apiServices.start();
    this.finishHook('apiservice-status-local-available-controller');
    this.finishHook('kube-apiserver-autoregistration');
    if (this.opts.authorizationModes?.includes('Webhook')) {
      if (!this.opts.authorizationWebhook) {
        throw new Error("authorization-mode Webhook's authorization config file not passed");
      }
      this.webhookAuthorizer = new WebhookAuthorizer(this.opts.authorizationWebhook);
    }
    this.authorization = await setUpAuthorization(this.opts.registry, this.opts.authorizationModes, {
      ...(this.webhookAuthorizer ? { webhook: this.webhookAuthorizer } : {}),
    });
    this.auditor = Auditor.from(this.opts.audit);
    const handler = buildHandlerChain(this.route, {
      authenticators: this.authn.authenticators,
      anonymous: this.authn.anonymous,
      authorizers: [this.authorization.filter],
      log: this.log,
      metrics: this.metrics.filter(),
      ...(this.auditor ? { audit: auditFilters(this.auditor) } : {}),
    });
    const server = createSecureServer(
      {
        allowHTTP1: true,
        cert: this.opts.tls.certPem,
        key: this.opts.tls.keyPem,
        ca: this.opts.tls.clientCaPem,
        requestCert: true,
        rejectUnauthorized: false,
        settings: { initialWindowSize: HTTP2_STREAM_WINDOW },
        maxSessionMemory: HTTP2_SESSION_MEMORY_MB,
      },
      handler,
    );
    server.on('session', (session) => session.setLocalWindowSize(HTTP2_CONNECTION_WINDOW));
    // HTTP/1.1 upgrade requests (WebSocket and SPDY streams of exec, attach, port-forward) go through the same
    // pipeline, with a response written straight onto the connection until a handler takes the connection over.
    server.on('upgrade', (req: IncomingMessage, socket: Socket, head: Buffer) => {
      socket.on('error', () => {});
      const res = new ServerResponse(req);
      res.shouldKeepAlive = false;
      res.assignSocket(socket);
      res.on('finish', () => socket.end());
      registerUpgrade(req, socket, head);
      handler(req, res);
    });
    server.on('sessionError', () => {});
    server.on('tlsClientError', () => {});
    // Remember every connection (from its first byte, before TLS), so that stop() can end keep-alive clients,
    // open watches and handshakes in progress; once stopping, new connections are refused at once.
    server.on('connection', (socket: Socket) => {
      if (this.stopping) {
        socket.destroy();
        return;
      }
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
    });
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.opts.securePort ?? 6443, this.opts.bindAddress ?? '0.0.0.0', () => {
        server.off('error', reject);
        resolve();
      });
    });
    this.port = (server.address() as AddressInfo).port;
    this.log.info('serving', { url: this.url });
    return this.url;
  }

  async stop(): Promise<void> {
    this.authorization?.stop();
    this.customResources.stop();
    this.apiServices.stop();
    this.webhookAuthorizer?.stop();
    this.authn.stop();
    this.auditor?.close();
    for (const s of this.opts.registry.all()) s.store.cacher.stop();
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    this.stopping = true;
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      // Watches and idle keep-alive connections would hold close() open, and keep clients waiting.
      for (const socket of this.sockets) socket.destroy();
      this.sockets.clear();
    });
  }

  private readonly route: Handler = async (ctx) => {
    const path = ctx.url.pathname;
    if (isPodConnectRequest(ctx.info)) return servePodConnect(ctx, this.opts.registry);
    const issuer = this.authn.issuer;
    if (issuer && ctx.info.isResourceRequest && ctx.info.apiGroup === '' && ctx.info.resource === 'serviceaccounts') {
      if (ctx.info.subresource === 'token') {
        const served = this.opts.registry.lookup('', 'v1', 'serviceaccounts');
        const kind = { group: 'authentication.k8s.io', version: 'v1', kind: 'TokenRequest' };
        return serveTokenRequest(ctx, {
          issuer,
          audiences: this.authn.apiAudiences,
          getObject: this.authn.getObject,
          expiration: this.authn.tokenExpiration,
          ...(served
            ? { admission: subresourceCreateAdmission(ctx, served, kind, ctx.url.searchParams.has('dryRun')) }
            : {}),
        });
      }
    }
    if (isSelfSubjectReview(ctx)) return serveSelfSubjectReview(ctx);
    if (ctx.info.isResourceRequest) return serveResource(ctx, this.opts.registry);
    if (path === '/version' || path === '/version/') return versionHandler(ctx);
    if (await this.health.serve(ctx)) return;
    if (path === '/metrics' && ctx.method === 'GET') {
      const { contentType, body } = await this.metrics.text();
      return writeText(ctx.res, 200, body, { 'content-type': contentType });
    }
    // Upstream's go-restful routes take these with a trailing slash too (clients generated from its OpenAPI ask so).
    const metadataPath = path.endsWith('/') ? path.slice(0, -1) : path;
    if (issuer && ctx.method === 'GET' && metadataPath === '/.well-known/openid-configuration') {
      // Written raw, as upstream's OIDC metadata handlers write their bytes (no audit response object).
      const body = issuer.openidConfiguration(`${this.url}/openid/v1/jwks`);
      return writeRawJson(ctx, 200, body, 'application/json', { 'cache-control': OPENID_METADATA_CACHE_CONTROL });
    }
    if (issuer && ctx.method === 'GET' && metadataPath === '/openid/v1/jwks') {
      return writeRawJson(ctx, 200, await issuer.jwks(), JWKS_CONTENT_TYPE, {
        'cache-control': OPENID_METADATA_CACHE_CONTROL,
      });
    }
    if (this.discovery.serve(ctx)) return;
    if (this.openapi.serve(ctx)) return;
    throw this.notFound(path);
  };

  /**
   * The 404 for a path nothing serves: under /api and the served API groups, a Status (upstream's go-restful
   * containers answer those); anywhere else Go's plain-text http.NotFound, where upstream's handler chain ends.
   */
  private notFound(path: string): StatusError {
    const group = /^\/apis\/([^/]+)/.exec(path)?.[1];
    const restful =
      path === '/api' || path.startsWith('/api/') || (group !== undefined && this.opts.registry.servesGroup(group));
    return restful ? statusErrors.pathNotFound() : statusErrors.noHandler();
  }
}
