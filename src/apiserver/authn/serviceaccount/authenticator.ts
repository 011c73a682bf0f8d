import type { KeyObject } from 'node:crypto';
import { decodeJwt, decodeProtectedHeader, errors as joseErrors, jwtVerify } from 'jose';
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
import { algorithmOf } from './keys.js';

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

/** Upstream's leeway for iat/nbf/exp checks. */
const LEEWAY_SECONDS = 60;

function refuse(message: string): never {
  throw new AuthenticationError(message);
}

/**
 * ServiceAccount tokens (JWTs): a token issued by one of our issuers must verify with one of the keys, be within its
 * lifetime, carry one of the API audiences, and still match live objects — the ServiceAccount (same uid, not being
 * deleted), and the pod, secret or node it is bound to. The user is system:serviceaccount:<ns>:<name> in the groups
 * system:serviceaccounts and system:serviceaccounts:<ns>, with the ServiceAccount's uid and the binding in extra.
 */
export function serviceAccountTokenAuthenticator(opts: ServiceAccountAuthenticatorOptions): TokenAuthenticator {
  const clock = opts.clock ?? realClock;
  return async (token, wanted) => {
    const targets = wanted?.length ? wanted : opts.audiences;
    let iss: unknown;
    try {
      if (token.split('.').length !== 3) return undefined;
      iss = decodeJwt(token).iss;
      decodeProtectedHeader(token);
    } catch {
      return undefined;
    }
    if (typeof iss !== 'string' || !opts.issuers.includes(iss)) return undefined;
    const currentDate = new Date(clock.now());
    let payload: Record<string, unknown> | undefined;
    let lastError: unknown;
    for (const key of opts.keys) {
      try {
        ({ payload } = await jwtVerify(token, key, {
          algorithms: [algorithmOf(key)],
          currentDate,
          clockTolerance: LEEWAY_SECONDS,
        }));
        break;
      } catch (err) {
        lastError = err;
        // An expired or not-yet-valid token verified its signature: no other key will do better.
        if (err instanceof joseErrors.JWTExpired || err instanceof joseErrors.JWTClaimValidationFailed) break;
      }
    }
    if (!payload) {
      if (lastError instanceof joseErrors.JWTExpired) refuse('service account token has expired');
      if (lastError instanceof joseErrors.JWTClaimValidationFailed)
        refuse(`service account token ${lastError.message}`);
      refuse('invalid signature');
    }
    const aud = typeof payload.aud === 'string' ? [payload.aud] : Array.isArray(payload.aud) ? payload.aud : [];
    const audiences = targets.filter((a) => aud.includes(a));
    if (audiences.length === 0) {
      refuse(`token audiences ${JSON.stringify(aud)} is invalid for the target audiences ${JSON.stringify(targets)}`);
    }
    if (typeof payload.exp !== 'number') refuse('service account token has no expiry');
    const k8s = payload['kubernetes.io'] as KubernetesClaim | undefined;
    const namespace = k8s?.namespace;
    const sa = k8s?.serviceaccount;
    if (!namespace || !sa?.name || !sa.uid) refuse('service account token claims are incomplete');
    const user = serviceAccountUserName(namespace, sa.name);
    if (payload.sub !== user) refuse('service account token subject does not match its claims');
    // The token is only good while what it names still exists as it was.
    const invalidIfDeletedBefore = clock.now() - LEEWAY_SECONDS * 1000;
    const check = async (
      resource: 'serviceaccounts' | 'pods' | 'secrets' | 'nodes',
      ns: string,
      ref: { name: string; uid: string },
      what: string,
    ) => {
      const obj = await opts.getObject(resource, ns, ref.name);
      if (!obj) refuse(`${what} ${ns ? `${ns}/` : ''}${ref.name} has been deleted`);
      if (obj.metadata.uid !== ref.uid) {
        refuse(`${what} UID (${obj.metadata.uid ?? ''}) does not match claim (${ref.uid})`);
      }
      const deleted = obj.metadata.deletionTimestamp;
      if (deleted && Date.parse(deleted) < invalidIfDeletedBefore) {
        refuse(`${what} ${ns ? `${ns}/` : ''}${ref.name} is marked for deletion`);
      }
    };
    await check('serviceaccounts', namespace, sa, 'ServiceAccount');
    const extra: Record<string, string[]> = {};
    if (k8s.pod) {
      await check('pods', namespace, k8s.pod, 'Pod');
      extra[EXTRA_POD_NAME] = [k8s.pod.name];
      extra[EXTRA_POD_UID] = [k8s.pod.uid];
    }
    if (k8s.secret) await check('secrets', namespace, k8s.secret, 'Secret');
    if (k8s.node) {
      // A pod-bound token names its node for information; only a token bound to the node itself needs it alive.
      if (!k8s.pod) await check('nodes', '', k8s.node, 'Node');
      extra[EXTRA_NODE_NAME] = [k8s.node.name];
      extra[EXTRA_NODE_UID] = [k8s.node.uid];
    }
    if (typeof payload.jti === 'string' && payload.jti) extra[EXTRA_CREDENTIAL_ID] = [`JTI=${payload.jti}`];
    // A token given a year for the safe transition to bound tokens, used past the lifetime it asked for: still
    // good, but the audit event says so, as upstream's does.
    const auditAnnotations: Record<string, string> = {};
    const nowSeconds = Math.floor(clock.now() / 1000);
    if (typeof k8s.warnafter === 'number' && k8s.warnafter > 0 && nowSeconds > k8s.warnafter) {
      auditAnnotations[STALE_TOKEN_ANNOTATION] =
        `subject: ${user}, seconds after warning threshold: ${nowSeconds - k8s.warnafter}`;
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
