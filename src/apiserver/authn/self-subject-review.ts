import { statusErrors } from '../../api/status-error.js';
import { logRequestObject } from '../audit/request-audit.js';
import type { RequestContext } from '../context.js';
import { contentTypeOf, decodeBody, readBody } from '../handlers/body.js';
import { isObject, nowTimestamp } from '../registry/object.js';
import { writeJson } from '../respond.js';

export const AUTHENTICATION_GROUP = 'authentication.k8s.io';

/** Whether a request is a POST of authentication.k8s.io/v1 selfsubjectreviews. */
export function isSelfSubjectReview(ctx: RequestContext): boolean {
  const info = ctx.info;
  return (
    info.isResourceRequest &&
    info.apiGroup === AUTHENTICATION_GROUP &&
    info.apiVersion === 'v1' &&
    info.resource === 'selfsubjectreviews'
  );
}

/**
 * SelfSubjectReview (what `kubectl auth whoami` sends): answers 201 with the attributes of the user the request
 * was authenticated (or impersonated) as — username, uid, groups and extra.
 */
export async function serveSelfSubjectReview(ctx: RequestContext): Promise<void> {
  const info = ctx.info;
  if (info.verb !== 'create' || info.name || info.subresource || info.namespace) {
    throw statusErrors.methodNotSupported({ group: AUTHENTICATION_GROUP, resource: 'selfsubjectreviews' }, info.verb);
  }
  const body = decodeBody(await readBody(ctx), contentTypeOf(ctx));
  if (!isObject(body)) throw statusErrors.badRequest('the body of the request must be a JSON or YAML object');
  logRequestObject(ctx, body, { apiVersion: `${AUTHENTICATION_GROUP}/v1`, kind: 'SelfSubjectReview' });
  const metadata = isObject(body.metadata) ? body.metadata : {};
  const user = ctx.user;
  writeJson(ctx, 201, {
    kind: 'SelfSubjectReview',
    apiVersion: 'authentication.k8s.io/v1',
    metadata: { ...metadata, creationTimestamp: nowTimestamp() },
    status: {
      userInfo: {
        username: user?.name ?? '',
        ...(user?.uid ? { uid: user.uid } : {}),
        groups: user?.groups ?? [],
        ...(user?.extra && Object.keys(user.extra).length > 0 ? { extra: user.extra } : {}),
      },
    },
  });
}
