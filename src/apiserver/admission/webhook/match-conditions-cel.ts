/**
 * matchConditions in CEL, in the project's CEL environment (src/api/cel): the variables `object`, `oldObject`
 * (null where the operation has none), `request` (the AdmissionRequest the webhook would receive) and
 * `authorizer` (questions about the requesting user, answered by the apiserver's authorizer). Each expression is
 * compiled once; one that does not compile, or does not give a bool, is refused when the configuration is written
 * (the compiler is registered with the configurations' validation). `request` is untyped here (upstream types it as
 * AdmissionRequest), so an expression whose type the checker cannot tell (`dyn`) is accepted and must give a bool
 * when it runs.
 */

import {
  CelCompileError,
  type CelVariableDeclaration,
  type CompiledCelExpression,
  compileCel,
} from '../../../api/cel/index.js';
import { invalid } from '../../../api/field-errors.js';
import type { APIRegistry } from '../../api-registry.js';
import { setMatchConditionCompiler } from '../../registry/resources/admissionregistration-webhooks-validation.js';
import { celAuthorizerFor } from '../cel-authorizer.js';
import type { MatchActivation, MatchConditionEvaluator } from './match-conditions.js';

const VARIABLES: readonly CelVariableDeclaration[] = [
  { name: 'object' },
  { name: 'oldObject' },
  { name: 'request' },
  { name: 'authorizer', type: 'kubernetes.authorization.Authorizer', native: true },
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
    const program = compileCel(expression, VARIABLES);
    result = program.outputType === 'bool' || program.outputType === 'dyn' ? program : new Error(NOT_BOOL);
  } catch (err) {
    result = err instanceof CelCompileError ? new Error(err.compilationFailed) : (err as Error);
  }
  if (compiled.size >= MAX_CACHED) compiled.delete(compiled.keys().next().value as string);
  compiled.set(expression, result);
  return result;
}

setMatchConditionCompiler((expression, fieldPath) => {
  const result = compileCondition(expression);
  return result instanceof Error ? invalid(fieldPath, expression, result.message) : undefined;
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
