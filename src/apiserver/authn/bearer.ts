import { aggregateErrors } from '../authz/modes.js';
import type { UserInfo } from '../context.js';
import { AuthenticationError, type Authenticator } from '../filters/authentication.js';
import { addWarnings } from '../registry/field-validation.js';

/** A user a token names, with the audiences (of those asked for) the token is good for. */
export interface TokenUser extends UserInfo {
  audiences?: string[];
  /** Annotations for the request's audit event (e.g. authentication.k8s.io/stale-token). */
  auditAnnotations?: Record<string, string>;
  /** Warnings for the request's answer (Warning headers). */
  warnings?: string[];
}

/**
 * Recognises a bearer token, or not: a user, undefined when the token is not one it knows (the next one is asked),
 * or a thrown AuthenticationError when the token is its kind but refused (expired, forged, revoked). audiences: what
 * the token must be good for (the API audiences for a request, a TokenReview's spec.audiences); undefined or empty
 * leaves it to the authenticator's own (the API audiences).
 */
export type TokenAuthenticator = (
  token: string,
  audiences?: string[],
) => TokenUser | undefined | Promise<TokenUser | undefined>;

/**
 * Upstream's WrapAudienceAgnosticToken, for authenticators whose tokens name no audience (static tokens, OIDC):
 * their tokens are good for the API audiences only, so a request for other audiences is not theirs.
 */
export function audienceAgnostic(authn: TokenAuthenticator, implicit: string[]): TokenAuthenticator {
  return async (token, audiences = []) => {
    const good = audiences.filter((a) => implicit.includes(a));
    if (audiences.length > 0 && good.length === 0) return undefined;
    const user = await authn(token, audiences);
    return user && audiences.length > 0 ? { ...user, audiences: good } : user;
  };
}

/**
 * The token authenticators as one, as upstream's union: the first user wins; when none recognises the token it is
 * refused with the others' refusals, or left to the caller (undefined) when none had anything to say.
 */
export function tokenUnion(authenticators: TokenAuthenticator[]): TokenAuthenticator {
  return async (token, audiences) => {
    const refusals: string[] = [];
    for (const authn of authenticators) {
      try {
        const user = await authn(token, audiences);
        if (user) return user;
      } catch (err) {
        if (!(err instanceof AuthenticationError)) throw err;
        refusals.push(err.message);
      }
    }
    if (refusals.length > 0) throw new AuthenticationError(aggregateErrors(refusals));
    return undefined;
  };
}

/**
 * Asks the token authenticators as their union does; a token none recognises and none refused is refused as an
 * "invalid bearer token", as upstream's bearertoken authenticator refuses it.
 */
export async function authenticateToken(
  tokenAuthenticators: TokenAuthenticator[],
  token: string,
  audiences: string[],
): Promise<TokenUser> {
  const user = await tokenUnion(tokenAuthenticators)(token, audiences);
  if (!user) throw new AuthenticationError('invalid bearer token');
  return user;
}

/** Upstream's warning for `Authorization: Bearer  <token>`, whose token is then ignored. */
export const EXTRA_SPACE_WARNING =
  'the provided Authorization header contains extra space before the bearer token, and is ignored';

/**
 * What an Authorization header carries, read as upstream's bearertoken authenticator reads it: the trimmed header
 * cut at its first two single spaces; "Bearer" (any case) then the token, anything after a further space ignored.
 * No token when it is not that, or when the token is empty — with a warning when that is because of a second space.
 */
export function parseBearerHeader(header: string | undefined): { token?: string; extraSpace?: true } {
  const auth = (header ?? '').trim();
  const first = auth.indexOf(' ');
  if (first < 0 || auth.slice(0, first).toLowerCase() !== 'bearer') return {};
  const rest = auth.slice(first + 1);
  const second = rest.indexOf(' ');
  const token = second < 0 ? rest : rest.slice(0, second);
  if (token === '') return second < 0 ? {} : { extraSpace: true };
  return { token };
}

/**
 * The bearer-token authenticator: a request's token must be good for the API audiences; a token that no token
 * authenticator recognises is refused (a 401), as upstream's bearertoken authenticator refuses it.
 */
export function bearerTokenAuthenticator(
  tokenAuthenticators: TokenAuthenticator[],
  apiAudiences: string[],
): Authenticator {
  return async (ctx) => {
    const { token, extraSpace } = parseBearerHeader(ctx.req.headers.authorization);
    if (extraSpace) addWarnings(ctx.res, [EXTRA_SPACE_WARNING]);
    if (token === undefined) return undefined;
    const {
      audiences: _audiences,
      auditAnnotations,
      warnings,
      ...user
    } = await authenticateToken(tokenAuthenticators, token, apiAudiences);
    if (auditAnnotations) Object.assign(ctx.auditAnnotations, auditAnnotations);
    if (warnings) addWarnings(ctx.res, warnings);
    return user;
  };
}
