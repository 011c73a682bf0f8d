/**
 * The project's one CEL environment: the evaluator of `@marcbachmann/cel-js` with the libraries upstream's
 * apiserver enables for v1.33 (strings v2, lists, regex over RE2, url, quantity, ip and cidr, format, sets,
 * authz, optional types, cross-type numeric comparisons) and a cost bound. An expression is compiled once against
 * declared variables — parsed, type-checked, instrumented — and evaluated as often as needed with an activation
 * of Kubernetes values, converted to CEL by each variable's schema.
 */
import { Environment } from '@marcbachmann/cel-js';
import { instrumentCost, PER_CALL_COST_LIMIT, withCostBudget } from './cost.js';
import { CelEvaluationError, compileErrorFrom, upstreamEvaluationMessage } from './errors.js';
import { registerAuthzLibrary } from './libraries/authz.js';
import { registerTwoVarComprehensions } from './libraries/comprehensions.js';
import { registerFormatLibrary } from './libraries/format.js';
import { isCanonicalIP, registerIPLibrary } from './libraries/ip.js';
import { registerListsLibrary } from './libraries/lists.js';
import { registerQuantityLibrary } from './libraries/quantity.js';
import { compileRegex, RE2_MATCHES, registerRegexLibrary } from './libraries/regex.js';
import { registerSemverLibrary } from './libraries/semver.js';
import { registerSetsLibrary } from './libraries/sets.js';
import { registerStringsLibrary } from './libraries/strings.js';
import { registerURLLibrary } from './libraries/url.js';
import { type CelValueSchema, fromCel, toCel } from './values.js';

export interface CelVariableDeclaration {
  readonly name: string;
  /** The CEL type the checker sees ('dyn' when absent): `map`, `list<string>`, `kubernetes.authorization.Authorizer`… */
  readonly type?: string;
  /** How the activation's JSON value is converted (int vs double): absent means "by value". */
  readonly schema?: CelValueSchema;
  /** The activation gives a CEL value already (the authorizer, a variables object): passed as it is. */
  readonly native?: boolean;
}

export interface CelCompileOptions {
  /** Cost units one evaluation may spend (see cost.ts); upstream's per-call limit by default. */
  readonly costLimit?: number;
}

export interface CompiledCelExpression {
  readonly expression: string;
  /** The checked result type: `bool`, `string`, `int`, `dyn`, `list<string>`… */
  readonly outputType: string;
  /** Evaluates with Kubernetes values; the result as JSON (ints as numbers). Throws CelEvaluationError. */
  evaluate(activation: Readonly<Record<string, unknown>>): unknown;
  /** Evaluates and gives the CEL value itself (bigints, optionals, library types), for composing expressions. */
  evaluateCel(activation: Readonly<Record<string, unknown>>): unknown;
}

class IPNamespace {}

function buildBaseEnvironment(): Environment {
  // Literals' homogeneity is checked after type-checking, as upstream's validator does (checkLiterals), so that
  // format()'s arguments may mix types.
  const env = new Environment({ enableOptionalTypes: true, homogeneousAggregateLiterals: false });
  registerStringsLibrary(env);
  registerListsLibrary(env);
  registerRegexLibrary(env);
  registerURLLibrary(env);
  registerQuantityLibrary(env);
  registerSemverLibrary(env);
  registerIPLibrary(env);
  registerFormatLibrary(env);
  registerSetsLibrary(env);
  registerAuthzLibrary(env);
  registerTwoVarComprehensions(env);
  env
    .registerType('IPNamespace', IPNamespace)
    .registerConstant('ip', 'IPNamespace', new IPNamespace())
    .registerFunction('IPNamespace.isCanonical(string): bool', (_n: unknown, s: string) => isCanonicalIP(s));
  return env;
}

let base: Environment | undefined;

/** The environment with every library and no variables (frozen once cloned). */
export function baseEnvironment(): Environment {
  base ??= buildBaseEnvironment();
  return base;
}
const environments = new Map<string, Environment>();
const MAX_ENVIRONMENTS = 64;

/** The environment for one set of variable declarations (built once, kept while few sets are in use). */
function environmentFor(variables: readonly CelVariableDeclaration[]): Environment {
  const key = variables.map((v) => `${v.name}:${v.type ?? 'dyn'}`).join(',');
  let env = environments.get(key);
  if (env) return env;
  env = baseEnvironment().clone();
  for (const v of variables) env.registerVariable(v.name, v.type ?? 'dyn');
  if (environments.size >= MAX_ENVIRONMENTS) environments.delete(environments.keys().next().value as string);
  environments.set(key, env);
  return env;
}

/** A parsed expression's node, as the parser builds it (the checker's data in meta). */
export interface AstNode {
  op?: unknown;
  args?: unknown;
  readonly meta?: { alternate?: unknown; check?: unknown; macro?: unknown };
}

/** Calls visit on every node of a parsed expression, parents before their arguments. */
export function visitAst(node: unknown, visit: (ast: AstNode) => void): void {
  visitInFormat(node, false, (ast) => visit(ast));
}

/**
 * Routes `matches` to the RE2 implementation (the evaluator's own uses JavaScript RegExp, which backtracks and
 * reads another syntax) and checks literal patterns now, as upstream validates regex literals at compile time.
 */
export function rewriteMatches(node: unknown): void {
  visitAst(node, (ast) => {
    const args = ast.args;
    if ((ast.op !== 'rcall' && ast.op !== 'call') || !Array.isArray(args) || args[0] !== 'matches') return;
    args[0] = RE2_MATCHES;
    const params = (ast.op === 'rcall' ? args[2] : args[1]) as AstNode[] | undefined;
    const pattern = params?.[params.length - 1];
    if (pattern?.op === 'value' && typeof pattern.args === 'string') {
      try {
        compileRegex(pattern.args);
      } catch (err) {
        const summary = `invalid regular expression: ${(err as Error).message}`;
        const at = (pattern as { start?: number }).start ?? 0;
        throw Object.assign(new Error(summary), { summary, range: { start: at, end: at } });
      }
    }
  });
}

