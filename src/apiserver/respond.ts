import type { Status } from '../api/status-error.js';
import { toStatus } from '../api/status-error.js';
import type { HttpResponse, RequestContext } from './context.js';

/** Writes a whole JSON response. */
export function writeJson(ctx: RequestContext, code: number, body: unknown, contentType = 'application/json'): void {
  const res = ctx.res;
  if (res.headersSent) return;
  const text = JSON.stringify(body);
  res.writeHead(code, {
    'content-type': contentType,
    'content-length': Buffer.byteLength(text),
    'cache-control': 'no-cache, private',
    'audit-id': ctx.auditId,
  });
  res.end(text);
}

export function writeText(res: HttpResponse, code: number, text: string, headers: Record<string, string> = {}): void {
  if (res.headersSent) return;
  res.writeHead(code, {
    'content-type': 'text/plain; charset=utf-8',
    'x-content-type-options': 'nosniff',
    'cache-control': 'no-cache, private',
    ...headers,
  });
  res.end(text);
}

/** Answers with the Status for err (a StatusError as is, anything else as InternalError). */
export function writeError(ctx: RequestContext, err: unknown): Status {
  const status = toStatus(err);
  if (!ctx.res.headersSent) {
    const retry = status.details?.retryAfterSeconds;
    if (retry) ctx.res.setHeader('retry-after', String(retry));
    writeJson(ctx, status.code, status);
  } else if (!ctx.res.writableEnded) {
    ctx.res.end();
  }
  return status;
}
