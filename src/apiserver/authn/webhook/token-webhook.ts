/**
 * Webhook token authentication (--authentication-token-webhook-config-file): a bearer token no other authenticator
 * recognised is sent to a remote service as a TokenReview (authentication.k8s.io v1, or v1beta1), and the service's
 * answer — authenticated, the user's name, uid, groups and extra, the audiences — is used as upstream's webhook
 * authenticator uses it. Answers are cached for --authentication-token-webhook-cache-ttl (2m); a service that
 * cannot be reached, or answers an error, refuses the token (401).
 */
import { createHash } from 'node:crypto';
import { type Clock, realClock } from '../../../util/clock.js';
import { AuthenticationError } from '../../filters/authentication.js';
import type { TokenAuthenticator, TokenUser } from '../bearer.js';
import { loadWebhookEndpoint } from './kubeconfig.js';
import { TTLCache } from './ttl-cache.js';

export const TOKEN_WEBHOOK_VERSIONS = ['v1', 'v1beta1'];
/** Upstream's defaults: --authentication-token-webhook-version v1beta1, --authentication-token-webhook-cache-ttl 2m. */
export const DEFAULT_TOKEN_WEBHOOK_VERSION = 'v1beta1';
export const DEFAULT_TOKEN_WEBHOOK_CACHE_TTL_MS = 2 * 60_000;

export interface TokenWebhookOptions {
  configFile: string;
  version?: string;
  cacheTTLMs?: number;
  /** The API audiences: what the service's answer is taken to mean when it names no audiences. */
  implicitAudiences: string[];
  clock?: Clock;
  timeoutMs?: number;
}

type Rec = Record<string, unknown>;
const rec = (v: unknown): Rec => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Rec) : {});
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string') : []);

/** What the service answered, as far as authentication needs it. */
interface Review {
  authenticated: boolean;
  user: TokenUser;
  audiences: string[];
  error: string;
}

export interface TokenWebhook {
  authenticate: TokenAuthenticator;
  stop(): void;
}

export function checkTokenWebhookVersion(version: string): void {
  if (!TOKEN_WEBHOOK_VERSIONS.includes(version)) {
    throw new Error(
      `unsupported authentication webhook version ${JSON.stringify(version)}, supported versions are "v1", "v1beta1"`,
    );
  }
}

export function tokenWebhookAuthenticator(opts: TokenWebhookOptions): TokenWebhook {
  const version = opts.version ?? DEFAULT_TOKEN_WEBHOOK_VERSION;
  checkTokenWebhookVersion(version);
  const { server, client } = loadWebhookEndpoint(opts.configFile, opts.timeoutMs);
  const clock = opts.clock ?? realClock;
  const ttl = opts.cacheTTLMs ?? DEFAULT_TOKEN_WEBHOOK_CACHE_TTL_MS;
  const cache = new TTLCache<Review>(clock);

  const review = async (token: string, audiences: string[]): Promise<Review> => {
    const key = createHash('sha256')
      .update(JSON.stringify([audiences, token]))
      .digest('base64');
    const cached = ttl > 0 ? cache.get(key) : undefined;
    if (cached) return cached;
    let answer: unknown;
    try {
      answer = await client.post(server, {
        apiVersion: `authentication.k8s.io/${version}`,
        kind: 'TokenReview',
        metadata: { creationTimestamp: null },
        spec: { token, ...(audiences.length > 0 ? { audiences } : {}) },
        status: { user: {} },
      });
    } catch (err) {
      // An outage or a misconfiguration: the token is refused (and the answer not kept).
      throw new AuthenticationError((err as Error).message);
    }
    const status = rec(rec(answer).status);
    const user = rec(status.user);
    const extra = rec(user.extra);
    const result: Review = {
      authenticated: status.authenticated === true,
      user: {
        name: typeof user.username === 'string' ? user.username : '',
        ...(typeof user.uid === 'string' && user.uid ? { uid: user.uid } : {}),
        groups: strings(user.groups),
        ...(Object.keys(extra).length > 0
          ? { extra: Object.fromEntries(Object.entries(extra).map(([k, v]) => [k, strings(v)])) }
          : {}),
      },
      audiences: strings(status.audiences),
      error: typeof status.error === 'string' ? status.error : '',
    };
    if (ttl > 0) cache.set(key, result, ttl);
    return result;
  };

  const authenticate: TokenAuthenticator = async (token, wanted = []) => {
    const result = await review(token, wanted);
    let audiences: string[] | undefined;
    if (wanted.length > 0) {
      const got = result.audiences.length > 0 ? result.audiences : opts.implicitAudiences;
      audiences = wanted.filter((a) => got.includes(a));
      if (audiences.length === 0) return undefined;
    }
    if (!result.authenticated) {
      if (result.error) throw new AuthenticationError(result.error);
      return undefined;
    }
    return { ...structuredClone(result.user), ...(audiences ? { audiences } : {}) };
  };

  return { authenticate, stop: () => client.close() };
}
