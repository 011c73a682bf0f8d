/**
 * OpenID Connect ID tokens (kube-apiserver's --oidc-* flags, which upstream turns into one JWT authenticator): a
 * token whose `iss` is the configured issuer is this authenticator's, and must then be signed with one of the
 * issuer's keys in an allowed algorithm, name the client id in `aud`, be within its lifetime and carry the
 * required claims. The user name comes from the username claim (with its prefix), the groups from the groups
 * claim (a string or a list of strings, each prefixed). Anything else is refused with upstream's reasons.
 */
import { readFileSync } from 'node:fs';
import { compactVerify, decodeJwt, decodeProtectedHeader, errors as joseErrors } from 'jose';
import { goQuote } from '../../../api/validation/go-format.js';
import { type Clock, realClock } from '../../../util/clock.js';
import { AuthenticationError } from '../../filters/authentication.js';
import type { TokenAuthenticator, TokenUser } from '../bearer.js';
import { HTTPSJSONClient } from '../https-json.js';
import { EXTRA_CREDENTIAL_ID } from '../serviceaccount/claims.js';
import { OIDCProvider } from './provider.js';

/** kube-apiserver's --oidc-* flags. */
export interface OIDCOptions {
  /** --oidc-issuer-url: https only. */
  issuerURL: string;
  /** --oidc-client-id: the audience tokens must name. */
  clientID: string;
  /** --oidc-username-claim (default sub). */
  usernameClaim?: string;
  /** --oidc-username-prefix (default: the issuer URL and `#` for claims other than email; `-` for none). */
  usernamePrefix?: string;
  /** --oidc-groups-claim. */
  groupsClaim?: string;
  /** --oidc-groups-prefix. */
  groupsPrefix?: string;
  /** --oidc-required-claim key=value pairs. */
  requiredClaims?: Record<string, string>;
  /** --oidc-ca-file: the CA of the issuer's HTTPS server (default: the system roots). */
  caFile?: string;
  /** --oidc-signing-algs (default RS256). */
  signingAlgs?: string[];
}

/** The algorithms --oidc-signing-algs may name (upstream's list). */
export const OIDC_SIGNING_ALGORITHMS = [
  'RS256',
  'RS384',
  'RS512',
  'ES256',
  'ES384',
  'ES512',
  'PS256',
  'PS384',
  'PS512',
];

/** go-oidc's allowance for clocks that disagree, on `nbf`. */
const NBF_SKEW_SECONDS = 5 * 60;

/**
 * The flags checked as kube-apiserver checks them at start-up; throws with upstream's message. disallowedIssuers:
 * the ServiceAccount issuers, which an OIDC issuer may not be.
 */
export function validateOIDCOptions(opts: Partial<OIDCOptions>, disallowedIssuers: string[] = []): void {
  if (!opts.issuerURL || !opts.clientID) {
    throw new Error('oidc-issuer-url and oidc-client-id must be specified together when any oidc-* flags are set');
  }
  if (disallowedIssuers.includes(opts.issuerURL)) {
    throw new Error(
      `invalid authentication configuration: jwt[0].issuer.url: Invalid value: ${JSON.stringify(opts.issuerURL)}: URL must not overlap with disallowed issuers: [${[...new Set(disallowedIssuers)].sort().join(' ')}]`,
    );
  }
  let url: URL | undefined;
  try {
    url = new URL(opts.issuerURL);
  } catch {
    url = undefined;
  }
  if (url?.protocol !== 'https:') {
    throw new Error(
      `invalid authentication configuration: jwt[0].issuer.url: Invalid value: ${JSON.stringify(opts.issuerURL)}: URL scheme must be https`,
    );
  }
  for (const alg of opts.signingAlgs ?? []) {
    if (!OIDC_SIGNING_ALGORITHMS.includes(alg)) {
      throw new Error(`oidc: unsupported signing alg: ${JSON.stringify(alg)}`);
    }
  }
}

