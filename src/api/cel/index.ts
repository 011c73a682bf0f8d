/** The CEL environment of the project (see environment.ts): compile once, evaluate with Kubernetes values. */

export { PER_CALL_COST_LIMIT } from './cost.js';
export {
  type CelCompileOptions,
  type CelVariableDeclaration,
  type CompiledCelExpression,
  compileCel,
} from './environment.js';
export { CelCompileError, CelEvaluationError, COST_LIMIT_MESSAGE } from './errors.js';
export {
  type CelAuthorize,
  CelAuthorizer,
  type CelAuthzAnswer,
  type CelAuthzQuestion,
  type CelRequestResource,
} from './libraries/authz.js';
export { type TypedVariable, typeCheckCel, typeCheckCelType } from './typed.js';
export { type CelValueSchema, fromCel, openAPISchemaForCel, type RawOpenAPISchema, toCel } from './values.js';
