import { StatusError, statusErrors } from '../../api/status-error.js';
import type { Clock } from '../../util/clock.js';
import { type Logger, silentLogger } from '../../util/logger.js';
import type { APIRegistry } from '../api-registry.js';
import { type Authenticator, x509Authenticator } from '../filters/authentication.js';
import type { KubeObject } from '../registry/object.js';
import { audienceAgnostic, bearerTokenAuthenticator, type TokenAuthenticator, tokenUnion } from './bearer.js';
import { bootstrapTokenAuthenticator } from './bootstrap-token.js';
import { type OIDCOptions, oidcAuthenticator } from './oidc/authenticator.js';
import { type ObjectGetter, serviceAccountTokenAuthenticator } from './serviceaccount/authenticator.js';
import { DEFAULT_SERVICE_ACCOUNT_ISSUER } from './serviceaccount/claims.js';
import { ServiceAccountTokenIssuer } from './serviceaccount/issuer.js';
import { readPublicKeys, readSigningKey } from './serviceaccount/keys.js';
import {
  LAST_USED_LABEL,
  type LastUsedLabeler,
  legacyServiceAccountTokenAuthenticator,
} from './serviceaccount/legacy.js';
import { cachedTokenAuthenticator } from './token-cache.js';
import { type StaticToken, staticTokenAuthenticator, staticTokens } from './token-file.js';
import { tokenWebhookAuthenticator } from './webhook/token-webhook.js';

/** kube-apiserver's authentication flags. */
export interface AuthenticationOptions {
  /** --anonymous-auth (default true). */
  anonymousAuth?: boolean;
  /**
   * --client-ca-file: a PEM bundle of CAs whose client certificates authenticate (CN the user, O the groups). The
   * cluster CA stays trusted besides it, as wheelhouse's own components hold certificates it signed.
   */
  clientCAFile?: string;
  /** --token-auth-file: static tokens, upstream's CSV. */
  tokenAuthFile?: string;
  /**
   * --enable-bootstrap-token-auth: bootstrap tokens (Secrets of type bootstrap.kubernetes.io/token in kube-system)
   * authenticate as system:bootstrap:<id>. Off unless asked for, as upstream; `wheelhouse up` turns it on as kubeadm.
   */
  enableBootstrapTokenAuth?: boolean;
  /**
   * Static tokens held in memory (no flag upstream): the same authenticator as --token-auth-file's, with these
   * entries after the file's. startControlPlane gives one to each simulated node and to their add-ons.
   */
  staticTokens?: StaticToken[];
  /** --service-account-key-file (repeatable): public keys that verify ServiceAccount tokens. */
  serviceAccountKeyFiles?: string[];
  /** --service-account-signing-key-file: the private key TokenRequest signs with. */
  serviceAccountSigningKeyFile?: string;
  /** --service-account-issuer (repeatable): the first is written into new tokens; all are accepted. */
  serviceAccountIssuers?: string[];
  /** --api-audiences (default: the issuers). */
  apiAudiences?: string[];
  /** --service-account-max-token-expiration in seconds (undefined or 0: no cap beyond TokenRequest's own). */
  serviceAccountMaxTokenExpirationSeconds?: number;
  /** --service-account-extend-token-expiration (default true). */
  serviceAccountExtendTokenExpiration?: boolean;
  /** The --oidc-* flags (an OpenID Connect issuer whose ID tokens are accepted). */
  oidc?: OIDCOptions;
  /**
   * --authentication-token-webhook-config-file, --authentication-token-webhook-version (v1 or v1beta1, default
   * v1beta1 as upstream), --authentication-token-webhook-cache-ttl (default 2m).
   */
  tokenWebhook?: { configFile: string; version?: string; cacheTTLMs?: number };
  /**
   * How long a bearer token that authenticated is remembered (kube-apiserver's TokenSuccessCacheTTL, 10 s, which it
   * has no flag for); 0 turns the cache off, so that a revoked token fails at once.
   */
  tokenSuccessCacheTTLMs?: number;
}

/** What the apiserver runs from the authentication options. */
export interface Authentication {
  authenticators: Authenticator[];
  anonymous: boolean;
  apiAudiences: string[];
  /** Present when a signing key is configured: TokenRequest and the OIDC discovery endpoints are served. */
  issuer?: ServiceAccountTokenIssuer;
  getObject: ObjectGetter;
  /** The bearer-token authenticators alone, as one cached union (TokenReview asks it). */
  tokenAuthenticators: TokenAuthenticator[];
  /** TokenRequest's limits: --service-account-max-token-expiration, --service-account-extend-token-expiration. */
  tokenExpiration: { maxSeconds?: number; extend: boolean };
  /** Closes the connections to an OIDC issuer and a token webhook. */
  stop(): void;
}

/** Live reads of core/v1 objects from the registry's stores (undefined when not found). */
export function registryObjectGetter(registry: APIRegistry): ObjectGetter {
  return async (resource, namespace, name) => {
    const served = registry.lookup('', 'v1', resource);
    if (!served) return undefined;
    try {
      return (await served.store.get(namespace, name)) as KubeObject;
    } catch (err) {
      if (err instanceof StatusError && err.code === 404) return undefined;
      throw err;
    }
  };
}

/**
 * Labels a legacy token's Secret with the day it was used on, as upstream's legacy validator patches it (its uid a
 * precondition); a failure is logged, and the request goes on.
 */
