/**
 * Two-variable comprehensions (cel-go's ext.TwoVarComprehensions, in Kubernetes' base environment from v1.32): over
 * a list the first variable is the index and the second the element, over a map the key and the value.
 *
 *   all(i, v, p), exists(i, v, p), existsOne(i, v, p) (also spelt exists_one) → bool
 *   transformList(i, v, [filter,] t) → list of t
 *   transformMap(k, v, [filter,] t) → the same keys, values t
 *   transformMapEntry(k, v, [filter,] {key: value}) → the entries t makes, a key made twice an error
 *
 * `all` and `exists` behave as chains of `&&` and `||`: an element's error stands only when no other element
 * decides the answer. The others stop at the first error. Each element visited counts one against the evaluation's
 * cost budget, as a one-variable comprehension's steps do.
 */
import type { Environment } from '@marcbachmann/cel-js';
import { chargeCost } from '../cost.js';
import { CelEvaluationError } from '../errors.js';

type Kind = 'all' | 'exists' | 'existsOne' | 'transformList' | 'transformMap' | 'transformMapEntry';

/** The parts of cel-js's parser, checker and evaluator a macro uses (its custom macro interface). */
interface Node {
  op?: string;
  args?: unknown;
  start?: number;
}
interface CelType {
  kind: string;
  name?: string;
  keyType?: CelType;
  valueType?: CelType;
}
interface Context {
  forkWithVariable(name: string, type: CelType): Context;
  reuse(parent: Context): Context;
  setIterValue(value: unknown, ev: Evaluator): Context;
}
interface Checker {
  check(node: Node, ctx: Context): CelType;
  getType(name: string): CelType;
  formatType(type: CelType): string;
  createError(code: string, message: string, node: Node): Error;
  registry: { getListType(t: CelType): CelType; getMapType(k: CelType, v: CelType): CelType };
}
interface Evaluator {
  run(node: Node, ctx: Context): unknown;
  tryEval(node: Node, ctx: Context): unknown;
}

interface TwoVarMacro {
  kind: Kind;
  receiver: Node;
  keyVar: string;
  valueVar: string;
  filter: Node | undefined;
  expr: Node;
  async: false;
  keyCtx?: Context;
  valueCtx?: Context;
  typeCheck(checker: Checker, macro: TwoVarMacro, ctx: Context): CelType;
  evaluate(ev: Evaluator, macro: TwoVarMacro, ctx: Context): unknown;
}

/** The accumulator's names in cel-go's macros: an iteration variable may not take them. */
const ACCUMULATORS = new Set(['@result', '__result__']);

/** A macro's refusal at parse time, worded and placed as cel-go reports it (no `Syntax error:`). */
function macroError(summary: string, node: Node): Error {
  const at = node.start ?? 0;
  return Object.assign(new Error(summary), { summary, range: { start: at, end: at } });
}

function variableName(node: Node): string {
  if (node.op === 'id' && typeof node.args === 'string') return node.args;
  throw macroError('argument must be a simple name', node);
}

function variables(args: Node[]): [string, string] {
  const [first, second] = args as [Node, Node];
  const keyVar = variableName(first);
  const valueVar = variableName(second);
  if (keyVar === valueVar) throw macroError(`duplicate variable name: ${keyVar}`, second);
  if (ACCUMULATORS.has(keyVar)) throw macroError('iteration variable overwrites accumulator variable', first);
  if (ACCUMULATORS.has(valueVar)) throw macroError('iteration variable overwrites accumulator variable', second);
  return [keyVar, valueVar];
}

const isBoolOrDyn = (t: CelType) => t.name === 'bool' || t.kind === 'dyn';

function typeCheck(chk: Checker, m: TwoVarMacro, ctx: Context): CelType {
  const range = chk.check(m.receiver, ctx);
  let keyType: CelType;
  let valueType: CelType;
  if (range.kind === 'list') {
    keyType = chk.getType('int');
    valueType = range.valueType ?? chk.getType('dyn');
  } else if (range.kind === 'map') {
    keyType = range.keyType ?? chk.getType('dyn');
    valueType = range.valueType ?? chk.getType('dyn');
  } else if (range.kind === 'dyn') {
    keyType = chk.getType('dyn');
    valueType = chk.getType('dyn');
  } else {
    throw chk.createError(
      'invalid_comprehension_range',
      `Expression of type '${chk.formatType(range)}' cannot be range of a comprehension (must be list, map, or dynamic).`,
      m.receiver,
    );
  }
  m.keyCtx = ctx.forkWithVariable(m.keyVar, keyType);
  m.valueCtx = m.keyCtx.forkWithVariable(m.valueVar, valueType);
  if (m.filter) {
    const f = chk.check(m.filter, m.valueCtx);
    if (!isBoolOrDyn(f)) throw chk.createError('invalid_macro_argument', `${m.kind} filter must be bool`, m.filter);
  }
  const t = chk.check(m.expr, m.valueCtx);
  switch (m.kind) {
    case 'all':
    case 'exists':
    case 'existsOne': {
      if (!isBoolOrDyn(t)) {
        const op = m.kind === 'all' ? '_&&_' : m.kind === 'exists' ? '_||_' : '_?_:_';
        throw chk.createError(
          'no_matching_overload',
          `found no matching overload for '${op}' applied to '(bool, ${chk.formatType(t)})'`,
          m.expr,
        );
      }
      return chk.getType('bool');
    }
    case 'transformList':
      return chk.registry.getListType(t);
    case 'transformMap':
      return chk.registry.getMapType(keyType, t);
    case 'transformMapEntry':
      if (t.kind !== 'map' && t.kind !== 'dyn') {
        throw chk.createError(
          'no_matching_overload',
          `found no matching overload for 'cel.@mapInsert' applied to '(map, ${chk.formatType(t)})'`,
          m.expr,
        );
      }
      return t;
  }
}

