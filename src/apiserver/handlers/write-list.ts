import type { RequestContext } from '../context.js';

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
  res.writeHead(200, { 'content-type': contentType, 'cache-control': 'no-cache, private', 'audit-id': ctx.auditId });
  const opening = JSON.stringify({ ...head, [itemsKey]: [] });
  // Everything of the head, then the items spliced into its empty array (the last key).
  let buffer = `${opening.slice(0, -2)}`;
  let first = true;
  for (const item of items) {
    buffer += (first ? '' : ',') + JSON.stringify(item);
    first = false;
    if (buffer.length >= 64 * 1024) {
      if (!res.write(buffer)) await drained(ctx);
      buffer = '';
      if (res.destroyed) return;
    }
  }
  res.end(`${buffer}]}`);
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