/** The username prefix the flags mean, as upstream works it out. */
export function usernamePrefixOf(opts: Pick<OIDCOptions, 'issuerURL' | 'usernameClaim' | 'usernamePrefix'>): string {
  const claim = opts.usernameClaim || 'sub';
  if (opts.usernamePrefix === '-') return '';
  if (!opts.usernamePrefix && claim !== 'email') return `${opts.issuerURL}#`;
  return opts.usernamePrefix ?? '';
}

/** Go's time.Time text, as go-oidc writes it in its expiry message. */
function goTime(seconds: number): string {
  return `${new Date(seconds * 1000)
    .toISOString()
    .replace('T', ' ')
    .replace(/\.\d+Z$/, '')} +0000 UTC`;
}

function refuse(message: string): never {
  throw new AuthenticationError(message);
}

/** A claim as a Go string, or the error json.Unmarshal would give. */
function stringClaim(claims: Record<string, unknown>, name: string, what: string): string {
  if (!(name in claims)) refuse(`oidc: parse ${what} ${JSON.stringify(name)}: claim not present`);
  const value = claims[name];
  // JSON null decodes to nothing in Go: the empty string.
  if (value === null) return '';
  if (typeof value !== 'string') {
    refuse(
      `oidc: parse ${what} ${JSON.stringify(name)}: json: cannot unmarshal ${typeof value} into Go value of type string`,
    );
  }
  return value;
}

/**
 * Why a signature did not verify, as go-oidc's remote key set says it: no key of the set (after fetching it again)
 * verifies the token. Other failures (a malformed token) keep their own words.
 */
function signatureFailure(err: unknown): string {
  const keyProblem =
    err instanceof joseErrors.JWSSignatureVerificationFailed ||
    err instanceof joseErrors.JWKSNoMatchingKey ||
    err instanceof joseErrors.JWKSMultipleMatchingKeys;
  return keyProblem ? 'failed to verify id token signature' : (err as Error).message;
}

export interface OIDCAuthenticator {
  authenticate: TokenAuthenticator;
  /** Fetches discovery and keys now (the first token would otherwise), so that a bad issuer shows up in the log. */
  prefetch(): Promise<void>;
  stop(): void;
}

