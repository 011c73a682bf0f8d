/**
 * Schema `pattern`s are Go regular expressions (RE2 syntax), matched anywhere in the string unless anchored, as Go's
 * MatchString does; re2js gives the same syntax and linear-time matching, so a hostile pattern cannot hang the
 * apiserver. Each pattern is compiled once (util/re2.ts).
 */
import { compileRe2 } from '../../../util/re2.js';

export interface CompiledPattern {
  test(s: string): boolean;
}

/** The compiled pattern, or the error (Go's wording, `error parsing regexp: …`) that makes it invalid. */
export function compilePattern(pattern: string): CompiledPattern | Error {
  const re = compileRe2(pattern);
  return re instanceof Error ? re : { test: (s) => re.matcher(s).find() };
}
