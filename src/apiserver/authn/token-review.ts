/**
 * authentication.k8s.io/v1 TokenReview (create only, stored nowhere): is this bearer token good, and for whom? It is
 * answered as upstream's TokenREST answers it — by the apiserver's request authenticator, given a request that
 * carries nothing but `Authorization: Bearer <token>`, for the audiences the review names, or the API audiences when
 * it names none. So the token authenticators decide, the user gets system:authenticated as on a request, and a token
 * that header cannot carry (blank, or starting with a space) is the anonymous user's when --anonymous-auth is on. Also
 * lists SelfSubjectReview (served by the pipeline) in discovery, beside it.
 */
import { statusErrors } from '../../api/status-error.js';
import type { APIRegistry } from '../api-registry.js';
import { logRequestObject } from '../audit/request-audit.js';
import type { RequestContext } from '../context.js';
import { ANONYMOUS, AuthenticationError, withAuthenticatedGroup } from '../filters/authentication.js';
import { contentTypeOf, decodeBody, readBody } from '../handlers/body.js';
import { isObject } from '../registry/object.js';
import { writeJson } from '../respond.js';
import { authenticateToken, parseBearerHeader, type TokenAuthenticator, type TokenUser } from './bearer.js';
import { AUTHENTICATION_GROUP, serveSelfSubjectReview } from './self-subject-review.js';

export interface TokenReviewer {
  tokenAuthenticators: TokenAuthenticator[];
  apiAudiences: string[];
  /** --anonymous-auth. */
  anonymous: boolean;
}

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string') : []);

/** Serves tokenreviews (and lists selfsubjectreviews) under authentication.k8s.io/v1. */
export function addAuthenticationReviews(registry: APIRegistry, reviewer: TokenReviewer): void {
  registry.addVirtual({
    group: AUTHENTICATION_GROUP,
    version: 'v1',
    resource: 'tokenreviews',
    serve: (ctx) => serveTokenReview(ctx, reviewer),
  });
  registry.addVirtual({
    group: AUTHENTICATION_GROUP,
    version: 'v1',
    resource: 'selfsubjectreviews',
    serve: serveSelfSubjectReview,
  });
}

async function serveTokenReview(ctx: RequestContext, reviewer: TokenReviewer): Promise<void> {
  const info = ctx.info;
  if (info.verb !== 'create' || info.name || info.subresource) {
    throw statusErrors.methodNotSupported(
      { group: AUTHENTICATION_GROUP, resource: 'tokenreviews' },
      info.verb || ctx.method.toLowerCase(),
    );
  }
  if (info.namespace) throw statusErrors.badRequest(`namespace is not allowed on this type: ${info.namespace}`);
  const body = decodeBody(await readBody(ctx), contentTypeOf(ctx));
  if (!isObject(body)) throw statusErrors.badRequest('the body of the request must be a JSON or YAML object');
  logRequestObject(ctx, body, { apiVersion: `${AUTHENTICATION_GROUP}/v1`, kind: 'TokenReview' });
  const metadata = isObject(body.metadata) ? body.metadata : {};
  const spec = isObject(body.spec) ? body.spec : {};
  const token = typeof spec.token === 'string' ? spec.token : '';
  if (!token) throw statusErrors.badRequest('token is required for TokenReview in authentication');
  const requested = strings(spec.audiences);
  const audiences = requested.length > 0 ? requested : reviewer.apiAudiences;
  let user: TokenUser | undefined;
  let error = '';
  // The request upstream's TokenREST hands its authenticator: only this header, so no client certificate.
  const bearer = parseBearerHeader(`Bearer ${token}`).token;
  if (bearer !== undefined && reviewer.tokenAuthenticators.length > 0) {
    try {
      user = withAuthenticatedGroup(await authenticateToken(reviewer.tokenAuthenticators, bearer, audiences));
    } catch (err) {
      if (!(err instanceof AuthenticationError)) throw err;
      error = err.message;
    }
  } else if (reviewer.anonymous) {
    user = { ...ANONYMOUS, audiences };
  }
  if (user && audiences.length > 0 && !(user.audiences ?? []).some((a) => audiences.includes(a))) {
    throw statusErrors.internal(new Error('error validating audiences'));
  }
  const status: Record<string, unknown> = user
    ? {
        authenticated: true,
        user: {
          username: user.name,
          ...(user.uid ? { uid: user.uid } : {}),
          ...(user.groups.length > 0 ? { groups: user.groups } : {}),
          ...(user.extra && Object.keys(user.extra).length > 0 ? { extra: user.extra } : {}),
        },
        ...(user.audiences?.length ? { audiences: user.audiences } : {}),
      }
    : { user: {}, error };
  writeJson(ctx, 201, {
    kind: 'TokenReview',
    apiVersion: `${AUTHENTICATION_GROUP}/v1`,
    metadata: { creationTimestamp: null, ...metadata },
    spec,
    status,
  });
}
