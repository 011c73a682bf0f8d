/**
 * Kubernetes' quantity library: quantity("500m"), isQuantity, and a Quantity's isInteger, asInteger,
 * asApproximateFloat, sign, add, sub, compareTo, isLessThan, isGreaterThan (over the API's exact quantities).
 */
import type { Environment } from '@marcbachmann/cel-js';
import {
  addQuantities,
  compareQuantities,
  formatQuantity,
  isQuantity,
  parseQuantity,
  type Quantity,
  quantityFromInt,
} from '../../quantity.js';
import { CelEvaluationError } from '../errors.js';

const NANO = 1_000_000_000n;
const INT64_MAX = (1n << 63n) - 1n;
const INT64_MIN = -(1n << 63n);

/** A quantity as a CEL value of type kubernetes.Quantity. */
export class CelQuantity {
  constructor(readonly q: Quantity) {}
  toString(): string {
    return formatQuantity(this.q);
  }
}

function parse(s: string): CelQuantity {
  try {
    return new CelQuantity(parseQuantity(s));
  } catch (err) {
    throw new CelEvaluationError(`quantities must match the regular expression: ${(err as Error).message}`);
  }
}

const negate = (q: Quantity): Quantity => ({ nanos: -q.nanos, format: q.format });

function asInteger(v: CelQuantity): bigint {
  const n = v.q.nanos;
  if (n % NANO !== 0n || n / NANO > INT64_MAX || n / NANO < INT64_MIN) {
    throw new CelEvaluationError('cannot convert value to integer');
  }
  return n / NANO;
}

export function registerQuantityLibrary(env: Environment): void {
  const Q = 'kubernetes.Quantity';
  env
    .registerType(Q, CelQuantity)
    .registerFunction(`quantity(string): ${Q}`, parse)
    .registerFunction('isQuantity(string): bool', (s: string) => isQuantity(s))
    .registerFunction(`${Q}.isInteger(): bool`, (v: CelQuantity) => {
      const n = v.q.nanos;
      return n % NANO === 0n && n / NANO <= INT64_MAX && n / NANO >= INT64_MIN;
    })
    .registerFunction(`${Q}.asInteger(): int`, asInteger)
    .registerFunction(`${Q}.asApproximateFloat(): double`, (v: CelQuantity) => Number(v.q.nanos) / 1e9)
    .registerFunction(`${Q}.sign(): int`, (v: CelQuantity) => BigInt(compareQuantities(v.q, quantityFromInt(0))))
    .registerFunction(
      `${Q}.add(${Q}): ${Q}`,
      (a: CelQuantity, b: CelQuantity) => new CelQuantity(addQuantities(a.q, b.q)),
    )
    .registerFunction(
      `${Q}.add(int): ${Q}`,
      (a: CelQuantity, b: bigint) => new CelQuantity(addQuantities(a.q, quantityFromInt(b))),
    )
    .registerFunction(
      `${Q}.sub(${Q}): ${Q}`,
      (a: CelQuantity, b: CelQuantity) => new CelQuantity(addQuantities(a.q, negate(b.q))),
    )
    .registerFunction(
      `${Q}.sub(int): ${Q}`,
      (a: CelQuantity, b: bigint) => new CelQuantity(addQuantities(a.q, negate(quantityFromInt(b)))),
    )
    .registerFunction(`${Q}.compareTo(${Q}): int`, (a: CelQuantity, b: CelQuantity) =>
      BigInt(compareQuantities(a.q, b.q)),
    )
    .registerFunction(
      `${Q}.isLessThan(${Q}): bool`,
      (a: CelQuantity, b: CelQuantity) => compareQuantities(a.q, b.q) < 0,
    )
    .registerFunction(
      `${Q}.isGreaterThan(${Q}): bool`,
      (a: CelQuantity, b: CelQuantity) => compareQuantities(a.q, b.q) > 0,
    )
    .registerOperator(`${Q} == ${Q}`, (a: CelQuantity, b: CelQuantity) => compareQuantities(a.q, b.q) === 0);
}
