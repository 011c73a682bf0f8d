import { describe, it } from 'node:test';
import assert from '../../testing/assert.js';
import type { RequestContext } from '../context.js';
import { AuthenticationError } from '../filters/authentication.js';
import { audienceAgnostic, authenticateToken, bearerTokenAuthenticator, type TokenAuthenticator } from './bearer.js';

const ctxWith = (authorization: string) =>
  ({ req: { headers: { authorization } }, auditAnnotations: {} }) as unknown as RequestContext;

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
});