interface CheckedType {
  readonly name: string;
  isEmpty?(): boolean;
}

interface CheckedNode extends AstNode {
  readonly checkedType?: CheckedType;
  readonly start?: number;
}

/** A compile error at a node, as the environment's own checks raise them (see compileErrorFrom). */
function nodeError(summary: string, node: CheckedNode): Error {
  const at = node.start ?? 0;
  return Object.assign(new Error(summary), { summary, range: { start: at, end: at } });
}

/** Calls visit on every node, parents first, with whether it stands inside a format() call (at any depth). */
function visitInFormat(node: unknown, inFormat: boolean, visit: (ast: CheckedNode, inFormat: boolean) => void): void {
  if (node === null || typeof node !== 'object') return;
  if (Array.isArray(node)) {
    for (const n of node) visitInFormat(n, inFormat, visit);
    return;
  }
  const ast = node as CheckedNode;
  if (typeof ast.op !== 'string') return;
  const args = ast.args;
  const within = inFormat || ((ast.op === 'rcall' || ast.op === 'call') && Array.isArray(args) && args[0] === 'format');
  visit(ast, within);
  if (args && typeof args === 'object') visitInFormat(args, within, visit);
}

/** The next element type of a homogeneous literal, or undefined when it differs (an empty list fits any). */
function joined(previous: CheckedType | undefined, next: CheckedType | undefined): CheckedType | undefined {
  if (!previous || !next || previous.isEmpty?.()) return next ?? previous;
  if (next.isEmpty?.() || next.name === previous.name) return previous;
  return undefined;
}

/** cel-go's check of literals with upstream's validators (ValidateHomogeneousAggregateLiterals, duration and timestamp). */
function checkLiterals(root: unknown): void {
  visitInFormat(root, false, (ast, inFormat) => {
    if (ast.op === 'list' && !inFormat && Array.isArray(ast.args)) {
      let type: CheckedType | undefined;
      for (const el of ast.args as CheckedNode[]) {
        const next = joined(type, el.checkedType);
        if (!next) throw typeMismatch(type, el);
        type = next;
      }
    } else if (ast.op === 'map' && !inFormat && Array.isArray(ast.args)) {
      let keyType: CheckedType | undefined;
      let valueType: CheckedType | undefined;
      for (const [key, value] of ast.args as [CheckedNode, CheckedNode][]) {
        const k = joined(keyType, key.checkedType);
        if (!k) throw typeMismatch(keyType, key);
        const v = joined(valueType, value.checkedType);
        if (!v) throw typeMismatch(valueType, value);
        [keyType, valueType] = [k, v];
      }
    } else if (ast.op === 'call' && Array.isArray(ast.args)) {
      const [name, params] = ast.args as [unknown, CheckedNode[] | undefined];
      const literal = params?.length === 1 ? params[0] : undefined;
      if (
        (name === 'duration' || name === 'timestamp') &&
        literal?.op === 'value' &&
        typeof literal.args === 'string'
      ) {
        if (!literalConverts(name, literal.args)) throw nodeError(`invalid ${name} argument`, literal);
      }
    }
  });
}

function typeMismatch(expected: CheckedType | undefined, el: CheckedNode): Error {
  return nodeError(`expected type '${expected?.name}' but found '${el.checkedType?.name}'`, el);
}

let literalEnv: Environment | undefined;

/** Whether duration(text) or timestamp(text) evaluates (cel-go's validators evaluate the call once at compile time). */
function literalConverts(fn: 'duration' | 'timestamp', text: string): boolean {
  literalEnv ??= baseEnvironment().clone().registerVariable('text', 'string');
  try {
    literalEnv.evaluate(`${fn}(text)`, { text });
    return true;
  } catch {
    return false;
  }
}

/**
 * Compiles an expression against declared variables. Throws CelCompileError, whose `compilationFailed` is
 * upstream's `compilation failed: ERROR: <input>:1:5: …` text.
 */
export function compileCel(
  expression: string,
  variables: readonly CelVariableDeclaration[] = [],
  options: CelCompileOptions = {},
): CompiledCelExpression {
  const env = environmentFor(variables);
  let program: ReturnType<Environment['parse']>;
  let outputType: string;
  try {
    program = env.parse(expression);
    rewriteMatches(program.ast);
    const checked = program.check();
    if (!checked.valid) throw checked.error;
    checkLiterals(program.ast);
    outputType = checked.type ?? 'dyn';
  } catch (err) {
    throw compileErrorFrom(expression, err);
  }
  instrumentCost(program.ast);
  const limit = options.costLimit ?? PER_CALL_COST_LIMIT;
  const byName = new Map(variables.map((v) => [v.name, v]));

  const evaluateCel = (activation: Readonly<Record<string, unknown>>): unknown => {
    const context: Record<string, unknown> = {};
    for (const [name, value] of Object.entries(activation)) {
      const decl = byName.get(name);
      if (!decl) continue;
      context[name] = decl.native ? value : toCel(value, decl.schema);
    }
    try {
      return withCostBudget(limit, () => program(context));
    } catch (err) {
      if (err instanceof CelEvaluationError) throw err;
      throw new CelEvaluationError(upstreamEvaluationMessage(err));
    }
  };
  return {
    expression,
    outputType,
    evaluateCel,
    evaluate: (activation) => fromCel(evaluateCel(activation)),
  };
}
