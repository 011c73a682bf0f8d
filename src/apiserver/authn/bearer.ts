import type { RequestContext, UserInfo } from '../context.js';
import { AuthenticationError, type Authenticator } from '../filters/authentication.js';

/**
 * Recognises a bearer token, or not: a user, undefined when the token is not one it knows (the next one is asked),
 * or a thrown AuthenticationError when the token is its kind but refused (expired, forged, revoked).
 */
export type TokenAuthenticator = (token: string) => UserInfo | undefined | Promise<UserInfo | undefined>;

/** The token of an `Authorization: Bearer <token>` header, or undefined. */
export function bearerTokenOf(ctx: RequestContext): string | undefined {
  const header = ctx.req.headers.authorization;
  if (typeof header !== 'string') return undefined;
  const parts = header.trim().split(/\s+/);
  if (parts.length !== 2 || parts[0]?.toLowerCase() !== 'bearer') return undefined;
  return parts[1] || undefined;
}

/**
 * The bearer-token authenticator: asks each token authenticator in turn; a token that none recognises is refused
 * ("invalid bearer token", a 401), as upstream's bearertoken authenticator refuses it.
 */
export function bearerTokenAuthenticator(tokenAuthenticators: TokenAuthenticator[]): Authenticator {
  return async (ctx) => {
    const token = bearerTokenOf(ctx);
    if (token === undefined) return undefined;
    for (const authn of tokenAuthenticators) {
      const user = await authn(token);
      if (user) return user;
    }
    throw new AuthenticationError('invalid bearer token');
  };
}
