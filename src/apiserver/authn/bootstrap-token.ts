/**
 * Bootstrap tokens (kube-apiserver's --enable-bootstrap-token-auth; upstream's
 * plugin/pkg/auth/authenticator/token/bootstrap): a bearer token `<id>.<secret>` (6 and 16 characters of [a-z0-9])
 * is the user `system:bootstrap:<id>` in the group `system:bootstrappers` (and the `auth-extra-groups` the Secret
 * lists) when the Secret `kube-system/bootstrap-token-<id>` of type `bootstrap.kubernetes.io/token` holds that secret
 * under `token-secret`, has `usage-bootstrap-authentication: "true"`, is not being deleted and has not expired. This
 * is how `kubeadm join` and a kubelet's TLS bootstrap authenticate before they have a certificate. A token of
 * another form, or one no such Secret accepts, is not recognised (the next authenticator is asked), as upstream.
 */
import { timingSafeEqual } from 'node:crypto';
import {
  BOOTSTRAP_TOKEN_NAMESPACE,
  BOOTSTRAP_TOKEN_SECRET_PREFIX,
  BOOTSTRAP_TOKEN_SECRET_TYPE,
  bootstrapSecretData,
  bootstrapTokenTimeLeft,
} from '../../api/bootstrap-token.js';
import { type Clock, realClock } from '../../util/clock.js';
import type { KubeObject } from '../registry/object.js';
import type { TokenAuthenticator } from './bearer.js';
import type { ObjectGetter } from './serviceaccount/authenticator.js';

export const BOOTSTRAP_USER_PREFIX = 'system:bootstrap:';
export const BOOTSTRAP_DEFAULT_GROUP = 'system:bootstrappers';

const TOKEN = /^([a-z0-9]{6})\.([a-z0-9]{16})$/;
const GROUP = /^system:bootstrappers:[a-z0-9:-]{0,255}[a-z0-9]$/;

/** The token's groups (system:bootstrappers and its valid auth-extra-groups, sorted), or undefined if one is invalid. */
function groupsOf(secret: KubeObject): string[] | undefined {
  const groups = new Set([BOOTSTRAP_DEFAULT_GROUP]);
  const extra = bootstrapSecretData(secret, 'auth-extra-groups');
  if (extra !== '') {
    for (const group of extra.split(',')) {
      if (!GROUP.test(group)) return undefined;
      groups.add(group);
    }
  }
  return [...groups].sort();
}

function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

export function bootstrapTokenAuthenticator(getObject: ObjectGetter, clock: Clock = realClock): TokenAuthenticator {
  return async (token) => {
    const parts = TOKEN.exec(token);
    if (!parts) return undefined;
    const [, id, secretPart] = parts as unknown as [string, string, string];
    const secret = await getObject('secrets', BOOTSTRAP_TOKEN_NAMESPACE, `${BOOTSTRAP_TOKEN_SECRET_PREFIX}${id}`);
    if (!secret || secret.metadata.deletionTimestamp) return undefined;
    if (secret.type !== BOOTSTRAP_TOKEN_SECRET_TYPE || !secret.data) return undefined;
    if (!sameSecret(bootstrapSecretData(secret, 'token-secret'), secretPart)) return undefined;
    if (bootstrapSecretData(secret, 'token-id') !== id) return undefined;
    if (bootstrapTokenTimeLeft(secret, clock.now()) === 0) return undefined;
    if (bootstrapSecretData(secret, 'usage-bootstrap-authentication') !== 'true') return undefined;
    const groups = groupsOf(secret);
    if (!groups) return undefined;
    return { name: `${BOOTSTRAP_USER_PREFIX}${id}`, groups };
  };
}
