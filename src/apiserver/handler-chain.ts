import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Http2ServerRequest } from 'node:http2';
import { statusErrors } from '../api/status-error.js';
import type { Logger } from '../util/logger.js';
import type { AnyHttpResponse, Filter, Handler, HttpResponse, RequestContext } from './context.js';
import type { AuditFilters } from './filters/audit.js';
import { type Authenticator, withAuthentication } from './filters/authentication.js';
import { type Authorizer, withAuthorization } from './filters/authorization.js';
import { withImpersonation } from './filters/impersonation.js';
import { parseRequestInfo } from './request-info.js';
import { writeError } from './respond.js';

/**
 * The request pipeline, in one visible place (ARCHITECTURE.md "A request"): request info → metrics →
 * authentication → impersonation → authorization → the handler. Errors anywhere become Status responses; nothing a client sends can crash the
 * process.
 */
export function buildHandlerChain(
  handler: Handler,
  opts: {
    authenticators: Authenticator[];
    authorizers: Authorizer[];
    log: Logger;
    metrics?: Filter;
    /** --anonymous-auth (default true). */
    anonymous?: boolean;
    /** Audit's filters when a policy and a log are configured; absent, audit costs nothing. */
    audit?: AuditFilters;
  },
): (req: IncomingMessage | Http2ServerRequest, res: AnyHttpResponse) => void {
  const filters: Filter[] = [
    ...(opts.metrics ? [opts.metrics] : []),
    ...(opts.audit ? [opts.audit.failedAuthentication] : []),
    withAuthentication(opts.authenticators, { anonymous: opts.anonymous ?? true }),
    ...(opts.audit ? [opts.audit.audit] : []),
    withImpersonation(opts.authorizers),
    withAuthorization(opts.authorizers),
  ];
  const chain = filters.reduceRight<Handler>((next, filter) => filter(next), handler);
  return (req, res) => {
    let ctx: RequestContext;
    const dot = dotSegmentOf(req.url ?? '/');
    if (dot !== undefined) {
      // The URL parser would resolve it (a configmap named `..` would be the namespace); upstream takes it as a
      // name, which its key functions refuse.
      return refuseTarget(res, `Name parameter invalid: ${JSON.stringify(dot)}: may not be '${dot}'`);
    }
    try {
      const url = new URL(req.url ?? '/', 'https://apiserver');
      ctx = {
        req,
        res: res as HttpResponse,
        method: (req.method ?? 'GET').toUpperCase(),
        url,
        info: parseRequestInfo(req.method ?? 'GET', url.pathname, url.searchParams),
        user: undefined,
        auditId: randomUUID(),
        startedAt: Date.now(),
        longRunning: false,
        auditAnnotations: {},
      };
    } catch {
      return refuseTarget(res, 'malformed request URL');
    }
    ctx.res.on('error', () => {});
    chain(ctx).catch((err) => {
      const status = writeError(ctx, err);
      if (status.code >= 500)
        opts.log.error('request failed', { path: ctx.url.pathname, err: String(err), stack: (err as Error)?.stack });
    });
  };
}

/** A 400 for a request target that no context can be made of (before the chain, so nothing else answers). */
function refuseTarget(res: AnyHttpResponse, message: string): void {
  (res as HttpResponse).writeHead(400, { 'content-type': 'application/json' });
  (res as HttpResponse).end(JSON.stringify(statusErrors.badRequest(message).status));
}

/** A path segment of the request target that is `.` or `..`, as written or percent-encoded, if any. */
function dotSegmentOf(target: string): '.' | '..' | undefined {
  const query = target.indexOf('?');
  const pathPart = query < 0 ? target : target.slice(0, query);
  if (!pathPart.includes('.') && !/%2e/i.test(pathPart)) return undefined;
  for (const segment of pathPart.split('/')) {
    const plain = segment.replace(/%2e/gi, '.');
    if (plain === '.' || plain === '..') return plain;
  }
  return undefined;
}
