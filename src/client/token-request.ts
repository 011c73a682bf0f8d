import type { KubeObject } from './types.js';

/** The token and its expiry (milliseconds since the epoch) from a TokenRequest's answer; throws when it has none. */
export function parseTokenRequest(answer: KubeObject): { token: string; expiresAt: number } {
  const status = (answer as { status?: { token?: unknown; expirationTimestamp?: unknown } }).status;
  const token = status?.token;
  const expiresAt = typeof status?.expirationTimestamp === 'string' ? Date.parse(status.expirationTimestamp) : NaN;
  if (typeof token !== 'string' || token === '' || Number.isNaN(expiresAt)) {
    throw new Error('the TokenRequest answer has no token or expiration');
  }
  return { token, expiresAt };
}
