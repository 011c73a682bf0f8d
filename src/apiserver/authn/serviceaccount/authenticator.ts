import type { KeyObject } from 'node:crypto';
import { compactVerify, decodeProtectedHeader } from 'jose';
import { goQuote, goQuoteList } from '../../../api/validation/go-format.js';
import { type Clock, realClock } from '../../../util/clock.js';
import { AuthenticationError } from '../../filters/authentication.js';
import type { KubeObject } from '../../registry/object.js';
import type { TokenAuthenticator, TokenUser } from '../bearer.js';
import {
  EXTRA_CREDENTIAL_ID,
  EXTRA_NODE_NAME,
  EXTRA_NODE_UID,
  EXTRA_POD_NAME,
  EXTRA_POD_UID,
  type KubernetesClaim,
  serviceAccountUserName,
} from './claims.js';
import { algorithmOf, keyIdOf } from './keys.js';

/** Reads a live object for token validation (undefined when it does not exist). */
export type ObjectGetter = (
  resource: 'serviceaccounts' | 'pods' | 'secrets' | 'nodes',
  namespace: string,
  name: string,
) => Promise<KubeObject | undefined>;

export interface ServiceAccountAuthenticatorOptions {
  /** --service-account-issuer values: a token from any of them is this authenticator's. */
  issuers: string[];
  /** --api-audiences: the token must name at least one. */
  audiences: string[];
  /** --service-account-key-file keys. */
  keys: KeyObject[];
  /** Live lookups: a bound token is refused once its ServiceAccount, pod, secret or node is gone or replaced. */
  getObject: ObjectGetter;
  clock?: Clock;
}

/** The audit annotation of an extended token used after its warnafter time. */
export const STALE_TOKEN_ANNOTATION = 'authentication.k8s.io/stale-token';

/** Upstream's leeway (go-jose's DefaultLeeway) for the nbf, exp and iat checks and for deletion, in ms. */
const LEEWAY_MS = 60_000;

/** The refusal upstream gives when a bound object is gone or being deleted. */
export const TOKEN_INVALIDATED = 'service account token has been invalidated';

function refuse(message: string): never {
  throw new AuthenticationError(message);
}

