import { describe, it } from 'node:test';
import assert from '../../testing/assert.js';
import type { RequestContext } from '../context.js';
import { AuthenticationError } from '../filters/authentication.js';
import {
  audienceAgnostic,
  authenticateToken,
  bearerTokenAuthenticator,
  EXTRA_SPACE_WARNING,
  parseBearerHeader,
  type TokenAuthenticator,
} from './bearer.js';

const ctxWith = (authorization: string) => {
  const headers: Record<string, unknown> = {};
  const res = {
    headersSent: false,
    getHeader: (name: string) => headers[name],
    setHeader: (name: string, value: unknown) => {
      headers[name] = value;
    },
  };
  return { req: { headers: { authorization } }, res, auditAnnotations: {}, headers } as unknown as RequestContext & {
    headers: Record<string, unknown>;
  };
};

const refusing =
  (message: string): TokenAuthenticator =>
  () => {
    throw new AuthenticationError(message);
  };

describe('bearer tokens', () => {
  it('asks every authenticator until one knows the token, keeping the refusals of the others', async () => {
    const known: TokenAuthenticator = (t) => (t === 'ok' ? { name: 'jane', groups: [] } : undefined);
    assert.equal((await authenticateToken([refusing('expired'), known], 'ok', [])).name, 'jane');
    await assert.rejects(authenticateToken([refusing('expired'), known], 'x', []), { message: 'expired' });
    await assert.rejects(authenticateToken([refusing('a'), refusing('b')], 'x', []), { message: '[a, b]' });
    await assert.rejects(authenticateToken([known], 'x', []), { message: 'invalid bearer token' });
  });

  it('takes audience-agnostic tokens as good for the API audiences only', async () => {
    const authn = audienceAgnostic(() => ({ name: 'jane', groups: [] }), ['api']);
    assert.deepEqual(await authn('t', ['api', 'vault']), { name: 'jane', groups: [], audiences: ['api'] });
    assert.equal(await authn('t', ['vault']), undefined);
  });

  it("puts the user's audit annotations on the request and keeps audiences off the user", async () => {
    const ctx = ctxWith('Bearer tok');
    const authn = bearerTokenAuthenticator(
      [
        () => ({
          name: 'sa',
          groups: [],
          audiences: ['api'],
          auditAnnotations: { 'authentication.k8s.io/stale-token': 'x' },
        }),
      ],
      ['api'],
    );
    assert.deepEqual(await authn(ctx), { name: 'sa', groups: [] });
    assert.deepEqual(ctx.auditAnnotations, { 'authentication.k8s.io/stale-token': 'x' });
    assert.equal(await authn(ctxWith('Basic abc')), undefined, 'not a bearer token');
  });

  it('reads the Authorization header as upstream: cut at single spaces, the rest after the token ignored', () => {
    assert.deepEqual(parseBearerHeader('Bearer tok'), { token: 'tok' });
    assert.deepEqual(parseBearerHeader('  bEaReR tok  '), { token: 'tok' });
    assert.deepEqual(parseBearerHeader('Bearer tok extra words'), { token: 'tok' });
    assert.deepEqual(parseBearerHeader('Bearer  tok'), { extraSpace: true });
    assert.deepEqual(parseBearerHeader('Bearer\ttok'), {});
    assert.deepEqual(parseBearerHeader('Bearer'), {});
    assert.deepEqual(parseBearerHeader('Basic abc'), {});
    assert.deepEqual(parseBearerHeader(undefined), {});
  });

  it('ignores a token after an extra space, with upstream warning', async () => {
    const ctx = ctxWith('Bearer  tok');
    const authn = bearerTokenAuthenticator([() => ({ name: 'jane', groups: [] })], ['api']);
    assert.equal(await authn(ctx), undefined);
    assert.deepEqual(ctx.headers.warning, [`299 - "${EXTRA_SPACE_WARNING}"`]);
    assert.deepEqual(await authn(ctxWith('Bearer tok trailing')), { name: 'jane', groups: [] });
  });
});
