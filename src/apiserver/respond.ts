import { PlainTextStatusError, type Status, toStatus } from '../api/status-error.js';
import { logEncodedResponseObject, logResponseObject } from './audit/request-audit.js';
import type { HttpResponse, RequestContext } from './context.js';

/** Writes a whole JSON response: an API object (upstream's WriteObjectNegotiated), which the audit event records. */
export function writeJson(
  ctx: RequestContext,
  code: number,
  body: unknown,
  contentType = 'application/json',
  /** Headers over the defaults (e.g. a Cache-Control other than `no-cache, private`). */
  headers: Record<string, string> = {},
): void {
  if (ctx.res.headersSent) return;
  logResponseObject(ctx, body);
  writeRawJson(ctx, code, body, contentType, headers);
}

/** Writes a whole JSON response that is no API object (upstream's WriteRawJSON: /version, OIDC discovery). */
export function writeRawJson(
  ctx: RequestContext,
  code: number,
  body: unknown,
  contentType = 'application/json',
  /** Headers over the defaults (e.g. a Cache-Control other than `no-cache, private`). */
  headers: Record<string, string> = {},
): void {
  if (ctx.res.headersSent) return;
  const text = JSON.stringify(body);
  writeJsonHead(ctx, code, contentType, Buffer.byteLength(text), headers);
  ctx.res.end(text);
}

interface Corkable {
  cork(): void;
  uncork(): void;
}

/** The HTTP/2 stream under a compatibility response; undefined for an HTTP/1.1 response. */
function http2StreamOf(res: HttpResponse): Corkable | undefined {
  return (res as unknown as { stream?: Corkable }).stream;
}

/** What buffers a response's writes while corked: its HTTP/2 stream, or the HTTP/1.1 response itself. */
export function corkable(res: HttpResponse): Corkable {
  return http2StreamOf(res) ?? res;
}

/** Writes a whole JSON response that is already encoded, in parts (stored bytes with their resourceVersion). */
export function writeEncodedJson(
  ctx: RequestContext,
  code: number,
  parts: readonly Buffer[],
  contentType = 'application/json',
): void {
  if (ctx.res.headersSent) return;
  logEncodedResponseObject(ctx);
  writeJsonHead(
    ctx,
    code,
    contentType,
    parts.reduce((n, p) => n + p.length, 0),
  );
  const http2 = http2StreamOf(ctx.res);
  if (http2 === undefined || parts.length === 1) {
    ctx.res.end(parts.length === 1 ? parts[0] : Buffer.concat(parts));
    return;
  }
  // Over HTTP/2 the parts go out as they are, in one write of several buffers (end() uncorks the stream), rather
  // than joined into a copy first.
  http2.cork();
  for (let i = 0; i < parts.length - 1; i++) ctx.res.write(parts[i]);
  ctx.res.end(parts[parts.length - 1]);
}

function writeJsonHead(
  ctx: RequestContext,
  code: number,
  contentType: string,
  length: number,
  headers: Record<string, string> = {},
): void {
  ctx.res.writeHead(code, {
    'content-type': contentType,
    'content-length': length,
    'cache-control': 'no-cache, private',
    'audit-id': ctx.auditId,
    ...headers,
  });
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
  if (err instanceof PlainTextStatusError) {
    // As Go's http.Error writes it: the text and a newline.
    writeText(ctx.res, status.code, `${status.message}\n`);
    return status;
  }
  if (!ctx.res.headersSent) {
    const retry = status.details?.retryAfterSeconds;
    if (retry) ctx.res.setHeader('retry-after', String(retry));
    writeJson(ctx, status.code, status);
  } else if (!ctx.res.writableEnded) {
    ctx.res.end();
  }
  return status;
}