/** The unverified payload of a compact JWS (undefined when it is not one), as upstream's hasCorrectIssuer reads it. */
function unverifiedPayload(token: string): Record<string, unknown> | undefined {
  if (token.trim().startsWith('{')) return undefined;
  const parts = token.split('.');
  if (parts.length !== 3) return undefined;
  try {
    const payload: unknown = JSON.parse(Buffer.from(parts[1] ?? '', 'base64url').toString('utf8'));
    return payload && typeof payload === 'object' && !Array.isArray(payload)
      ? (payload as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** A NumericDate claim in ms (Go's NumericDate keeps whole seconds), or undefined when absent. */
function numericDateMs(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? Math.trunc(value) * 1000 : undefined;
}

/**
 * Finds the key that verifies a token, as upstream's JWT authenticator does: the keys with the token's key id (all
 * of them when it names none), each tried in turn; the verified payload, or the refusal.
 */
export async function verifiedPayload(token: string, keys: KeyObject[]): Promise<Record<string, unknown>> {
  let kid: unknown;
  try {
    kid = decodeProtectedHeader(token).kid;
  } catch {
    kid = undefined;
  }
  const candidates = typeof kid === 'string' && kid !== '' ? keys.filter((k) => keyIdOf(k) === kid) : keys;
  if (candidates.length === 0) refuse('invalid signature, no keys found');
  for (const key of candidates) {
    try {
      const { payload } = await compactVerify(token, key, { algorithms: [algorithmOf(key)] });
      const claims: unknown = JSON.parse(new TextDecoder().decode(payload));
      if (claims && typeof claims === 'object' && !Array.isArray(claims)) return claims as Record<string, unknown>;
    } catch {
      // the next key
    }
  }
  refuse('invalid signature');
}

/**
 * The audiences a token is good for, of those asked for (upstream's jwt.go): a token naming none is good for the
 * API audiences; none in common is refused with Go's %q of both lists.
 */
export function grantedAudiences(aud: unknown, requested: string[], apiAudiences: string[]): string[] {
  const named = typeof aud === 'string' ? [aud] : Array.isArray(aud) ? aud.filter((a) => typeof a === 'string') : [];
  const tokenAudiences = named.length > 0 ? named : apiAudiences;
  const granted = requested.filter((a) => tokenAudiences.includes(a));
  if (granted.length === 0 && apiAudiences.length > 0) {
    refuse(
      `token audiences ${goQuoteList(tokenAudiences)} is invalid for the target audiences ${goQuoteList(requested)}`,
    );
  }
  return granted;
}

/**
 * ServiceAccount tokens (JWTs), checked in upstream's order (pkg/serviceaccount jwt.go, then claims.go's Validate):
 * a token issued by one of our issuers must verify with a key of its key id; it must name one of the audiences asked
 * for (the API audiences by default); then its nbf, exp and iat must hold (60 s of leeway); then what it names must
 * still be as it was — the ServiceAccount (same uid, not deleted), and the secret, pod or node it is bound to. The user
 * is system:serviceaccount:<ns>:<name> in the groups system:serviceaccounts and system:serviceaccounts:<ns>, with the
 * ServiceAccount's uid and the binding in extra. Refusals read as upstream's.
 */
export function serviceAccountTokenAuthenticator(opts: ServiceAccountAuthenticatorOptions): TokenAuthenticator {
  const clock = opts.clock ?? realClock;
  return async (token, wanted) => {
    const unverified = unverifiedPayload(token);
    if (typeof unverified?.iss !== 'string' || !opts.issuers.includes(unverified.iss)) return undefined;
    try {
      decodeProtectedHeader(token);
    } catch {
      return undefined;
    }
    const payload = await verifiedPayload(token, opts.keys);
    if (typeof payload.iss !== 'string' || !opts.issuers.includes(payload.iss)) {
      refuse(`token issuer ${goQuote(String(payload.iss ?? ''))} is invalid`);
    }
    const audiences = grantedAudiences(payload.aud, wanted?.length ? wanted : opts.audiences, opts.audiences);
    // claims.go's Validate: the times first, as go-jose checks them (nbf, exp, iat), then the objects named.
    const now = clock.now();
    const nbf = numericDateMs(payload.nbf);
    if (nbf !== undefined && now + LEEWAY_MS < nbf) refuse('service account token is not valid yet');
    const exp = numericDateMs(payload.exp);
    if (exp !== undefined && now - LEEWAY_MS > exp) refuse('service account token has expired');
    const iat = numericDateMs(payload.iat);
    if (iat !== undefined && now + LEEWAY_MS < iat) refuse('service account token is issued in the future');
    const k8s = payload['kubernetes.io'] as KubernetesClaim | undefined;
    const namespace = k8s?.namespace;
    const sa = k8s?.serviceaccount;
    if (!namespace || !sa?.name || !sa.uid) refuse('service account token claims are incomplete');
    const user = serviceAccountUserName(namespace, sa.name);
    if (payload.sub !== user) refuse('service account token subject does not match its claims');
    // Things deleted before now minus the leeway no longer count.
    const deletedLongAgo = (o: KubeObject) => {
      const deleted = o.metadata.deletionTimestamp;
      return deleted !== undefined && Date.parse(deleted) < now - LEEWAY_MS;
    };
    const account = await opts.getObject('serviceaccounts', namespace, sa.name);
    if (!account) refuse(`serviceaccounts ${goQuote(sa.name)} not found`);
    if (account.metadata.uid !== sa.uid) {
      refuse(`service account UID (${account.metadata.uid ?? ''}) does not match claim (${sa.uid})`);
    }
    if (deletedLongAgo(account)) refuse(`service account ${namespace}/${sa.name} has been deleted`);
    /** A bound object: gone or being deleted invalidates the token; another uid is named. */
    const checkBound = async (
      resource: 'secrets' | 'pods' | 'nodes',
      ns: string,
      ref: { name: string; uid: string },
      what: string,
    ) => {
      const bound = await opts.getObject(resource, ns, ref.name);
      if (!bound) refuse(TOKEN_INVALIDATED);
      if (bound.metadata.uid !== ref.uid) {
        refuse(
          `${what} UID (${bound.metadata.uid ?? ''}) does not match service account ${what} ref claim (${ref.uid})`,
        );
      }
      if (deletedLongAgo(bound)) refuse(TOKEN_INVALIDATED);
    };
    if (k8s.secret) await checkBound('secrets', namespace, k8s.secret, 'secret');
    const extra: Record<string, string[]> = {};
    if (k8s.pod) {
      await checkBound('pods', namespace, k8s.pod, 'pod');
      extra[EXTRA_POD_NAME] = [k8s.pod.name];
      extra[EXTRA_POD_UID] = [k8s.pod.uid];
    }
    if (k8s.node) {
      // A pod-bound token names its node for information; only a token bound to the node itself needs it alive.
      if (!k8s.pod) await checkBound('nodes', '', k8s.node, 'node');
      extra[EXTRA_NODE_NAME] = [k8s.node.name];
      extra[EXTRA_NODE_UID] = [k8s.node.uid];
    }
    if (typeof payload.jti === 'string' && payload.jti) extra[EXTRA_CREDENTIAL_ID] = [`JTI=${payload.jti}`];
    // A token given a year for the safe transition to bound tokens, used past the lifetime it asked for: still
    // good, but the audit event says so, as upstream's does.
    const auditAnnotations: Record<string, string> = {};
    const warnAfter = numericDateMs(k8s.warnafter);
    if (warnAfter !== undefined && warnAfter > 0 && now > warnAfter) {
      auditAnnotations[STALE_TOKEN_ANNOTATION] =
        `subject: ${user}, seconds after warning threshold: ${Math.floor(now / 1000) - warnAfter / 1000}`;
    }
    const info: TokenUser = {
      audiences,
      name: user,
      uid: sa.uid,
      groups: ['system:serviceaccounts', `system:serviceaccounts:${namespace}`],
      ...(Object.keys(extra).length > 0 ? { extra } : {}),
      ...(Object.keys(auditAnnotations).length > 0 ? { auditAnnotations } : {}),
    };
    return info;
  };
}
