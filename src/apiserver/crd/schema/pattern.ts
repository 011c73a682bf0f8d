/**
 * Schema `pattern`s are Go regular expressions (RE2 syntax), matched anywhere in the string unless anchored, as Go's
 * MatchString does; re2js gives the same syntax and linear-time matching, so a hostile pattern cannot hang the
 * apiserver. Each pattern is compiled once.
 */
import { RE2JS } from 're2js';

export interface CompiledPattern {
  test(s: string): boolean;
}

const cache = new Map<string, CompiledPattern | Error>();
const CACHE_SIZE = 1000;

/** The compiled pattern, or the error (Go's wording, `error parsing regexp: …`) that makes it invalid. */
export function compilePattern(pattern: string): CompiledPattern | Error {
  const cached = cache.get(pattern);
  if (cached) return cached;
  let result: CompiledPattern | Error;
  try {
    const re = RE2JS.compile(pattern);
    result = { test: (s) => re.matcher(s).find() };
  } catch (err) {
    const m = (err as Error).message;
    result = new Error(m.startsWith('error parsing regexp') ? m : `error parsing regexp: ${m}`);
  }
  if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value as string);
  cache.set(pattern, result);
  return result;
}
