/**
 * Regular expressions with RE2's syntax and linear-time matching (as upstream's Go regexp): `matches` (the CEL
 * standard function, routed here from the evaluator's own JavaScript-RegExp one), and Kubernetes' regex library
 * `find` and `findAll`. Compiled patterns are kept in a small cache.
 */
import type { Environment } from '@marcbachmann/cel-js';
import { RE2JS } from 're2js';
import { chargeCost, stringCost } from '../cost.js';
import { CelEvaluationError } from '../errors.js';

/** The internal name `matches` calls are rewritten to (see environment.ts). */
export const RE2_MATCHES = '__re2_matches';

const cache = new Map<string, RE2JS>();
const CACHE_SIZE = 256;

export function compileRegex(pattern: string): RE2JS {
  let re = cache.get(pattern);
  if (re) return re;
  try {
    re = RE2JS.compile(pattern);
  } catch (err) {
    throw new CelEvaluationError(regexMessage(err));
  }
  if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value as string);
  cache.set(pattern, re);
  return re;
}

/** Go's wording: `error parsing regexp: missing closing ): ...` (RE2JS says the same, with or without the prefix). */
function regexMessage(err: unknown): string {
  const m = (err as Error).message;
  return m.startsWith('error parsing regexp') ? m : `error parsing regexp: ${m}`;
}

function matches(s: string, pattern: string): boolean {
  chargeCost(stringCost(s.length));
  return compileRegex(pattern).matcher(s).find();
}

function findAll(s: string, pattern: string, limit: bigint): string[] {
  chargeCost(stringCost(s.length));
  const m = compileRegex(pattern).matcher(s);
  const out: string[] = [];
  while ((limit < 0n || BigInt(out.length) < limit) && m.find()) out.push(m.group() ?? '');
  return out;
}

export function registerRegexLibrary(env: Environment): void {
  env
    .registerFunction(`string.${RE2_MATCHES}(string): bool`, matches)
    .registerFunction(`${RE2_MATCHES}(string, string): bool`, matches)
    .registerFunction('string.find(string): string', (s: string, p: string) => {
      chargeCost(stringCost(s.length));
      const m = compileRegex(p).matcher(s);
      return m.find() ? (m.group() ?? '') : '';
    })
    .registerFunction('string.findAll(string): list<string>', (s: string, p: string) => findAll(s, p, -1n))
    .registerFunction('string.findAll(string, int): list<string>', findAll);
}
