import { logEncodedResponseObject } from '../audit/request-audit.js';
import type { RequestContext } from '../context.js';
import { RawJson } from '../registry/codec.js';

const CHUNK_BYTES = 64 * 1024;
const COMMA = Buffer.from(',');

/**
 * Writes a list response item by item, waiting for the socket to drain, so that a list of 100k objects never
 * becomes one giant string (V8 caps strings at ~512 MB) and memory stays bounded.
 */
export async function writeJsonList(
  ctx: RequestContext,
  head: Record<string, unknown>,
  items: Iterable<unknown>,
  contentType: string,
  itemsKey = 'items',
): Promise<void> {
  const res = ctx.res;
  logEncodedResponseObject(ctx);
  res.writeHead(200, { 'content-type': contentType, 'cache-control': 'no-cache, private', 'audit-id': ctx.auditId });
  const opening = JSON.stringify({ ...head, [itemsKey]: [] });
  // Everything of the head, then the items spliced into its empty array (the last key). Items that are RawJson
  // (stored bytes) are copied as they are; others are encoded here.
  let parts: Buffer[] = [Buffer.from(opening.slice(0, -2))];
  let size = 0;
  let first = true;
  for (const item of items) {
    if (!first) parts.push(COMMA);
    first = false;
    if (item instanceof RawJson) {
      for (const p of item.parts) {
        parts.push(p);
        size += p.length;
      }
    } else {
      const b = Buffer.from(JSON.stringify(item));
      parts.push(b);
      size += b.length;
    }
    if (size >= CHUNK_BYTES) {
      if (!res.write(Buffer.concat(parts))) await drained(ctx);
      parts = [];
      size = 0;
      if (res.destroyed) return;
    }
  }
  parts.push(Buffer.from(']}'));
  res.end(Buffer.concat(parts));
}

function drained(ctx: RequestContext): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      ctx.res.off('drain', done);
      ctx.res.off('close', done);
      resolve();
    };
    ctx.res.once('drain', done);
    ctx.res.once('close', done);
  });
}