/** A CEL map's entries (a Map, or a plain object as cel-js builds map literals); undefined for anything else. */
function mapEntries(v: unknown): [unknown, unknown][] | undefined {
  if (v instanceof Map) return [...v];
  if (v === null || typeof v !== 'object' || Array.isArray(v) || v instanceof Uint8Array || v instanceof Date) {
    return undefined;
  }
  return Object.entries(v);
}

/** The (key, value) pairs of a list (index, element) or a map. */
function pairsOf(range: unknown): [unknown, unknown][] {
  if (Array.isArray(range)) return range.map((v, i) => [BigInt(i), v]);
  const entries = mapEntries(range);
  if (entries) return entries;
  throw new CelEvaluationError('cannot be range of a comprehension (must be list, map, or dynamic)');
}

/** The entries a transformMapEntry step made, which must be a map. */
function entriesOf(map: unknown): [unknown, unknown][] {
  const entries = mapEntries(map);
  if (entries) return entries;
  throw new CelEvaluationError(`no such overload: cel.@mapInsert(map, ${typeof map})`);
}

function asBool(v: unknown, op: string): boolean {
  if (typeof v === 'boolean') return v;
  throw new CelEvaluationError(`no such overload: ${op}`);
}

function evaluate(ev: Evaluator, m: TwoVarMacro, ctx: Context): unknown {
  const range = ev.run(m.receiver, ctx);
  const keyCtx = (m.keyCtx as Context).reuse(ctx);
  const valueCtx = (m.valueCtx as Context).reuse(keyCtx);
  const bind = (k: unknown, v: unknown) => {
    chargeCost(1);
    keyCtx.setIterValue(k, ev);
    return valueCtx.setIterValue(v, ev);
  };
  const pairs = pairsOf(range);
  const passes = (c: Context) => (m.filter ? asBool(ev.run(m.filter, c), '_?_:_') : true);
  switch (m.kind) {
    case 'all':
    case 'exists': {
      // A chain of && (all) or || (exists): the deciding value wins over an error met on the way.
      const decides = m.kind === 'exists';
      let error: unknown;
      for (const [k, v] of pairs) {
        const r = ev.tryEval(m.expr, bind(k, v));
        if (r === decides) return decides;
        if (typeof r !== 'boolean') error ??= r instanceof Error ? r : new CelEvaluationError('no such overload');
      }
      if (error) throw error;
      return !decides;
    }
    case 'existsOne': {
      let count = 0;
      for (const [k, v] of pairs) if (asBool(ev.run(m.expr, bind(k, v)), '_?_:_')) count++;
      return count === 1;
    }
    case 'transformList': {
      const out: unknown[] = [];
      for (const [k, v] of pairs) {
        const c = bind(k, v);
        if (passes(c)) out.push(ev.run(m.expr, c));
      }
      return out;
    }
    case 'transformMap': {
      const out: Record<string, unknown> = {};
      for (const [k, v] of pairs) {
        const c = bind(k, v);
        if (passes(c)) out[String(k)] = ev.run(m.expr, c);
      }
      return out;
    }
    case 'transformMapEntry': {
      const out: Record<string, unknown> = {};
      for (const [k, v] of pairs) {
        const c = bind(k, v);
        if (!passes(c)) continue;
        for (const [key, value] of entriesOf(ev.run(m.expr, c))) {
          const name = String(key);
          if (Object.hasOwn(out, name)) throw new CelEvaluationError(`insert failed: key ${name} already exists`);
          out[name] = value;
        }
      }
      return out;
    }
  }
}

function expander(kind: Kind, withFilter: boolean) {
  return ({ args, receiver }: { args: Node[]; receiver: Node }): TwoVarMacro => {
    const [keyVar, valueVar] = variables(args);
    return {
      kind,
      receiver,
      keyVar,
      valueVar,
      filter: withFilter ? args[2] : undefined,
      expr: args[withFilter ? 3 : 2] as Node,
      async: false,
      typeCheck,
      evaluate,
    };
  };
}

export function registerTwoVarComprehensions(env: Environment): void {
  for (const [name, kind] of [
    ['all', 'all'],
    ['exists', 'exists'],
    ['existsOne', 'existsOne'],
    ['exists_one', 'existsOne'],
  ] as const) {
    env.registerFunction(`list.${name}(ast, ast, ast): bool`, expander(kind, false));
  }
  for (const kind of ['transformList', 'transformMap', 'transformMapEntry'] as const) {
    env.registerFunction(`list.${kind}(ast, ast, ast): dyn`, expander(kind, false));
    env.registerFunction(`list.${kind}(ast, ast, ast, ast): dyn`, expander(kind, true));
  }
}
