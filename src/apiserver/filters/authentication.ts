import { createHash } from 'node:crypto';
import type { TLSSocket } from 'node:tls';
import { statusErrors } from '../../api/status-error.js';
import { EXTRA_CREDENTIAL_ID } from '../authn/serviceaccount/claims.js';
import { parseClientIdentity } from '../bootstrap/client-identity.js';
import type { Filter, RequestContext, UserInfo } from '../context.js';

/**
 * Finds who made a request (ARCHITECTURE.md "Filters"): a user, nothing when the request carries no credential
 * this authenticator understands, or a thrown AuthenticationError when it carries one that is refused (a forged,
 * expired or unknown token, a certificate from another CA). Authenticators are tried in turn.
 */
export type Authenticator = (ctx: RequestContext) => UserInfo | undefined | Promise<UserInfo | undefined>;

/** A credential was presented and refused: the request is answered 401, whatever comes after. */
export class AuthenticationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AuthenticationError';
  }
}

export const ANONYMOUS: UserInfo = { name: 'system:anonymous', groups: ['system:unauthenticated'] };

/**
 * Upstream's AuthenticatedGroupAdder, around every authenticator but the anonymous one: the user gets
 * system:authenticated last, unless it is system:anonymous or already in system:authenticated or
 * system:unauthenticated.
 */
export function withAuthenticatedGroup<U extends UserInfo>(user: U): U {
  if (
    user.name === ANONYMOUS.name ||
    user.groups.includes('system:authenticated') ||
    user.groups.includes('system:unauthenticated')
  ) {
    return user;
  }
  return { ...user, groups: [...user.groups, 'system:authenticated'] };
}

/**
 * The user each connection's client certificate names, worked out on the connection's first request: the
 * certificate is fixed once the TLS handshake is done (HTTP/2 forbids renegotiation), and reading it from the
 * socket costs more than the rest of authentication. Keyed by the HTTP/2 session, or by the socket for HTTP/1.1.
 * An Error stands for a certificate that was refused.
 */
const usersByConnection = new WeakMap<object, UserInfo | Error | null>();

/**
 * x509 client certificates: a certificate the TLS layer verified against the cluster CA names the user (CN) and
 * groups (O), as kube-apiserver's --client-ca-file authenticator does. A certificate that does not verify (another
 * CA, expired) is refused, not ignored, as upstream's authenticator refuses it.
 */
export const x509Authenticator: Authenticator = (ctx) => {
  const session = (ctx.req as unknown as { stream?: { session?: { socket?: TLSSocket } } }).stream?.session;
  const key: object | undefined = session ?? ctx.req.socket;
  let known = key ? usersByConnection.get(key) : undefined;
  if (known === undefined) {
    const socket = (ctx.req.socket ?? session?.socket) as TLSSocket | undefined;
    if (!socket || typeof socket.getPeerCertificate !== 'function') return undefined;
    known = userOfCertificate(socket);
    if (key) usersByConnection.set(key, known);
  }
  if (known instanceof Error) throw known;
  return known ?? undefined;
};

function userOfCertificate(socket: TLSSocket): UserInfo | Error | null {
  const cert = socket.getPeerCertificate();
  if (!cert?.subject) return null;
  if (!socket.authorized) {
    return new AuthenticationError(`verifying certificate failed: ${String(socket.authorizationError ?? 'unknown')}`);
  }
  const identity = parseClientIdentity(cert);
  if (!identity) return null;
  // The certificate's SHA-256 fingerprint is its credential ID, as upstream's x509 authenticator sets it: it shows in
  // `kubectl auth whoami`, in audit events and in the CSRs the user makes.
  const fingerprint = createHash('sha256').update(cert.raw).digest('hex');
  return {
    name: identity.user,
    groups: identity.groups,
    extra: { [EXTRA_CREDENTIAL_ID]: [`X509SHA256=${fingerprint}`] },
  };
}

export interface AuthenticationFilterOptions {
  /** --anonymous-auth (default true): requests with no credential are system:anonymous; false answers them 401. */
  anonymous?: boolean;
}

/**
 * Runs the authenticators in order; the first user found wins and gets system:authenticated too (as
 * withAuthenticatedGroup adds it). A refused
 * credential ends the request with upstream's 401 Status (message "Unauthorized"); a request with none is
 * anonymous, unless --anonymous-auth=false.
 */
export function withAuthentication(authenticators: Authenticator[], opts: AuthenticationFilterOptions = {}): Filter {
  const anonymous = opts.anonymous ?? true;
  return (next) => async (ctx) => {
    for (const authn of authenticators) {
      let user: UserInfo | undefined;
      try {
        user = await authn(ctx);
      } catch (err) {
        if (err instanceof AuthenticationError) throw statusErrors.unauthorized();
        throw err;
      }
      if (user) {
        ctx.user = withAuthenticatedGroup(user);
        return next(ctx);
      }
    }
    if (!anonymous) throw statusErrors.unauthorized();
    ctx.user = ANONYMOUS;
    return next(ctx);
  };
}
