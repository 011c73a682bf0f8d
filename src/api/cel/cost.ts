/**
 * A bound on the work one evaluation may do, so that a hostile expression cannot hang the apiserver. Upstream
 * estimates a cost from the schema's size limits when it compiles and counts cost while it evaluates
 * (PerCallLimit, 1,000,000). Here every comprehension step (one element visited by all/exists/exists_one/map/filter)
 * and the work of the library functions that walk a value (one unit per element or per 100 characters) is counted,
 * and an evaluation that passes the limit fails with upstream's `operation cancelled: actual cost limit exceeded`.
 * Without comprehensions an expression's work is bounded by its size, which the parser limits.
 */
import { CelEvaluationError, COST_LIMIT_MESSAGE } from './errors.js';

/** Upstream's per-call limit (k8s.io/apiserver/pkg/apis/cel PerCallLimit). */
export const PER_CALL_COST_LIMIT = 1_000_000;

interface Budget {
  remaining: number;
}

let active: Budget | undefined;

/** Runs `fn` (a synchronous evaluation) with a fresh budget of `limit` units. */
export function withCostBudget<T>(limit: number, fn: () => T): T {
  const previous = active;
  active = { remaining: limit };
  try {
    return fn();
  } finally {
    active = previous;
  }
}

/** Counts `units` against the running evaluation's budget, failing once it is spent. */
export function chargeCost(units = 1): void {
  if (active === undefined) return;
  active.remaining -= units;
  if (active.remaining < 0) throw new CelEvaluationError(COST_LIMIT_MESSAGE);
}

/** The cost of walking a string of `length` characters. */
export const stringCost = (length: number): number => 1 + Math.floor(length / 100);

type EvaluateFn = (ev: unknown, ast: unknown, ctx: unknown) => unknown;

interface AstLike {
  op?: string;
  args?: unknown;
  meta?: { alternate?: unknown };
  evaluate?: EvaluateFn;
}

const isAst = (v: unknown): v is AstLike =>
  typeof v === 'object' && v !== null && typeof (v as AstLike).op === 'string' && 'args' in v;

/**
 * Makes a comprehension's step charge one unit each time it runs. The library replaces a node's `evaluate` with
 * the resolved one on first use; the accessor keeps the counting wrapper in front of whatever it installs.
 */
function countSteps(step: AstLike): void {
  const proto = Object.getPrototypeOf(step) as { evaluate: EvaluateFn };
  let resolved: EvaluateFn | undefined;
  const counting: EvaluateFn = function (this: AstLike, ev, ast, ctx) {
    chargeCost(1);
    if (resolved) return resolved.call(this, ev, ast, ctx);
    return proto.evaluate.call(this, ev, ast, ctx);
  };
  Object.defineProperty(step, 'evaluate', {
    configurable: true,
    get: () => counting,
    set: (fn: EvaluateFn) => {
      if (fn !== counting) resolved = fn;
    },
  });
}

/** Walks a parsed (and type-checked) expression and instruments every comprehension for cost counting. */
export function instrumentCost(root: unknown): void {
  const seen = new Set<unknown>();
  const visit = (v: unknown): void => {
    if (v === null || typeof v !== 'object' || seen.has(v)) return;
    seen.add(v);
    if (Array.isArray(v)) {
      for (const x of v) visit(x);
      return;
    }
    if (!isAst(v)) return;
    const alternate = v.meta?.alternate;
    if (alternate) visit(alternate);
    const args = v.args;
    if (v.op === 'comprehension' && typeof args === 'object' && args !== null) {
      const c = args as { iterable?: unknown; init?: unknown; step?: unknown };
      if (isAst(c.step)) countSteps(c.step);
      visit(c.iterable);
      visit(c.init);
      visit(c.step);
      return;
    }
    visit(args);
  };
  visit(root);
}
