/**
 * matchConditions in CEL, in the project's CEL environment (src/api/cel): the variables `object`, `oldObject`
 * (null where the operation has none), `request` (the AdmissionRequest the webhook would receive) and
 * `authorizer` (questions about the requesting user, answered by the apiserver's authorizer). Each expression is
 * compiled once. When a configuration is written, an expression that does not compile, or whose type is not bool,
 * is refused, as upstream's compiler does: `object` and `oldObject` are `dyn` and `request` has upstream's type, so
 * `object.spec.enabled` alone is refused (`must evaluate to bool but got dyn`), and so is `request.name` (`… but
 * got string`), and a field the request type does not have (`request.foo`: `undefined field 'foo'`). At evaluation
 * a result that is not a bool is an error.
 */

import {
  CelCompileError,
  type CelVariableDeclaration,
  type CompiledCelExpression,
  compileCel,
  type TypedVariable,
  typeCheckCelType,
} from '../../../api/cel/index.js';
import { invalid } from '../../../api/field-errors.js';
import type { APIRegistry } from '../../api-registry.js';
import { setMatchConditionCompiler } from '../../registry/resources/admissionregistration-webhooks-validation.js';
import { celAuthorizerFor } from '../cel-authorizer.js';
import { REQUEST_SCHEMA } from '../cel-types.js';
import type { MatchActivation, MatchConditionEvaluator } from './match-conditions.js';

const AUTHORIZER_TYPE = 'kubernetes.authorization.Authorizer';

const VARIABLES: readonly CelVariableDeclaration[] = [
  { name: 'object' },
  { name: 'oldObject' },
  { name: 'request' },
  { name: 'authorizer', type: AUTHORIZER_TYPE, native: true },
];

/** The same variables with the types upstream's compiler gives them (for the result type only). */
const TYPED_VARIABLES: readonly TypedVariable[] = [
  { name: 'object' },
  { name: 'oldObject' },
  { name: 'request', schema: REQUEST_SCHEMA },
  { name: 'authorizer', type: AUTHORIZER_TYPE },
];

const NOT_BOOL = 'must evaluate to bool';

const compiled = new Map<string, CompiledCelExpression | Error>();
const MAX_CACHED = 4096;

/** The compiled expression, or why it does not compile (upstream's detail text). */
function compileCondition(expression: string): CompiledCelExpression | Error {
  const known = compiled.get(expression);
  if (known) return known;
  let result: CompiledCelExpression | Error;
  try {
    result = compileCel(expression, VARIABLES);
  } catch (err) {
    result = err instanceof CelCompileError ? new Error(err.compilationFailed) : (err as Error);
  }
  if (compiled.size >= MAX_CACHED) compiled.delete(compiled.keys().next().value as string);
  compiled.set(expression, result);
  return result;
}

/**
 * Why a configuration may not hold the expression (upstream's detail text), or undefined when it may: it must
 * compile and its type be exactly bool. The type is the typed check's where the untyped one says `dyn` (reading
 * `request`); when only the typed check fails, `dyn` stands.
 */
export function matchConditionProblem(expression: string): string | undefined {
  const program = compileCondition(expression);
  if (program instanceof Error) return program.message;
  let type = program.outputType;
  const typed = typeCheckCelType(expression, TYPED_VARIABLES, 'webhook matchConditions');
  // A field the AdmissionRequest type does not have (`request.foo`, `request.object`) is upstream's compile error.
  if ('issue' in typed && UNDEFINED_FIELD.test(typed.issue)) return `compilation failed: ${typed.issue}`;
  if (type === 'dyn' && 'type' in typed) type = typed.type;
  return type === 'bool' ? undefined : `${NOT_BOOL} but got ${type}`;
}

const UNDEFINED_FIELD = /^ERROR: <input>:\d+:\d+: undefined field '/;

setMatchConditionCompiler((expression, fieldPath) => {
  const problem = matchConditionProblem(expression);
  return problem === undefined ? undefined : invalid(fieldPath, expression, problem);
});

export function celMatchConditions(registry: APIRegistry): MatchConditionEvaluator {
  return {
    async evaluate(webhook, activation: MatchActivation) {
      const authorizer = celAuthorizerFor(registry, activation.attrs);
      const vars = {
        object: activation.object ?? null,
        oldObject: activation.oldObject ?? null,
        request: activation.request,
        authorizer,
      };
      return webhook.matchConditions.map(({ expression }) => {
        const program = compileCondition(expression.trim());
        if (program instanceof Error) return program;
        try {
          const value = program.evaluate(vars);
          if (typeof value === 'boolean') return value;
          return new Error(`expression '${expression}' resulted in error: ${NOT_BOOL}`);
        } catch (err) {
          return new Error(`expression '${expression}' resulted in error: ${(err as Error).message}`);
        }
      });
    },
  };
}
