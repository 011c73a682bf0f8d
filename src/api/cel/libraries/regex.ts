/**
 * Regular expressions with RE2's syntax and linear-time matching (as upstream's Go regexp): `matches` (the CEL
 * standard function, routed here from the evaluator's own JavaScript-RegExp one), and Kubernetes' regex library
 * `find` and `findAll`. Compiled patterns are kept in a cache (util/re2.ts).
 */
import type { Environment } from '@marcbachmann/cel-js';
import type { RE2JS } from 're2js';
import { compileRe2 } from '../../../util/re2.js';
import { chargeCost, stringCost } from '../cost.js';
import { CelEvaluationError } from '../errors.js';

/** The internal name `matches` calls are rewritten to (see environment.ts). */
export const RE2_MATCHES = '__re2_matches';

export function compileRegex(pattern: string): RE2JS {
  const re = compileRe2(pattern);
  if (re instanceof Error) throw new CelEvaluationError(re.message);
  return re;
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
