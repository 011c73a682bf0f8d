/**
 * --use-service-account-credentials: each controller talks to the apiserver as its own ServiceAccount,
 * `kube-system/<name>`, whose bootstrap ClusterRole `system:controller:<name>` holds only what that controller needs
 * (upstream's DynamicControllerClientBuilder). The ServiceAccount is made, when missing, as soon as the controller's
 * client is (upstream's Config), with the controller manager's identity; its token comes from the TokenRequest API at
 * the first request, one hour long, and is replaced once 80% of its life has gone by (or when the apiserver refuses
 * it). The clients carry no client certificate — a connection with one would authenticate as the certificate — and
 * share one connection among them.
 */
import { type KubeClient, type RestConfig, TokenClientPool } from '../client/rest.js';
import { parseTokenRequest } from '../client/token-request.js';
import { isAlreadyExists, isNotFound, type KubeObject, type ResourceClient } from '../client/types.js';
import { type Clock, realClock } from '../util/clock.js';
import { type Logger, silentLogger } from '../util/logger.js';

/** Upstream's defaults: tokens asked for an hour, rotated when 20% of their lifetime is left. */
export const DEFAULT_TOKEN_EXPIRATION_SECONDS = 3600;
export const DEFAULT_LEEWAY_PERCENT = 20;
/** A token said to live less than this is taken to live this long (clock skew; the API's own minimum). */
const MIN_TOKEN_LIFETIME_MS = 10 * 60_000;
/** client-go's cached token source renews a token this long before the expiry it was given. */
const CACHE_LEEWAY_MS = 10_000;
/** Upstream's retry of one token fetch: 4 tries, 500 ms apart at first, doubling. */
const FETCH_BACKOFF = { initialMs: 500, factor: 2, steps: 4 } as const;

/** What the builder needs of the controller manager's own client: its ServiceAccounts. */
export interface ServiceAccountsClient {
  serviceAccounts(ns: string): Pick<ResourceClient, 'get' | 'create' | 'createSubresource'>;
}

export interface TokenSourceOptions {
  /** The controller manager's own client, which creates ServiceAccounts and asks for their tokens. */
  core: ServiceAccountsClient;
  namespace: string;
  name: string;
  expirationSeconds?: number;
  leewayPercent?: number;
  clock?: Clock;
  logger?: Logger;
}

/** The token of one ServiceAccount, fetched when first asked for and again when it is about to expire. */
export class ServiceAccountTokenSource {
  private token: string | undefined;
  /** When the token must be replaced (clock milliseconds). */
  private renewAt = 0;
  private fetching: Promise<string> | undefined;
  private readonly clock: Clock;
  private readonly log: Logger;

  constructor(private readonly opts: TokenSourceOptions) {
    this.clock = opts.clock ?? realClock;
    this.log = opts.logger ?? silentLogger;
  }

  /** The current token; a new one when there is none or this one is due for renewal. */
  get(): Promise<string> {
    if (this.token !== undefined && this.clock.now() < this.renewAt - CACHE_LEEWAY_MS) {
      return Promise.resolve(this.token);
    }
    this.fetching ??= this.renew().finally(() => {
      this.fetching = undefined;
    });
    return this.fetching;
  }

  /** Forgets `token` when it is the current one (the apiserver refused it), so the next request fetches anew. */
  reset(token: string): void {
    if (this.token === token) this.token = undefined;
  }

  /** When the current token will be renewed (clock milliseconds), for tests and logs. */
  get renewalTime(): number | undefined {
    return this.token === undefined ? undefined : this.renewAt;
  }

  private async renew(): Promise<string> {
    try {
      const { token, expiresAt } = await this.fetchWithRetries();
      const now = this.clock.now();
      const lifetime = Math.max(expiresAt - now, MIN_TOKEN_LIFETIME_MS);
      const leeway = (lifetime * (this.opts.leewayPercent ?? DEFAULT_LEEWAY_PERCENT)) / 100;
      this.token = token;
      this.renewAt = now + lifetime - leeway;
      return token;
    } catch (err) {
      // As client-go's cached token source: a token not yet expired is better than none.
      if (this.token !== undefined) {
        this.log.error('Unable to rotate token', { serviceAccount: this.qualifiedName(), err: String(err) });
        return this.token;
      }
      throw err;
    }
  }

