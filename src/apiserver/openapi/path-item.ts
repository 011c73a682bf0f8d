/**
 * How a path item is written out. As kube-openapi lays paths out, a parameter that every operation of a path
 * takes is written once on the path item (name, namespace, pretty; all of them on a path with a single
 * operation), the rest on each operation. Both lists are sorted by name.
 */
import type { Operation, Route } from './operations.js';
import { byName, type Parameter } from './parameters.js';

export type Written = Record<string, unknown>;

const key = (p: Parameter) => `${p.in}:${p.name}`;

export interface SplitParameters {
  readonly shared: readonly Parameter[];
  own(op: Operation): readonly Parameter[];
}

export function splitParameters(route: Route): SplitParameters {
  const [first, ...others] = route.operations;
  const sharedKeys = new Set((first?.parameters ?? []).map(key));
  for (const op of others) {
    const mine = new Set(op.parameters.map(key));
    for (const k of sharedKeys) if (!mine.has(k)) sharedKeys.delete(k);
  }
  const shared = (first?.parameters ?? []).filter((p) => sharedKeys.has(key(p))).sort(byName);
  return {
    shared,
    own: (op) => op.parameters.filter((p) => !sharedKeys.has(key(p))).sort(byName),
  };
}

/** A path item: each operation written by writeOperation, the shared parameters by writeParameter. */
export function pathItem(
  route: Route,
  writeOperation: (op: Operation, own: readonly Parameter[]) => Written,
  writeParameter: (p: Parameter) => Written,
): Written {
  const split = splitParameters(route);
  const item: Written = {};
  for (const op of route.operations) item[op.method] = writeOperation(op, split.own(op));
  if (split.shared.length > 0) item.parameters = split.shared.map(writeParameter);
  return item;
}
