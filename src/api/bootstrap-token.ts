/**
 * Bootstrap token Secrets (upstream's k8s.io/cluster-bootstrap): a token `<id>.<secret>` lives in the Secret
 * `kube-system/bootstrap-token-<id>` of type `bootstrap.kubernetes.io/token`, its data holding `token-id`,
 * `token-secret`, an optional RFC 3339 `expiration`, the `usage-bootstrap-*` flags and `auth-extra-groups`. Read by
 * the apiserver's bootstrap token authenticator and by the controller manager's token cleaner.
 */
import { parseGoTime } from './go-time.js';

export const BOOTSTRAP_TOKEN_SECRET_TYPE = 'bootstrap.kubernetes.io/token';
export const BOOTSTRAP_TOKEN_SECRET_PREFIX = 'bootstrap-token-';
/** Where bootstrap token Secrets live. */
export const BOOTSTRAP_TOKEN_NAMESPACE = 'kube-system';

/** A Secret as any layer holds it: a plain object whose `data` values are base64. */
type SecretLike = object;

/** A value of the Secret's data, decoded ('' when absent), as upstream's GetData. */
export function bootstrapSecretData(secret: SecretLike, key: string): string {
  const data = (secret as { data?: unknown }).data;
  if (!data || typeof data !== 'object') return '';
  const value = (data as Record<string, unknown>)[key];
  return typeof value === 'string' ? Buffer.from(value, 'base64').toString('utf8') : '';
}

/**
 * How long until the token's `expiration`, in ms (upstream's GetExpiration): undefined when it has none; 0 when it
 * has passed or does not parse (an unparseable expiration counts as expired).
 */
export function bootstrapTokenTimeLeft(secret: SecretLike, nowMs: number): number | undefined {
  const expiration = bootstrapSecretData(secret, 'expiration');
  if (expiration === '') return undefined;
  const t = parseGoTime(expiration, 'time');
  if ('error' in t) return 0;
  return Math.max(0, t.seconds * 1000 + Math.floor(t.nanos / 1e6) - nowMs);
}
