/**
 * Writing a generated document the way kube-openapi's handlers do through Go's http.ServeContent: an ETag (the
 * quoted upper-case hex SHA-512 of the JSON), Last-Modified, 304 Not Modified for a matching If-None-Match (or,
 * without one, a fresh enough If-Modified-Since), no body for HEAD, and gzip for clients that accept it when the
 * handler compresses (/openapi/v2 does, behind gziphandler's 1400-byte threshold).
 */
import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import type { RequestContext } from '../context.js';

export interface Document {
  readonly body: Buffer;
  /** Upper-case hex SHA-512 of body, unquoted (the `hash` of /openapi/v3 URLs). */
  readonly hash: string;
  readonly lastModified: Date;
  gzipped?: Buffer;
}

const GZIP_MIN_BYTES = 1400;

export function toDocument(value: unknown, now: Date): Document {
  const body = Buffer.from(JSON.stringify(value));
  return { body, hash: createHash('sha512').update(body).digest('hex').toUpperCase(), lastModified: now };
}

export const quotedETag = (doc: Document): string => `"${doc.hash}"`;

function header(ctx: RequestContext, name: string): string {
  const v = ctx.req.headers[name];
  return Array.isArray(v) ? v.join(', ') : (v ?? '');
}

/** Go's checkIfNoneMatch: `*` or any listed entity tag equal to ours, weak tags compared weakly. */
function noneMatchHits(ifNoneMatch: string, etag: string): boolean {
  const strip = (t: string) => t.trim().replace(/^W\//, '');
  return ifNoneMatch.split(',').some((t) => t.trim() === '*' || strip(t) === strip(etag));
}

function notModified(ctx: RequestContext, doc: Document): boolean {
  if (ctx.method !== 'GET' && ctx.method !== 'HEAD') return false;
  const inm = header(ctx, 'if-none-match');
  if (inm !== '') return noneMatchHits(inm, quotedETag(doc));
  const ims = Date.parse(header(ctx, 'if-modified-since'));
  return !Number.isNaN(ims) && Math.floor(doc.lastModified.getTime() / 1000) * 1000 <= ims;
}

function acceptsGzip(ctx: RequestContext): boolean {
  return header(ctx, 'accept-encoding')
    .split(',')
    .some((part) => {
      const [coding = '', ...params] = part.split(';').map((s) => s.trim().toLowerCase());
      return coding === 'gzip' && !params.includes('q=0');
    });
}

export interface ServeOptions {
  contentType: string;
  /** Extra headers (Cache-Control, Expires, Vary…). */
  headers?: Record<string, string>;
  gzip?: boolean;
}

export function serveDocument(ctx: RequestContext, doc: Document, opts: ServeOptions): void {
  const res = ctx.res;
  if (res.headersSent) return;
  const headers: Record<string, string> = {
    'audit-id': ctx.auditId,
    'cache-control': 'no-cache, private',
    ...opts.headers,
    etag: quotedETag(doc),
  };
  if (opts.gzip) headers.vary = headers.vary ? `${headers.vary}, Accept-Encoding` : 'Accept-Encoding';
  if (notModified(ctx, doc)) {
    res.writeHead(304, headers);
    res.end();
    return;
  }
  let body = doc.body;
  if (opts.gzip && body.length >= GZIP_MIN_BYTES && acceptsGzip(ctx)) {
    doc.gzipped ??= gzipSync(doc.body);
    body = doc.gzipped;
    headers['content-encoding'] = 'gzip';
  }
  res.writeHead(200, {
    ...headers,
    'content-type': opts.contentType,
    'last-modified': doc.lastModified.toUTCString(),
    'content-length': String(body.length),
  });
  res.end(ctx.method === 'HEAD' ? undefined : body);
}

/** Answers with a status code and no body (406, a redirect, …). */
export function serveEmpty(ctx: RequestContext, code: number, headers: Record<string, string> = {}): void {
  if (ctx.res.headersSent) return;
  ctx.res.writeHead(code, {
    'audit-id': ctx.auditId,
    'cache-control': 'no-cache, private',
    ...headers,
    'content-length': '0',
  });
  ctx.res.end();
}
