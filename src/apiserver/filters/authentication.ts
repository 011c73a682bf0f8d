import type { TLSSocket } from 'node:tls';
import type { Filter, RequestContext, UserInfo } from '../context.js';

/** Finds who made a request, or nothing: authenticators are tried in turn (ARCHITECTURE.md "Filters"). */
export type Authenticator = (ctx: RequestContext) => UserInfo | undefined | Promise<UserInfo | undefined>;

export const ANONYMOUS: UserInfo = { name: 'system:anonymous', groups: ['system:unauthenticated'] };

/**
 * The user each connection's client certificate names, worked out on the connection's first request: the
 * certificate is fixed once the TLS handshake is done (HTTP/2 forbids renegotiation), and reading it from the
 * socket costs more than the rest of authentication. Keyed by the HTTP/2 session, or by the socket for HTTP/1.1.
 */
const usersByConnection = new WeakMap<object, UserInfo | null>();

/**
 * x509 client certificates: a certificate the TLS layer verified against the cluster CA names the user (CN) and
 * groups (O), as kube-apiserver's --client-ca-file authenticator does. Authenticated users also get
 * system:authenticated.
 */
export const x509Authenticator: Authenticator = (ctx) => {
  const session = (ctx.req as unknown as { stream?: { session?: { socket?: TLSSocket } } }).stream?.session;
  const key: object | undefined = session ?? ctx.req.socket;
  if (key) {
    const known = usersByConnection.get(key);
    if (known !== undefined) return known ?? undefined;
  }
  const socket = (ctx.req.socket ?? session?.socket) as TLSSocket | undefined;
  if (!socket || typeof socket.getPeerCertificate !== 'function' || !socket.authorized) return undefined;
  const user = userOfCertificate(socket);
  if (key) usersByConnection.set(key, user ?? null);
  return user;
};

function userOfCertificate(socket: TLSSocket): UserInfo | undefined {
  const cert = socket.getPeerCertificate();
  if (!cert?.subject) return undefined;
  const subject = cert.subject as unknown as Record<string, string | string[] | undefined>;
  const cn = subject.CN;
  const name = Array.isArray(cn) ? cn[0] : cn;
  if (!name) return undefined;
  const o = subject.O;
  const groups = o === undefined ? [] : Array.isArray(o) ? o : [o];
  return { name, groups };
}

/** Runs the authenticators in order; the first user found wins, else the request is anonymous. */
export function withAuthentication(authenticators: Authenticator[]): Filter {
  return (next) => async (ctx) => {
    for (const authn of authenticators) {
      const user = await authn(ctx);
      if (user) {
        const groups = user.groups.includes('system:authenticated')
          ? user.groups
          : [...user.groups, 'system:authenticated'];
        ctx.user = { ...user, groups };
        return next(ctx);
      }
    }
    ctx.user = ANONYMOUS;
    return next(ctx);
  };
}
