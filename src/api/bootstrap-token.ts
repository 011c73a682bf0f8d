/**
 * Bootstrap token Secrets (upstream's k8s.io/cluster-bootstrap): a token `<id>.<secret>` lives in the Secret
 * `kube-system/bootstrap-token-<id>` of type `bootstrap.kubernetes.io/token`, its data holding `token-id`,
 * `token-secret`, an optional RFC 3339 `expiration`, the `usage-bootstrap-*` flags and `auth-extra-groups`. Read by
 * the apiserver's bootstrap token authenticator and by the controller manager's token cleaner.
 */
import { createHmac } from 'node:crypto';
import { parseGoTime } from './go-time.js';

export const BOOTSTRAP_TOKEN_SECRET_TYPE = 'bootstrap.kubernetes.io/token';
export const BOOTSTRAP_TOKEN_SECRET_PREFIX = 'bootstrap-token-';
/** Where bootstrap token Secrets live. */
export const BOOTSTRAP_TOKEN_NAMESPACE = 'kube-system';

/** A Secret as any layer holds it: a plain object whose `data` values are base64. */
type SecretLike = object;

/** Whether a Secret is a bootstrap token's: its type, in kube-system (what the token controllers look at). */
export function isBootstrapTokenSecret(secret: { type?: unknown; metadata: { namespace?: string } }): boolean {
  return secret.type === BOOTSTRAP_TOKEN_SECRET_TYPE && secret.metadata.namespace === BOOTSTRAP_TOKEN_NAMESPACE;
}

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

/** The ConfigMap kube-public/cluster-info that kubeadm makes and the bootstrap signer signs. */
export const CLUSTER_INFO_NAMESPACE = 'kube-public';
export const CLUSTER_INFO_NAME = 'cluster-info';
/** Its key holding a kubeconfig with the cluster's address and CA only. */
export const CLUSTER_INFO_KUBECONFIG_KEY = 'kubeconfig';
/** Its keys holding each signing token's detached signature of that kubeconfig. */
export const JWS_SIGNATURE_KEY_PREFIX = 'jws-kubeconfig-';

/**
 * The token's id and secret when it may sign cluster-info (upstream's validateSecretForSigning): the Secret's name
 * carries the id its token-id holds, it has a token-secret, has not expired and says usage-bootstrap-signing "true".
 */
export function signingToken(secret: object & { metadata?: { name?: string } }, nowMs: number) {
  const nameId = /^bootstrap-token-([a-z0-9]{6})$/.exec(secret.metadata?.name ?? '')?.[1];
  const id = bootstrapSecretData(secret, 'token-id');
  const tokenSecret = bootstrapSecretData(secret, 'token-secret');
  if (!nameId || id === '' || id !== nameId || tokenSecret === '') return undefined;
  if (bootstrapTokenTimeLeft(secret, nowMs) === 0) return undefined;
  if (bootstrapSecretData(secret, 'usage-bootstrap-signing') !== 'true') return undefined;
  return { id, secret: tokenSecret };
}

/**
 * A detached compact JWS of content (upstream's jws.ComputeDetachedSignature): HS256 keyed with the token's secret,
 * the protected header `{"alg":"HS256","kid":"<id>"}` (go-jose's key order), the payload left out: `header..sig`.
 * `kubeadm join` computes the same and compares the strings.
 */
export function detachedSignature(content: string, tokenId: string, tokenSecret: string): string {
  const header = Buffer.from(JSON.stringify({ alg: 'HS256', kid: tokenId })).toString('base64url');
  const payload = Buffer.from(content).toString('base64url');
  const sig = createHmac('sha256', tokenSecret).update(`${header}.${payload}`).digest('base64url');
  return `${header}..${sig}`;
}
