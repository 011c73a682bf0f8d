/**
 * Compiling a ValidatingAdmissionPolicy's expressions in the project's CEL environment, with upstream's
 * variables: `object`, `oldObject`, `request`, `namespaceObject`, `params` (only when the policy has a paramKind),
 * `authorizer` (not in messageExpression), and `variables` (the policy's own, composed). Each expression kind has
 * the result type upstream requires: validations bool, messageExpression string, auditAnnotations string or null,
 * matchConditions bool, variables anything. Compiled expressions are kept by text, so a policy read again from the
 * watch cache costs nothing to compile.
 */
import {
  CelCompileError,
  type CelVariableDeclaration,
  type CompiledCelExpression,
  compileCel,
  openAPISchemaForCel,
  type TypedVariable,
  typeCheckCel,
  typeCheckCelType,
} from '../../../api/cel/index.js';
import { NAMESPACE_SCHEMA, REQUEST_SCHEMA } from '../cel-types.js';

export interface PolicyEnvironment {
  hasParams: boolean;
  hasAuthorizer: boolean;
}

/** The result types an expression may have; `any` takes whatever it gives. */
export type ReturnTypes = 'bool' | 'string' | 'string-or-null' | 'any';

function declarations(env: PolicyEnvironment): CelVariableDeclaration[] {
  // Every value is given converted (evaluate.ts converts the request's objects once for all the expressions).
  const vars: CelVariableDeclaration[] = [
    { name: 'object', native: true },
    { name: 'oldObject', native: true },
    { name: 'request', native: true },
    { name: 'namespaceObject', native: true },
    { name: 'variables', native: true },
  ];
  if (env.hasParams) vars.push({ name: 'params', native: true });
  if (env.hasAuthorizer) vars.push({ name: 'authorizer', type: 'kubernetes.authorization.Authorizer', native: true });
  return vars;
}

/**
 * The expression's type as upstream's compiler sees it: object, oldObject and params are dyn; request,
 * namespaceObject and authorizer have their types. undefined when that check finds an issue the evaluation
 * environment did not (then the evaluation's type stands).
 */
function declaredType(expression: string, env: PolicyEnvironment): string | undefined {
  const vars: TypedVariable[] = [
    { name: 'object' },
    { name: 'oldObject' },
    { name: 'request', schema: REQUEST_SCHEMA },
    { name: 'namespaceObject', schema: NAMESPACE_SCHEMA },
    { name: 'variables' },
  ];
  if (env.hasParams) vars.push({ name: 'params' });
  if (env.hasAuthorizer) vars.push({ name: 'authorizer', type: 'kubernetes.authorization.Authorizer' });
  const checked = typeCheckCelType(expression, vars, `vap-types ${env.hasParams ? 1 : 0}${env.hasAuthorizer ? 1 : 0}`);
  return 'type' in checked ? checked.type : undefined;
}

/**
 * Whether the result type is one the expression kind takes. dyn is not (upstream wants the exact type), except
 * from an expression reading `variables`: upstream types each variable by its own expression, which is not done
 * here, so such a result is given the benefit of the doubt.
 */
function typeAccepted(outputType: string, want: ReturnTypes, expression: string): boolean {
  if (want === 'any') return true;
  if (outputType === 'dyn') return /\bvariables\b/.test(expression);
  if (want === 'string-or-null') return outputType === 'string' || outputType === 'null_type' || outputType === 'null';
  return outputType === want;
}

function typeError(outputType: string, want: ReturnTypes): string {
  if (want === 'string-or-null') return `must evaluate to one of [string null_type] but got ${outputType}`;
  return `must evaluate to ${want} but got ${outputType}`;
}

const cache = new Map<string, CompiledCelExpression | string>();
const MAX_CACHED = 4096;

/**
 * The compiled expression, or upstream's detail text of why it does not compile
 * (`compilation failed: ERROR: <input>:…`, `must evaluate to bool but got int`).
 */
export function compilePolicyExpression(
  expression: string,
  env: PolicyEnvironment,
  want: ReturnTypes,
): CompiledCelExpression | string {
  const key = `${env.hasParams ? 1 : 0}${env.hasAuthorizer ? 1 : 0}${want}:${expression}`;
  const known = cache.get(key);
  if (known !== undefined) return known;
  let result: CompiledCelExpression | string;
  try {
    const program = compileCel(expression, declarations(env));
    const type = program.outputType === 'dyn' ? (declaredType(expression, env) ?? 'dyn') : program.outputType;
    result = typeAccepted(type, want, expression) ? program : typeError(type, want);
  } catch (err) {
    result = err instanceof CelCompileError ? err.compilationFailed : String((err as Error).message);
  }
  if (cache.size >= MAX_CACHED) cache.delete(cache.keys().next().value as string);
  cache.set(key, result);
  return result;
}

/**
 * Upstream types `variables` by the policy's own list, so naming one it does not have (or, in a variable, one
 * declared after it) fails to compile: `compilation failed: ERROR: <input>:1:10: undefined field 'x'`. The
 * detail text, or undefined when every `variables.<name>` is known.
 */
export function undefinedVariableReference(
  expression: string,
  env: PolicyEnvironment,
  variableNames: readonly string[],
): string | undefined {
  if (!/\bvariables\b/.test(expression)) return undefined;
  const properties = Object.fromEntries(variableNames.map((n) => [n, {}]));
  const vars: TypedVariable[] = [
    ...declarations(env).filter((v) => v.name !== 'variables'),
    { name: 'variables', schema: openAPISchemaForCel({ type: 'object', properties }) },
  ];
  const key = `vap-variables ${env.hasParams ? 1 : 0}${env.hasAuthorizer ? 1 : 0} ${variableNames.join(',')}`;
  const issue = typeCheckCel(expression, vars, key);
  return issue?.includes('undefined field') ? `compilation failed: ${issue}` : undefined;
}
