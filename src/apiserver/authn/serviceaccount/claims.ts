import { randomUUID } from 'node:crypto';
import type { KubeObject } from '../../registry/object.js';

/** Upstream's default --service-account-issuer as kubeadm sets it. */
export const DEFAULT_SERVICE_ACCOUNT_ISSUER = 'https://kubernetes.default.svc.cluster.local';

/** The prefix of every ServiceAccount user name. */
export const SERVICE_ACCOUNT_USER_PREFIX = 'system:serviceaccount:';

/** The extra keys a pod-bound token's user carries, as upstream names them. */
export const EXTRA_POD_NAME = 'authentication.kubernetes.io/pod-name';
export const EXTRA_POD_UID = 'authentication.kubernetes.io/pod-uid';
export const EXTRA_NODE_NAME = 'authentication.kubernetes.io/node-name';
export const EXTRA_NODE_UID = 'authentication.kubernetes.io/node-uid';
export const EXTRA_CREDENTIAL_ID = 'authentication.kubernetes.io/credential-id';

export interface ObjectRef {
  name: string;
  uid: string;
}

/** The private `kubernetes.io` claim of a ServiceAccount token. */
export interface KubernetesClaim {
  namespace: string;
  serviceaccount: ObjectRef;
  pod?: ObjectRef;
  secret?: ObjectRef;
  node?: ObjectRef;
  /** When a token given an extended lifetime should have expired (a warning after it, not a refusal). */
  warnafter?: number;
}

export interface ServiceAccountClaims {
  iss?: string;
  sub: string;
  aud: string[];
  exp: number;
  iat: number;
  nbf: number;
  jti: string;
  'kubernetes.io': KubernetesClaim;
}

/** What a token may be bound to (TokenRequest's boundObjectRef, resolved). */
export interface BoundObjects {
  pod?: KubeObject;
  secret?: KubeObject;
  node?: KubeObject;
}

function ref(obj: KubeObject): ObjectRef {
  return { name: obj.metadata.name ?? '', uid: obj.metadata.uid ?? '' };
}

export function serviceAccountUserName(namespace: string, name: string): string {
  return `${SERVICE_ACCOUNT_USER_PREFIX}${namespace}:${name}`;
}

/**
 * The claims of a token for a ServiceAccount, as upstream's token.Claims builds them: sub, aud, iat = nbf = now,
 * exp = now + expirationSeconds, a fresh jti, and the `kubernetes.io` claim naming the namespace, the
 * ServiceAccount and whatever the token is bound to (a pod brings its node when it has one).
 */
export function serviceAccountClaims(
  sa: KubeObject,
  bound: BoundObjects,
  expirationSeconds: number,
  audiences: string[],
  nowMs: number,
  warnAfterSeconds = 0,
): ServiceAccountClaims {
  const now = Math.floor(nowMs / 1000);
  const namespace = sa.metadata.namespace ?? '';
  const k8s: KubernetesClaim = { namespace, serviceaccount: ref(sa) };
  if (bound.pod) k8s.pod = ref(bound.pod);
  if (bound.secret) k8s.secret = ref(bound.secret);
  if (bound.node) k8s.node = ref(bound.node);
  if (warnAfterSeconds > 0) k8s.warnafter = now + warnAfterSeconds;
  return {
    sub: serviceAccountUserName(namespace, sa.metadata.name ?? ''),
    aud: audiences,
    exp: now + expirationSeconds,
    iat: now,
    nbf: now,
    jti: randomUUID(),
    'kubernetes.io': k8s,
  };
}
