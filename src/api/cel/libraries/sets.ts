/** CEL's sets extension: sets.contains, sets.equivalent, sets.intersects over lists. */
import type { Environment } from '@marcbachmann/cel-js';
import { chargeCost } from '../cost.js';
import { equalCel } from './compare.js';

class SetsNamespace {}

const has = (list: unknown[], x: unknown) => list.some((v) => equalCel(v, x));

export function registerSetsLibrary(env: Environment): void {
  env
    .registerType('SetsNamespace', SetsNamespace)
    .registerConstant('sets', 'SetsNamespace', new SetsNamespace())
    .registerFunction('SetsNamespace.contains(list<A>, list<A>): bool', (_n: unknown, a: unknown[], b: unknown[]) => {
      chargeCost(a.length * b.length);
      return b.every((x) => has(a, x));
    })
    .registerFunction('SetsNamespace.equivalent(list<A>, list<A>): bool', (_n: unknown, a: unknown[], b: unknown[]) => {
      chargeCost(a.length * b.length);
      return b.every((x) => has(a, x)) && a.every((x) => has(b, x));
    })
    .registerFunction('SetsNamespace.intersects(list<A>, list<A>): bool', (_n: unknown, a: unknown[], b: unknown[]) => {
      chargeCost(a.length * b.length);
      return b.some((x) => has(a, x));
    });
}