export function oidcAuthenticator(
  opts: OIDCOptions,
  clock: Clock = realClock,
  disallowedIssuers: string[] = [],
): OIDCAuthenticator {
  validateOIDCOptions(opts, disallowedIssuers);
  const client = new HTTPSJSONClient(opts.caFile ? { tls: { ca: readFileSync(opts.caFile) } } : {});
  const provider = new OIDCProvider(opts.issuerURL, client, clock);
  const algorithms = opts.signingAlgs?.length ? opts.signingAlgs : ['RS256'];
  const usernameClaim = opts.usernameClaim || 'sub';
  const usernamePrefix = usernamePrefixOf(opts);

  const verifySignature = async (token: string): Promise<Record<string, unknown>> => {
    let keys: Awaited<ReturnType<OIDCProvider['keySet']>>;
    try {
      keys = await provider.keySet();
    } catch {
      // Upstream's words; why goes to the log (the apiserver logs the prefetch's failure).
      refuse('oidc: authenticator not initialized');
    }
    const verify = async (set: typeof keys) =>
      JSON.parse(new TextDecoder().decode((await compactVerify(token, set, { algorithms })).payload)) as Record<
        string,
        unknown
      >;
    try {
      return await verify(keys);
    } catch (err) {
      // A key the set does not hold: the issuer may have rotated its keys since they were fetched.
      if (err instanceof joseErrors.JWKSNoMatchingKey || err instanceof joseErrors.JWKSMultipleMatchingKeys) {
        try {
          return await verify(await provider.refresh());
        } catch (again) {
          refuse(`oidc: verify token: failed to verify signature: ${signatureFailure(again)}`);
        }
      }
      refuse(`oidc: verify token: failed to verify signature: ${signatureFailure(err)}`);
    }
  };

  const authenticate: TokenAuthenticator = async (token) => {
    let iss: unknown;
    let alg: unknown;
    try {
      if (token.split('.').length !== 3) return undefined;
      iss = decodeJwt(token).iss;
      alg = decodeProtectedHeader(token).alg;
    } catch {
      return undefined;
    }
    // Only tokens of our issuer are ours; others are left to the next authenticator.
    if (iss !== opts.issuerURL) return undefined;
    if (typeof alg !== 'string' || !algorithms.includes(alg)) {
      refuse(
        `oidc: verify token: oidc: id token signed with unsupported algorithm, expected ${JSON.stringify(algorithms)} got ${JSON.stringify(alg)}`,
      );
    }
    const claims = await verifySignature(token);
    const aud = typeof claims.aud === 'string' ? [claims.aud] : Array.isArray(claims.aud) ? claims.aud : [];
    if (!aud.includes(opts.clientID)) {
      // The structured JWT authenticator's words, its audiences and the token's as Go's %q prints string slices.
      const goList = (items: unknown[]) => `[${items.map((a) => goQuote(String(a))).join(' ')}]`;
      refuse(`oidc: verify token: oidc: expected audience in ${goList([opts.clientID])} got ${goList(aud)}`);
    }
    const now = clock.now() / 1000;
    const exp = typeof claims.exp === 'number' ? claims.exp : 0;
    if (now > exp) refuse(`oidc: verify token: oidc: token is expired (Token Expiry: ${goTime(exp)})`);
    if (typeof claims.nbf === 'number' && now + NBF_SKEW_SECONDS < claims.nbf) {
      refuse(
        `oidc: verify token: oidc: current time ${goTime(Math.floor(now))} before the nbf (not before) time: ${goTime(claims.nbf)}`,
      );
    }
    let username = stringClaim(claims, usernameClaim, 'username claims');
    if (usernameClaim === 'email' && 'email_verified' in claims) {
      const verified = claims.email_verified;
      if (typeof verified !== 'boolean') {
        refuse(
          `oidc: parse 'email_verified' claim: json: cannot unmarshal ${typeof verified} into Go value of type bool`,
        );
      }
      if (!verified) refuse('oidc: email not verified');
    }
    if (!username) refuse(`oidc: the username claim ${JSON.stringify(usernameClaim)} is empty`);
    username = usernamePrefix + username;
    let groups: string[] = [];
    if (opts.groupsClaim && opts.groupsClaim in claims) {
      const value = claims[opts.groupsClaim];
      // JSON null decodes to nothing in Go: no groups.
      if (value === null) groups = [];
      else if (typeof value === 'string') groups = [value];
      else if (Array.isArray(value) && value.every((g) => typeof g === 'string')) groups = value as string[];
      else {
        refuse(
          `oidc: parse groups claim ${JSON.stringify(opts.groupsClaim)}: json: cannot unmarshal ${Array.isArray(value) ? 'array' : typeof value} into Go value of type string`,
        );
      }
    }
    if (opts.groupsPrefix) groups = groups.map((g) => `${opts.groupsPrefix}${g}`);
    for (const [claim, want] of Object.entries(opts.requiredClaims ?? {})) {
      if (!(claim in claims)) refuse(`oidc: required claim ${claim} not present in ID token`);
      const got = claims[claim];
      if (typeof got !== 'string') {
        refuse(`oidc: parse claim ${claim}: json: cannot unmarshal ${typeof got} into Go value of type string`);
      }
      if (got !== want) refuse(`oidc: required claim ${claim} value does not match. Got = ${got}, want = ${want}`);
    }
    const user: TokenUser = { name: username, groups };
    // A jti claim names the credential, as for ServiceAccount tokens.
    if (typeof claims.jti === 'string') user.extra = { [EXTRA_CREDENTIAL_ID]: [`JTI=${claims.jti}`] };
    return user;
  };

  return {
    authenticate,
    prefetch: async () => {
      await provider.keySet();
    },
    stop: () => client.close(),
  };
}
