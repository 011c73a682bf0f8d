import type { KeyObject } from 'node:crypto';
import { exportJWK, type JWTPayload, SignJWT } from 'jose';
import { withSortedKeys } from '../../../api/go-json.js';
import type { ServiceAccountClaims } from './claims.js';
import { algorithmOf, keyIdOf } from './keys.js';

/**
 * The Cache-Control of the discovery document and the JWKS: upstream's OpenIDMetadataServer lets clients keep them
 * for the hour its static keys may be cached (over the apiserver's usual `no-cache, private`).
 */
export const OPENID_METADATA_CACHE_CONTROL = 'public, max-age=3600';

/** The JWKS's content type (RFC 7517 section 8.5.1), as upstream serves it. */
export const JWKS_CONTENT_TYPE = 'application/jwk-set+json';

/** The members of a public JWK in the order go-jose writes them: use, kty, kid, crv, alg, then the key material. */
const JWK_ORDER = ['use', 'kty', 'kid', 'crv', 'alg', 'k', 'x', 'y', 'n', 'e'];

/**
 * Signs ServiceAccount tokens with the --service-account-signing-key-file key (the key id in the header, as
 * upstream writes it) and publishes what verifies them: the OIDC discovery document and the JWKS of the
 * --service-account-key-file public keys.
 */
export class ServiceAccountTokenIssuer {
  readonly algorithm: string;
  private readonly keyId: string;

  constructor(
    /** The first --service-account-issuer: the `iss` of tokens made here. */
    readonly issuer: string,
    private readonly signingKey: KeyObject,
    private readonly publicKeys: KeyObject[],
  ) {
    this.algorithm = algorithmOf(signingKey);
    this.keyId = keyIdOf(signingKey);
  }

  async sign(claims: ServiceAccountClaims): Promise<string> {
    const { iss: _iss, ...rest } = claims;
    // go-jose merges the claims into a map before encoding them: every object's keys come out sorted.
    return new SignJWT(withSortedKeys({ iss: this.issuer, ...rest }) as JWTPayload)
      .setProtectedHeader({ alg: this.algorithm, kid: this.keyId })
      .sign(this.signingKey);
  }

  /** /openid/v1/jwks: every public key tokens may be verified with. */
  async jwks(): Promise<{ keys: Record<string, unknown>[] }> {
    const keys: Record<string, unknown>[] = [];
    for (const key of this.publicKeys) {
      const jwk: Record<string, unknown> = {
        ...(await exportJWK(key)),
        use: 'sig',
        kid: keyIdOf(key),
        alg: algorithmOf(key),
      };
      const ordered: Record<string, unknown> = {};
      for (const member of JWK_ORDER) if (jwk[member] !== undefined) ordered[member] = jwk[member];
      keys.push(ordered);
    }
    return { keys };
  }

  /** /.well-known/openid-configuration, with the JWKS at jwksUri. */
  openidConfiguration(jwksUri: string): Record<string, unknown> {
    const algorithms = [...new Set(this.publicKeys.map(algorithmOf))].sort();
    return {
      issuer: this.issuer,
      jwks_uri: jwksUri,
      response_types_supported: ['id_token'],
      subject_types_supported: ['public'],
      id_token_signing_alg_values_supported: algorithms,
    };
  }
}
