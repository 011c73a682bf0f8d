/**
 * Type checking an expression against schemas, as upstream's ValidatingAdmissionPolicy type checker does: the
 * variables given a schema are declared with object types made from it (fields with their types, `list<T>`,
 * `map<string, T>`; IntOrString, free-form and recursive parts stay `dyn`), so a misspelt field or a wrong
 * comparison is found without evaluating. Only for reporting: evaluation always uses the dynamic environment.
 *
 * Equality follows cel-go's checker: an object type compares with itself (one schema gives one type, so `object ==
 * oldObject` checks) and with null, as do timestamps and durations (cel-go's legacy nullable kinds); lists, maps and
 * scalars compared with null, and two different object types, are still errors.
 */
import type { Environment } from '@marcbachmann/cel-js';
import { type AstNode, baseEnvironment, rewriteMatches, visitAst } from './environment.js';
import { compileErrorFrom } from './errors.js';
import type { CelValueSchema } from './values.js';

export interface TypedVariable {
  readonly name: string;
  /** The schema to type it by; absent: `dyn`. */
  readonly schema?: CelValueSchema;
  /** A CEL type name to declare instead (e.g. the authorizer's). */
  readonly type?: string;
}

const MAX_DEPTH = 24;

/** Registers the types a schema needs in env and gives the CEL type of its root. */
class TypeBuilder {
  private count = 0;
  /** The object types registered, by the schema they were made from. */
  readonly objectTypes = new Map<CelValueSchema, string>();
  constructor(
    private readonly env: Environment,
    private readonly prefix: string,
  ) {}

  typeOf(schema: CelValueSchema | undefined, depth = 0, open = new Set<CelValueSchema>()): string {
    if (!schema || depth > MAX_DEPTH || open.has(schema)) return 'dyn';
    const known = this.objectTypes.get(schema);
    if (known) return known;
    if (schema.format === 'int-or-string') return 'dyn';
    switch (schema.type) {
      case 'string':
        // Formats that upstream types as timestamps, durations and bytes (see values.ts's stringToCel).
        if (schema.format === 'date-time' || schema.format === 'date') return 'google.protobuf.Timestamp';
        if (schema.format === 'duration') return 'google.protobuf.Duration';
        if (schema.format === 'byte') return 'bytes';
        return 'string';
      case 'integer':
        return 'int';
      case 'number':
        return 'double';
      case 'boolean':
        return 'bool';
      case 'array':
        return `list<${this.typeOf(schema.items, depth + 1, open)}>`;
      case 'object':
        break;
      default:
        return 'dyn';
    }
    const names = schema.propertyNames ?? [];
    // An object with no fields declared is free-form, unless it says it has none (`properties: {}`).
    if (names.length === 0 && (schema.propertyNames === undefined || schema.additionalProperties)) {
      return schema.additionalProperties
        ? `map<string, ${this.typeOf(schema.additionalProperties, depth + 1, open)}>`
        : 'dyn';
    }
    open.add(schema);
    const fields: Record<string, string> = {};
    for (const name of names) fields[name] = this.typeOf(schema.property?.(name), depth + 1, open);
    open.delete(schema);
    const typeName = `${this.prefix}.T${++this.count}`;
    this.env.registerType(typeName, { fields });
    this.objectTypes.set(schema, typeName);
    return typeName;
  }
}

const environments = new Map<string, Environment>();
const MAX_ENVIRONMENTS = 32;

/** The handler of the operators declared for checking: programs of these environments are never run. */
const typeCheckOnly = (): never => {
  throw new Error('typed CEL environments only type-check');
};

function environmentFor(cacheKey: string, variables: readonly TypedVariable[]): Environment {
  let env = environments.get(cacheKey);
  if (env) return env;
  env = baseEnvironment().clone();
  const builder = new TypeBuilder(env, 'typed');
  for (const v of variables) env.registerVariable(v.name, v.type ?? builder.typeOf(v.schema));
  // cel-go's `_==_` takes (A, A): a struct with a struct of its type, and null with the kinds its checker keeps
  // nullable (structs, timestamps, durations). `!=` and the reversed operands come with each overload.
  const nullable = [...new Set(builder.objectTypes.values())];
  for (const t of nullable) env.registerOperator(`${t} == ${t}`, typeCheckOnly);
  for (const t of [...nullable, 'google.protobuf.Timestamp', 'google.protobuf.Duration']) {
    env.registerOperator(`${t} == null`, typeCheckOnly);
  }
  if (environments.size >= MAX_ENVIRONMENTS) environments.delete(environments.keys().next().value as string);
  environments.set(cacheKey, env);
  return env;
}

type Check = (checker: { check(node: unknown, ctx: unknown): unknown }, node: unknown, ctx: unknown) => unknown;
interface Macro {
  typeCheck(checker: unknown, macro: Macro, ctx: unknown): unknown;
}

/**
 * cel-go checks the field a presence test names (`has(self.spec.nope)`: undefined field 'nope'); the checker here
 * passes over it. Each has(x.f) is given a check that looks x.f up as a plain field selection first, then checks the
 * macro as before. Only for type checking: the program is never evaluated.
 */
function checkPresenceTests(node: unknown): void {
  visitAst(node, (ast) => {
    const args = ast.args;
    if (ast.op !== 'call' || !Array.isArray(args) || args[0] !== 'has' || !Array.isArray(args[1])) return;
    const selected = args[1][0] as AstNode | undefined;
    const meta = ast.meta;
    const macro = meta?.macro as Macro | undefined;
    if (args[1].length !== 1 || selected?.op !== '.' || !meta || typeof macro?.typeCheck !== 'function') return;
    const check: Check = (checker, _node, ctx) => {
      checker.check(selected, ctx);
      return macro.typeCheck(checker, macro, ctx);
    };
    meta.macro = undefined;
    meta.check = check;
  });
}

/**
 * The cel-go style issue text (`ERROR: <input>:1:8: undefined field 'foo'` and the caret lines) when the expression
 * does not type-check against the variables, undefined when it does. `cacheKey` names the variable set (the same
 * key must always mean the same declarations): its environment is built once.
 */
export function typeCheckCel(
  expression: string,
  variables: readonly TypedVariable[],
  cacheKey: string,
): string | undefined {
  const checked = typeCheckCelType(expression, variables, cacheKey);
  return 'issue' in checked ? checked.issue : undefined;
}

/**
 * The expression's type against the variables (`bool`, `string`, `dyn`, `list<string>`…), or the issue text when it
 * does not type-check (as typeCheckCel's).
 */
export function typeCheckCelType(
  expression: string,
  variables: readonly TypedVariable[],
  cacheKey: string,
): { type: string } | { issue: string } {
  const env = environmentFor(cacheKey, variables);
  try {
    const program = env.parse(expression);
    rewriteMatches(program.ast);
    checkPresenceTests(program.ast);
    const checked = program.check();
    if (!checked.valid) throw checked.error;
    return { type: checked.type ?? 'dyn' };
  } catch (err) {
    return { issue: compileErrorFrom(expression, err).issue };
  }
}