function lastUsedLabeler(registry: APIRegistry, log: Logger): LastUsedLabeler {
  return async (namespace, name, uid, date) => {
    const served = registry.lookup('', 'v1', 'secrets');
    if (!served) return;
    try {
      await served.store.guaranteedUpdate(
        namespace,
        name,
        (current) => {
          if (current.metadata.uid !== uid) {
            throw statusErrors.uidPreconditionFailed(
              { group: '', resource: 'secrets' },
              name,
              uid,
              current.metadata.uid,
            );
          }
          current.metadata.labels = { ...(current.metadata.labels ?? {}), [LAST_USED_LABEL]: date };
          return current;
        },
        { fieldManager: 'kube-apiserver' },
      );
    } catch (err) {
      log.error(
        `Failed to label legacy service account token ${name}/${namespace} with last-used date, err: ${(err as Error).message}`,
      );
    }
  };
}

/**
 * Builds the authenticators in upstream's order — client certificates, then bearer tokens (static tokens,
 * ServiceAccount JWTs, bootstrap tokens, OIDC ID tokens, the token webhook last) — from the flags. Throws on unreadable files, as kube-apiserver refuses to start.
 */
export function buildAuthentication(
  opts: AuthenticationOptions,
  registry: APIRegistry,
  clock?: Clock,
  log: Logger = silentLogger,
): Authentication {
  const getObject = registryObjectGetter(registry);
  const tokenAuthenticators: TokenAuthenticator[] = [];
  const issuers = opts.serviceAccountIssuers?.length ? opts.serviceAccountIssuers : [DEFAULT_SERVICE_ACCOUNT_ISSUER];
  const apiAudiences = opts.apiAudiences?.length ? opts.apiAudiences : issuers;
  if (opts.tokenAuthFile || opts.staticTokens?.length) {
    tokenAuthenticators.push(
      audienceAgnostic(staticTokenAuthenticator(staticTokens(opts.tokenAuthFile, opts.staticTokens)), apiAudiences),
    );
  }
  const keyFiles = opts.serviceAccountKeyFiles?.length
    ? opts.serviceAccountKeyFiles
    : opts.serviceAccountSigningKeyFile
      ? [opts.serviceAccountSigningKeyFile]
      : [];
  const keys = keyFiles.flatMap(readPublicKeys);
  if (keys.length > 0) {
    tokenAuthenticators.push(
      serviceAccountTokenAuthenticator({
        issuers,
        audiences: apiAudiences,
        keys,
        getObject,
        ...(clock ? { clock } : {}),
      }),
      // The tokens serviceaccount-token-controller writes into kubernetes.io/service-account-token Secrets.
      legacyServiceAccountTokenAuthenticator({
        keys,
        audiences: apiAudiences,
        getObject,
        labelLastUsed: lastUsedLabeler(registry, log),
        ...(clock ? { now: () => clock.now() } : {}),
      }),
    );
  }
  if (opts.enableBootstrapTokenAuth) {
    tokenAuthenticators.push(audienceAgnostic(bootstrapTokenAuthenticator(getObject, clock), apiAudiences));
  }
  const max = opts.serviceAccountMaxTokenExpirationSeconds;
  if (max && (max < 3600 || max > 2 ** 32)) {
    throw new Error('the service-account-max-token-expiration must be between 1 hour and 2^32 seconds');
  }
  const stops: (() => void)[] = [];
  if (opts.oidc) {
    const oidc = oidcAuthenticator(opts.oidc, clock, issuers);
    tokenAuthenticators.push(audienceAgnostic(oidc.authenticate, apiAudiences));
    // Discovery and keys are fetched now, so that the first token does not wait; a failure is retried later.
    // Why the issuer cannot be read goes to the log: a token then only hears that the authenticator is not ready.
    oidc
      .prefetch()
      .catch((err) =>
        log.error('oidc: initializing plugin', { issuer: opts.oidc?.issuerURL, err: (err as Error).message }),
      );
    stops.push(oidc.stop);
  }
  if (opts.tokenWebhook) {
    const webhook = tokenWebhookAuthenticator({
      ...opts.tokenWebhook,
      implicitAudiences: apiAudiences,
      ...(clock ? { clock } : {}),
    });
    tokenAuthenticators.push(webhook.authenticate);
    stops.push(webhook.stop);
  }
  const issuer = opts.serviceAccountSigningKeyFile
    ? new ServiceAccountTokenIssuer(issuers[0] as string, readSigningKey(opts.serviceAccountSigningKeyFile), keys)
    : undefined;
  // As kube-apiserver: one union of the token authenticators behind the token cache, for requests and TokenReview.
  const tokens =
    tokenAuthenticators.length > 0
      ? [
          cachedTokenAuthenticator(tokenUnion(tokenAuthenticators), {
            ...(opts.tokenSuccessCacheTTLMs !== undefined ? { ttlMs: opts.tokenSuccessCacheTTLMs } : {}),
            ...(clock ? { clock } : {}),
          }),
        ]
      : [];
  const authenticators: Authenticator[] = [x509Authenticator];
  if (tokens.length > 0) authenticators.push(bearerTokenAuthenticator(tokens, apiAudiences));
  return {
    authenticators,
    anonymous: opts.anonymousAuth ?? true,
    apiAudiences,
    ...(issuer ? { issuer } : {}),
    getObject,
    tokenAuthenticators: tokens,
    tokenExpiration: {
      ...(opts.serviceAccountMaxTokenExpirationSeconds
        ? { maxSeconds: opts.serviceAccountMaxTokenExpirationSeconds }
        : {}),
      extend: opts.serviceAccountExtendTokenExpiration ?? true,
    },
    stop: () => {
      for (const stop of stops) stop();
    },
  };
}
