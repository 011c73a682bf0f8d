import { describe, it } from 'node:test';
import assert from '../../testing/assert.js';
import { FakeClock } from '../../util/clock.js';
import { AuthenticationError } from '../filters/authentication.js';
import type { TokenAuthenticator } from './bearer.js';
import { cachedTokenAuthenticator, DEFAULT_TOKEN_SUCCESS_CACHE_TTL_MS } from './token-cache.js';

function counting(answer: (token: string) => ReturnType<TokenAuthenticator>) {
  const calls: string[] = [];
  const authn: TokenAuthenticator = (token, audiences) => {
    calls.push(`${token}@${(audiences ?? []).join(',')}`);
    return answer(token);
  };
  return { authn, calls };
}

describe('token cache', () => {
  it("remembers a user for kube-apiserver's 10 s, per token and audiences", async () => {
    assert.equal(DEFAULT_TOKEN_SUCCESS_CACHE_TTL_MS, 10_000);
    const clock = new FakeClock(1_000);
    const { authn, calls } = counting((t) => (t === 'good' ? { name: 'jane', groups: ['dev'] } : undefined));
    const cached = cachedTokenAuthenticator(authn, { clock });
    assert.deepEqual(await cached('good', ['api']), { name: 'jane', groups: ['dev'] });
    assert.deepEqual(await cached('good', ['api']), { name: 'jane', groups: ['dev'] });
    assert.deepEqual(calls, ['good@api'], 'the second request is answered from the cache');
    await cached('good', ['other']);
    assert.deepEqual(calls, ['good@api', 'good@other'], 'other audiences are another entry');
    clock.step(9_999);
    await cached('good', ['api']);
    assert.equal(calls.length, 2);
    clock.step(1);
    await cached('good', ['api']);
    assert.deepEqual(calls.at(-1), 'good@api', 'checked again once the entry expired');
    assert.equal(calls.length, 3);
  });

  it('does not remember refusals or tokens nobody knows', async () => {
    const clock = new FakeClock();
    const { authn, calls } = counting((t) => {
      if (t === 'expired') throw new AuthenticationError('token has expired');
      return undefined;
    });
    const cached = cachedTokenAuthenticator(authn, { clock });
    for (let i = 0; i < 2; i++) {
      await assert.rejects(async () => cached('expired', []), /token has expired/);
      assert.equal(await cached('unknown', []), undefined);
    }
    assert.equal(calls.length, 4);
  });

  it('shares one check among requests that arrive while it runs', async () => {
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const { authn, calls } = counting(async () => {
      await gate;
      return { name: 'bot', groups: [] };
    });
    const cached = cachedTokenAuthenticator(authn, { clock: new FakeClock() });
    const answers = Promise.all([cached('t', []), cached('t', []), cached('t', [])]);
    release();
    assert.deepEqual(
      (await answers).map((u) => u?.name),
      ['bot', 'bot', 'bot'],
    );
    assert.equal(calls.length, 1);
  });

  it('is off with a TTL of 0', async () => {
    const { authn, calls } = counting(() => ({ name: 'jane', groups: [] }));
    const cached = cachedTokenAuthenticator(authn, { ttlMs: 0, clock: new FakeClock() });
    await cached('t', []);
    await cached('t', []);
    assert.equal(calls.length, 2);
  });
});
