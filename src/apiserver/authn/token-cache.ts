/**
 * kube-apiserver's token cache (upstream's tokencache over the token union): a bearer token that authenticated is
 * remembered for TokenSuccessCacheTTL (10 s in kube-apiserver), keyed by the token's hash and the audiences asked
 * for, so a client's next requests skip the signature check and the lookups behind it. Refusals are not remembered
 * (TokenFailureCacheTTL is 0). Requests with the same token that arrive while it is being checked share that check.
 * The price is upstream's too: a revoked token (its ServiceAccount, pod or secret deleted) may keep working until
 * its entry expires.
 */
import { createHash } from 'node:crypto';
import { type Clock, realClock } from '../../util/clock.js';
import type { TokenAuthenticator, TokenUser } from './bearer.js';

/** kube-apiserver's TokenSuccessCacheTTL. */
export const DEFAULT_TOKEN_SUCCESS_CACHE_TTL_MS = 10_000;
/** Expired entries are swept when the cache has grown by this many since the last sweep. */
const SWEEP_EVERY = 1024;

/** Remembers what `authn` says of a token for ttlMs when it names a user (ttlMs <= 0: no cache). */
export function cachedTokenAuthenticator(
  authn: TokenAuthenticator,
  opts: { ttlMs?: number; clock?: Clock } = {},
): TokenAuthenticator {
  const ttlMs = opts.ttlMs ?? DEFAULT_TOKEN_SUCCESS_CACHE_TTL_MS;
  if (ttlMs <= 0) return authn;
  const clock = opts.clock ?? realClock;
  const entries = new Map<string, { user: TokenUser; expiresAt: number }>();
  const inFlight = new Map<string, Promise<TokenUser | undefined>>();
  let sizeAtSweep = 0;
  const sweep = (now: number) => {
    for (const [key, entry] of entries) if (entry.expiresAt <= now) entries.delete(key);
    sizeAtSweep = entries.size;
  };
  return (token, audiences) => {
    // The raw token is not kept: the key is its hash, with the audiences it was checked for.
    const key = createHash('sha256')
      .update(token)
      .update('\0')
      .update((audiences ?? []).join('\0'))
      .digest('base64');
    const now = clock.now();
    const hit = entries.get(key);
    if (hit && hit.expiresAt > now) return hit.user;
    if (hit) entries.delete(key);
    const pending = inFlight.get(key);
    if (pending) return pending;
    // Started on a later tick, so that it is in flight before it can settle (an authenticator may throw at once).
    const check: Promise<TokenUser | undefined> = Promise.resolve()
      .then(() => authn(token, audiences))
      .then((user) => {
        if (user) {
          const at = clock.now();
          entries.set(key, { user, expiresAt: at + ttlMs });
          if (entries.size - sizeAtSweep >= SWEEP_EVERY) sweep(at);
        }
        return user;
      })
      .finally(() => inFlight.delete(key));
    inFlight.set(key, check);
    return check;
  };
}
