import { PassThrough } from 'node:stream';
import { describe, it } from 'node:test';
import assert from '../../testing/assert.js';
import type { RequestContext } from '../context.js';
import { MAX_BODY_BYTES, readBody } from './body.js';

/** A request context around a stream standing for the request. */
function contextOf(stream: PassThrough, headers: Record<string, string> = {}): RequestContext {
  Object.assign(stream, { headers });
  return { req: stream } as unknown as RequestContext;
}

describe('readBody', () => {
  it('reads the whole body, whatever its chunks', async () => {
    const req = new PassThrough();
    const body = readBody(contextOf(req));
    req.write('{"a":');
    req.end('1}');
    assert.equal((await body).toString(), '{"a":1}');
  });

  it('refuses a body over the limit as it arrives, and one announced over it at once', async () => {
    const req = new PassThrough();
    const body = readBody(contextOf(req), 10);
    req.write('0123456789');
    req.write('x');
    await assert.rejects(body, /limit is 10/);
    req.end();
    await assert.rejects(
      readBody(contextOf(new PassThrough(), { 'content-length': String(MAX_BODY_BYTES + 1) })),
      /limit is 3145728/,
    );
  });

  it('fails, rather than waiting forever, for a request closed before or while its body is read', async () => {
    const gone = new PassThrough();
    gone.destroy();
    await assert.rejects(readBody(contextOf(gone)), /closed before its body was read/);
    const ended = new PassThrough();
    ended.end('{}');
    ended.resume();
    await new Promise((r) => ended.once('end', r));
    await assert.rejects(readBody(contextOf(ended)), /closed before its body was read/);
    const midway = new PassThrough();
    const body = readBody(contextOf(midway));
    midway.write('{"a"');
    midway.destroy();
    await assert.rejects(body, /closed before its body was read/);
  });
});
