/**
 * Legacy ServiceAccount tokens (upstream's legacyValidator): the non-expiring JWTs with issuer
 * `kubernetes/serviceaccount` that serviceaccount-token-controller writes into Secrets of type
 * kubernetes.io/service-account-token. Such a token is good while its Secret exists and still holds this very token,
 * and its ServiceAccount exists with the uid it names. Legacy tokens have no audience: they are good for any.
 */
import type { KeyObject } from 'node:crypto';
import { decodeJwt, jwtVerify } from 'jose';
import { AuthenticationError } from '../../filters/authentication.js';
import type { TokenAuthenticator } from '../bearer.js';
import type { ObjectGetter } from './authenticator.js';
import { serviceAccountUserName } from './claims.js';
import { algorithmOf } from './keys.js';

export const LEGACY_ISSUER = 'kubernetes/serviceaccount';
/** The audit annotation upstream adds to requests made with a legacy token. */
export const LEGACY_TOKEN_ANNOTATION = 'authentication.k8s.io/legacy-token';

function refuse(message: string): never {
  throw new AuthenticationError(message);
}

export function legacyServiceAccountTokenAuthenticator(opts: {
  keys: KeyObject[];
  audiences: string[];
  getObject: ObjectGetter;
}): TokenAuthenticator {
  return async (token, wanted) => {
    let iss: unknown;
    try {
      if (token.split('.').length !== 3) return undefined;
      iss = decodeJwt(token).iss;
    } catch {
      return undefined;
    }
    if (iss !== LEGACY_ISSUER) return undefined;
    let payload: Record<string, unknown> | undefined;
    for (const key of opts.keys) {
      try {
        ({ payload } = await jwtVerify(token, key, { algorithms: [algorithmOf(key)] }));
        break;
      } catch {
        // the next key
      }
    }
    if (!payload) refuse('invalid signature');
    const claim = (name: string) => {
      const v = payload[`kubernetes.io/serviceaccount/${name}`];
      return typeof v === 'string' ? v : '';
    };
    const namespace = claim('namespace');
    const secretName = claim('secret.name');
    const saName = claim('service-account.name');
    const saUid = claim('service-account.uid');
    if (!namespace || !secretName || !saName || !saUid) refuse('service account token claims are incomplete');
    const user = serviceAccountUserName(namespace, saName);
    if (payload.sub !== user) refuse('service account token subject does not match its claims');
    const secret = await opts.getObject('secrets', namespace, secretName);
    if (!secret || secret.metadata.deletionTimestamp) refuse('token has been invalidated');
    const data = (secret as { data?: Record<string, string> }).data;
    if (Buffer.from(data?.token ?? '', 'base64').toString('utf8') !== token) {
      refuse("token does not match server's copy");
    }
    const sa = await opts.getObject('serviceaccounts', namespace, saName);
    if (!sa) refuse(`serviceaccounts "${saName}" not found`);
    if (sa.metadata.deletionTimestamp) refuse(`ServiceAccount ${namespace}/${saName} has been deleted`);
    if (sa.metadata.uid !== saUid)
      refuse(`ServiceAccount UID (${sa.metadata.uid ?? ''}) does not match claim (${saUid})`);
    return {
      audiences: wanted?.length ? wanted : opts.audiences,
      name: user,
      uid: saUid,
      groups: ['system:serviceaccounts', `system:serviceaccounts:${namespace}`],
      auditAnnotations: { [LEGACY_TOKEN_ANNOTATION]: user },
    };
  };
}