  private async fetchWithRetries(): Promise<{ token: string; expiresAt: number }> {
    const { namespace, name } = this.opts;
    let delay: number = FETCH_BACKOFF.initialMs;
    for (let step = 1; ; step++) {
      let failed = 'get or create service account failed';
      try {
        await getOrCreateServiceAccount(this.opts.core, namespace, name);
        failed = 'get token failed';
        const answer = await this.opts.core.serviceAccounts(namespace).createSubresource(name, 'token', {
          apiVersion: 'authentication.k8s.io/v1',
          kind: 'TokenRequest',
          metadata: {},
          spec: { expirationSeconds: this.opts.expirationSeconds ?? DEFAULT_TOKEN_EXPIRATION_SECONDS },
        } as KubeObject);
        return parseTokenRequest(answer);
      } catch (err) {
        this.log.info(failed, { namespace, serviceAccountName: name, error: String(err) });
        if (step >= FETCH_BACKOFF.steps) throw this.timedOut();
        await this.sleep(delay);
        delay *= FETCH_BACKOFF.factor;
      }
    }
  }

  private timedOut(): Error {
    return new Error(`failed to get token for ${this.qualifiedName()}: timed out waiting for the condition`);
  }

  private qualifiedName(): string {
    return `${this.opts.namespace}/${this.opts.name}`;
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => this.clock.after(ms, resolve));
  }
}

/** Gets ServiceAccount namespace/name, creating it when it does not exist (a racing creator's copy is re-read). */
export async function getOrCreateServiceAccount(
  core: ServiceAccountsClient,
  namespace: string,
  name: string,
): Promise<KubeObject> {
  const client = core.serviceAccounts(namespace);
  try {
    return await client.get(name);
  } catch (err) {
    if (!isNotFound(err)) throw err;
  }
  try {
    return await client.create({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { namespace, name } });
  } catch (err) {
    if (isAlreadyExists(err)) return client.get(name);
    throw err;
  }
}

export interface ControllerClientBuilderOptions {
  /** The controller manager's own client: the server, TLS trust and limits come from it, and it makes the SAs. */
  root: KubeClient;
  /** Where the controllers' ServiceAccounts live (upstream: kube-system). */
  namespace?: string;
  /**
   * A stand-in for tests: what creates ServiceAccounts and tokens. Default: the root client's identity and connection
   * with a rate limit of its own (the same qps and burst), as upstream's builder has a clientset of its own — so the
   * ServiceAccounts made at start-up do not hold back the informers' LISTs behind the root client's bucket.
   */
  core?: ServiceAccountsClient;
  expirationSeconds?: number;
  leewayPercent?: number;
  clock?: Clock;
  logger?: Logger;
}

/** Hands out one client per ServiceAccount name, all over one connection without a client certificate. */
export class ControllerClientBuilder {
  readonly namespace: string;
  private readonly config: RestConfig;
  private readonly pool: TokenClientPool;
  private readonly clients = new Map<string, KubeClient>();
  private readonly sources = new Map<string, ServiceAccountTokenSource>();
  private readonly core: ServiceAccountsClient;
  private readonly log: Logger;

  constructor(private readonly opts: ControllerClientBuilderOptions) {
    this.namespace = opts.namespace ?? 'kube-system';
    this.config = opts.root.anonymousConfig();
    this.log = opts.logger ?? silentLogger;
    this.pool = new TokenClientPool(this.config, this.log);
    const { qps, burst } = opts.root.rateLimit;
    this.core = opts.core ?? opts.root.withRateLimit(qps, burst);
  }

  /**
   * The client of ServiceAccount `<namespace>/<name>` (one per name). The ServiceAccount is made now, in the
   * background; the first request waits for a token (and makes the ServiceAccount itself if that failed).
   */
  client(name: string): KubeClient {
    let client = this.clients.get(name);
    if (client) return client;
    getOrCreateServiceAccount(this.core, this.namespace, name).catch((err: unknown) => {
      this.log.info('get or create service account failed', {
        namespace: this.namespace,
        serviceAccountName: name,
        error: String(err),
      });
    });
    const source = new ServiceAccountTokenSource({
      core: this.core,
      namespace: this.namespace,
      name,
      ...(this.opts.expirationSeconds !== undefined ? { expirationSeconds: this.opts.expirationSeconds } : {}),
      ...(this.opts.leewayPercent !== undefined ? { leewayPercent: this.opts.leewayPercent } : {}),
      ...(this.opts.clock ? { clock: this.opts.clock } : {}),
      ...(this.opts.logger ? { logger: this.opts.logger.child(name) } : {}),
    });
    client = this.pool.client({
      // As upstream's AddUserAgent: the manager's user agent, then the ServiceAccount's user name.
      userAgent: `${this.config.userAgent}/system:serviceaccount:${this.namespace}:${name}`,
      tokenSource: () => source.get(),
      onUnauthorized: (token) => source.reset(token),
    });
    this.clients.set(name, client);
    this.sources.set(name, source);
    return client;
  }

  /** The token source behind a client made by client(name), for tests. */
  tokenSource(name: string): ServiceAccountTokenSource | undefined {
    return this.sources.get(name);
  }

  /** Closes the shared connection: every client made here fails from now on. */
  close(): void {
    this.pool.close();
  }
}
