/**
 * Go's regular expressions (RE2 syntax, linear-time matching, so a hostile pattern cannot hang the process) through
 * re2js, each pattern compiled once. re2js is loaded at the first pattern (see lazy-require.ts).
 */
import type { RE2JS } from 're2js';
import { requireLazily } from './lazy-require.js';

let re2: typeof RE2JS | undefined;
const cache = new Map<string, RE2JS | Error>();
const CACHE_SIZE = 1000;

/** The compiled pattern, or the error that makes it invalid in Go's wording (`error parsing regexp: …`). */
export function compileRe2(pattern: string): RE2JS | Error {
  const cached = cache.get(pattern);
  if (cached) return cached;
  re2 ??= (requireLazily('re2js') as { RE2JS: typeof RE2JS }).RE2JS;
  let result: RE2JS | Error;
  try {
    result = re2.compile(pattern);
  } catch (err) {
    const m = (err as Error).message;
    result = new Error(m.startsWith('error parsing regexp') ? m : `error parsing regexp: ${m}`);
  }
  if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value as string);
  cache.set(pattern, result);
  return result;
}
