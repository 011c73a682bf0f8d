/**
 * Kubernetes' lists library: isSorted, sum, min, max, indexOf, lastIndexOf on lists of comparable values.
 */
import type { Environment } from '@marcbachmann/cel-js';
import { chargeCost } from '../cost.js';
import { CelEvaluationError } from '../errors.js';
import { compareCel, equalCel } from './compare.js';

function sum(list: unknown[]): unknown {
  chargeCost(list.length);
  if (list.length === 0) return 0n;
  let total = list[0];
  for (const x of list.slice(1)) {
    if (typeof total === 'bigint' && typeof x === 'bigint') total = total + x;
    else if (typeof total === 'number' && typeof x === 'number') total = total + x;
    else throw new CelEvaluationError(`no such overload: ${typeof total} + ${typeof x}`);
  }
  if (typeof total === 'bigint' && (total > 9223372036854775807n || total < -9223372036854775808n)) {
    throw new CelEvaluationError('return error overflow');
  }
  return total;
}

function extreme(list: unknown[], sign: number, name: string): unknown {
  chargeCost(list.length);
  if (list.length === 0) throw new CelEvaluationError(`${name}(list) called on an empty list`);
  let best = list[0];
  for (const x of list.slice(1)) if (compareCel(x, best) * sign > 0) best = x;
  return best;
}

export function registerListsLibrary(env: Environment): void {
  env
    .registerFunction('list<A>.isSorted(): bool', (l: unknown[]) => {
      chargeCost(l.length);
      for (let i = 1; i < l.length; i++) if (compareCel(l[i - 1], l[i]) > 0) return false;
      return true;
    })
    .registerFunction('list<A>.sum(): A', (l: unknown[]) => sum(l))
    .registerFunction('list<A>.min(): A', (l: unknown[]) => extreme(l, -1, 'min'))
    .registerFunction('list<A>.max(): A', (l: unknown[]) => extreme(l, 1, 'max'))
    .registerFunction('list<A>.indexOf(A): int', (l: unknown[], x: unknown) => {
      chargeCost(l.length);
      return BigInt(l.findIndex((v) => equalCel(v, x)));
    })
    .registerFunction('list<A>.lastIndexOf(A): int', (l: unknown[], x: unknown) => {
      chargeCost(l.length);
      for (let i = l.length - 1; i >= 0; i--) if (equalCel(l[i], x)) return BigInt(i);
      return -1n;
    });
}
