/**
 * AdmissionReview (admission.k8s.io/v1, or v1beta1 for a webhook that only names that): the request a webhook is
 * sent for one invocation, and the checks upstream's VerifyAdmissionResponse makes of its answer.
 */
import { randomUUID } from 'node:crypto';
import type { KubeObject } from '../../registry/object.js';
import type { AdmissionAttributes } from '../types.js';
import type { WebhookInvocation } from './matching.js';

export const ADMISSION_GROUP = 'admission.k8s.io';

/** The first version of the webhook's list this server speaks; undefined when it speaks none of them. */
export function reviewVersionFor(versions: readonly string[]): 'v1' | 'v1beta1' | undefined {
  for (const v of versions) if (v === 'v1' || v === 'v1beta1') return v;
  return undefined;
}

export interface ReviewRequest {
  uid: string;
  body: Record<string, unknown>;
}

/** The objects of the invocation as the webhook sees them (converted when the invocation names another version). */
export interface InvocationObjects {
  object: KubeObject | undefined;
  oldObject: KubeObject | undefined;
}

export function admissionReview(
  version: 'v1' | 'v1beta1',
  attrs: AdmissionAttributes,
  invocation: WebhookInvocation,
  objects: InvocationObjects,
): ReviewRequest {
  const uid = randomUUID();
  const user = attrs.userInfo;
  const userInfo: Record<string, unknown> = { username: user?.name ?? '' };
  if (user?.uid) userInfo.uid = user.uid;
  if (user?.groups?.length) userInfo.groups = user.groups;
  if (user?.extra && Object.keys(user.extra).length > 0) userInfo.extra = user.extra;
  // Upstream's attributes carry a Namespace's own name as its namespace.
  const namespaceObject = attrs.resource.group === '' && attrs.resource.resource === 'namespaces';
  const namespace = attrs.namespace || (namespaceObject ? attrs.name : '');
  const request: Record<string, unknown> = {
    uid,
    kind: invocation.kind,
    resource: invocation.resource,
    ...(attrs.subresource ? { subResource: attrs.subresource } : {}),
    requestKind: attrs.kind,
    requestResource: attrs.resource,
    ...(attrs.subresource ? { requestSubResource: attrs.subresource } : {}),
    ...(attrs.name ? { name: attrs.name } : {}),
    ...(namespace ? { namespace } : {}),
    operation: attrs.operation,
    userInfo,
    object: objects.object ?? null,
    oldObject: objects.oldObject ?? null,
    dryRun: attrs.dryRun,
    options: attrs.options ?? null,
  };
  return { uid, body: { apiVersion: `${ADMISSION_GROUP}/${version}`, kind: 'AdmissionReview', request } };
}

/** What a valid answer says. */
export interface AdmissionResponse {
  allowed: boolean;
  result: unknown;
  /** The JSON patch, decoded from base64 (still text). */
  patch: string | undefined;
  patchType: string | undefined;
  warnings: string[];
  auditAnnotations: Record<string, string>;
}

/** Upstream's VerifyAdmissionResponse: the answer, or the reason it cannot be used. */
export function verifyAdmissionResponse(
  version: 'v1' | 'v1beta1',
  uid: string,
  mutating: boolean,
  review: unknown,
): AdmissionResponse | string {
  const r = review !== null && typeof review === 'object' ? (review as Record<string, unknown>) : {};
  const response = r.response;
  if (response === null || typeof response !== 'object') return 'webhook response was absent';
  const res = response as Record<string, unknown>;
  const rawPatch = typeof res.patch === 'string' && res.patch !== '' ? res.patch : undefined;
  const patchType = typeof res.patchType === 'string' ? res.patchType : undefined;
  if (version === 'v1beta1') {
    // v1beta1 answers were never checked for uid, kind or patch pairing; a validating one's patch is ignored, and a
    // mutating one's is JSONPatch whatever its patchType says (upstream pins it to the one type there is).
    const patch = mutating ? rawPatch : undefined;
    return responseOf(res, patch, patch === undefined ? undefined : 'JSONPatch');
  }
  const gotUid = typeof res.uid === 'string' ? res.uid : '';
  if (gotUid !== uid) return `expected response.uid=${JSON.stringify(uid)}, got ${JSON.stringify(gotUid)}`;
  const apiVersion = typeof r.apiVersion === 'string' ? r.apiVersion : '';
  const kind = typeof r.kind === 'string' ? r.kind : '';
  const slash = apiVersion.indexOf('/');
  const group = slash < 0 ? '' : apiVersion.slice(0, slash);
  const ver = slash < 0 ? apiVersion : apiVersion.slice(slash + 1);
  if (apiVersion !== `${ADMISSION_GROUP}/v1` || kind !== 'AdmissionReview') {
    return `expected webhook response of ${ADMISSION_GROUP}/v1, Kind=AdmissionReview, got ${group}/${ver}, Kind=${kind}`;
  }
  if (mutating) {
    if (rawPatch !== undefined && patchType === undefined) {
      return 'webhook returned response.patch but not response.patchType';
    }
    if (rawPatch === undefined && patchType !== undefined) {
      return 'webhook returned response.patchType but not response.patch';
    }
    if (patchType === '') return `webhook returned invalid response.patchType of ""`;
  } else {
    if (rawPatch !== undefined) return 'validating webhook may not return response.patch';
    if (res.patchType !== undefined && res.patchType !== null) {
      return 'validating webhook may not return response.patchType';
    }
  }
  return responseOf(res, rawPatch, patchType);
}

function responseOf(
  res: Record<string, unknown>,
  rawPatch: string | undefined,
  patchType: string | undefined,
): AdmissionResponse {
  const warnings = Array.isArray(res.warnings) ? res.warnings.filter((w): w is string => typeof w === 'string') : [];
  const annotations: Record<string, string> = {};
  if (res.auditAnnotations && typeof res.auditAnnotations === 'object') {
    for (const [k, v] of Object.entries(res.auditAnnotations)) if (typeof v === 'string') annotations[k] = v;
  }
  return {
    allowed: res.allowed === true,
    result: res.status,
    patch: rawPatch === undefined ? undefined : Buffer.from(rawPatch, 'base64').toString('utf8'),
    patchType,
    warnings,
    auditAnnotations: annotations,
  };
}
