/**
 * An OpenID Connect issuer as kube-apiserver's JWT authenticator sees it: the discovery document at
 * <issuer>/.well-known/openid-configuration (whose `issuer` must be the configured URL exactly), and the key set at
 * its jwks_uri, kept in memory and fetched again when a token names a key the set does not hold (the issuer rotated
 * its keys), as go-oidc's remote key set does; concurrent refreshes share one fetch. An issuer that could not be
 * reached is asked again at most once a second.
 */
import { createLocalJWKSet, type JSONWebKeySet } from 'jose';
import { type Clock, realClock } from '../../../util/clock.js';
import type { HTTPSJSONClient } from '../https-json.js';

type KeySet = ReturnType<typeof createLocalJWKSet>;

const RETRY_INTERVAL_MS = 1000;

export class OIDCProvider {
  private keys: KeySet | undefined;
  private jwksURI: string | undefined;
  private fetchedAt = 0;
  private inFlight: Promise<KeySet> | undefined;
  private lastError: Error | undefined;

  constructor(
    readonly issuerURL: string,
    private readonly client: HTTPSJSONClient,
    private readonly clock: Clock = realClock,
  ) {}

  /** The key set, fetched (with discovery) on first use. */
  async keySet(): Promise<KeySet> {
    return this.keys ?? this.refresh();
  }

  /** Fetches the keys again; concurrent callers share one fetch. */
  async refresh(): Promise<KeySet> {
    // An issuer that could not be reached a moment ago is not asked again for every token.
    const recent = this.clock.now() - this.fetchedAt < RETRY_INTERVAL_MS;
    if (recent && this.lastError && !this.inFlight) throw this.lastError;
    this.inFlight ??= this.fetch().finally(() => {
      this.inFlight = undefined;
    });
    return this.inFlight;
  }

  private async fetch(): Promise<KeySet> {
    this.fetchedAt = this.clock.now();
    try {
      return await this.fetchKeys();
    } catch (err) {
      this.lastError = err as Error;
      throw err;
    }
  }

  private async fetchKeys(): Promise<KeySet> {
    if (!this.jwksURI) this.jwksURI = await this.discover();
    const body = (await this.client.get(this.jwksURI)) as JSONWebKeySet;
    if (!body || !Array.isArray(body.keys)) throw new Error(`oidc: the key set at ${this.jwksURI} has no keys`);
    this.keys = createLocalJWKSet(body);
    this.lastError = undefined;
    return this.keys;
  }

  private async discover(): Promise<string> {
    const wellKnown = `${this.issuerURL.replace(/\/+$/, '')}/.well-known/openid-configuration`;
    const doc = (await this.client.get(wellKnown)) as { issuer?: unknown; jwks_uri?: unknown } | null;
    if (!doc || typeof doc !== 'object') throw new Error('oidc: failed to decode provider discovery object');
    if (doc.issuer !== this.issuerURL) {
      throw new Error(
        `oidc: issuer did not match the issuer returned by provider, expected ${JSON.stringify(this.issuerURL)} got ${JSON.stringify(doc.issuer)}`,
      );
    }
    if (typeof doc.jwks_uri !== 'string' || !doc.jwks_uri)
      throw new Error('oidc: the discovery document has no jwks_uri');
    return doc.jwks_uri;
  }
}
