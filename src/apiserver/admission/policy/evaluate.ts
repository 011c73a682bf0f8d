/**
 * Evaluating one policy for one binding and one param, as upstream's validator does: the matchConditions first
 * (one false: the policy does not apply), then every validation, then the auditAnnotations. A validation that is
 * false denies with its messageExpression's text, else its message, else `failed expression: <expression>`; an
 * expression that fails to evaluate (or to compile, for one stored before) denies under failurePolicy Fail and
 * admits under Ignore. `variables` are evaluated lazily, once per evaluation, when an expression reads them.
 */
import { type CompiledCelExpression, toCel } from '../../../api/cel/index.js';
import type { APIRegistry } from '../../api-registry.js';
import type { KubeObject } from '../../registry/object.js';
import { celAuthorizerFor } from '../cel-authorizer.js';
import type { AdmissionAttributes } from '../types.js';
import { compilePolicyExpression, type PolicyEnvironment, type ReturnTypes } from './compile.js';

type Rec = Record<string, unknown>;
const rec = (v: unknown): Rec => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Rec) : {});
const records = (v: unknown): Rec[] => (Array.isArray(v) ? v.map(rec) : []);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

export interface PolicyDecision {
  action: 'admit' | 'deny';
  message: string;
  /** The validation's reason (Forbidden, Invalid, …), when it set one. */
  reason?: string;
  /** The validation's position, for the Audit action's annotation. */
  index: number;
}

export interface AuditAnnotationResult {
  key: string;
  value: string;
}

export interface ValidateResult {
  decisions: PolicyDecision[];
  auditAnnotations: AuditAnnotationResult[];
  /**
   * auditAnnotations that failed to evaluate under failurePolicy Fail (upstream's AuditAnnotationActionError): each
   * denies the request whatever the binding's validationActions say.
   */
  auditAnnotationErrors: string[];
}

/** The `request` variable: the AdmissionRequest of the request, as upstream's CreateAdmissionRequest fills it. */
export function admissionRequestOf(attrs: AdmissionAttributes): Rec {
  const user = attrs.userInfo;
  const userInfo: Rec = { username: user?.name ?? '' };
  if (user?.uid) userInfo.uid = user.uid;
  if (user?.groups?.length) userInfo.groups = user.groups;
  if (user?.extra && Object.keys(user.extra).length > 0) userInfo.extra = user.extra;
  return {
    kind: attrs.kind,
    resource: attrs.resource,
    subResource: attrs.subresource,
    requestKind: attrs.kind,
    requestResource: attrs.resource,
    requestSubResource: attrs.subresource,
    name: attrs.name,
    namespace: attrs.namespace,
    operation: attrs.operation,
    userInfo,
    dryRun: attrs.dryRun,
    options: attrs.options ?? null,
  };
}

export interface EvaluationInput {
  policy: KubeObject;
  attrs: AdmissionAttributes;
  registry: APIRegistry;
  param: KubeObject | null;
  namespaceObject: KubeObject | null;
}

function compiled(expression: string, env: PolicyEnvironment, want: ReturnTypes): CompiledCelExpression | string {
  return compilePolicyExpression(expression, env, want);
}

/** Evaluates the policy's expressions for one binding and param. */
export function validatePolicy(input: EvaluationInput): ValidateResult {
  const { policy, attrs, registry } = input;
  const spec = rec(policy.spec);
  const fail = spec.failurePolicy !== 'Ignore';
  const onError = (message: string, index: number): PolicyDecision => ({
    action: fail ? 'deny' : 'admit',
    message,
    index,
  });
  const env: PolicyEnvironment = { hasParams: spec.paramKind != null, hasAuthorizer: true };
  const authorizer = celAuthorizerFor(registry, attrs);
  const variables: Rec = {};
  // Converted to CEL values once here, for every expression of this evaluation.
  const activation: Rec = {
    object: toCel(attrs.operation === 'DELETE' ? null : attrs.object),
    oldObject: toCel(attrs.oldObject),
    request: toCel(admissionRequestOf(attrs)),
    namespaceObject: toCel(input.namespaceObject),
    variables,
    authorizer,
    ...(env.hasParams ? { params: toCel(input.param) } : {}),
  };
  for (const v of records(spec.variables)) {
    const name = str(v.name);
    let value: { ok: unknown } | { err: Error } | undefined;
    Object.defineProperty(variables, name, {
      enumerable: true,
      get: () => {
        if (!value) {
          const program = compiled(str(v.expression), env, 'any');
          if (typeof program === 'string') value = { err: new Error(program) };
          else {
            try {
              value = { ok: program.evaluateCel(activation) };
            } catch (err) {
              value = { err: err as Error };
            }
          }
        }
        if ('err' in value) throw value.err;
        return value.ok;
      },
    });
  }

  for (const c of records(spec.matchConditions)) {
    const expression = str(c.expression);
    const program = compiled(expression.trim(), env, 'bool');
    if (typeof program === 'string')
      return {
        decisions: [onError(`compilation error: ${program}`, 0)],
        auditAnnotations: [],
        auditAnnotationErrors: [],
      };
    try {
      const matched = program.evaluate(activation);
      if (matched === false) return { decisions: [], auditAnnotations: [], auditAnnotationErrors: [] };
      if (matched !== true) throw new Error('must evaluate to bool');
    } catch (err) {
      const message = `expression '${expression}' resulted in error: ${(err as Error).message}`;
      return { decisions: [onError(message, 0)], auditAnnotations: [], auditAnnotationErrors: [] };
    }
  }

  const decisions: PolicyDecision[] = [];
  records(spec.validations).forEach((v, index) => {
    const expression = str(v.expression);
    const program = compiled(expression, env, 'bool');
    if (typeof program === 'string') {
      decisions.push(onError(`compilation error: ${program}`, index));
      return;
    }
    let result: unknown;
    try {
      result = program.evaluate(activation);
      if (typeof result !== 'boolean') throw new Error('must evaluate to bool');
    } catch (err) {
      decisions.push(onError(`expression '${expression}' resulted in error: ${(err as Error).message}`, index));
      return;
    }
    if (result) {
      decisions.push({ action: 'admit', message: '', index });
      return;
    }
    decisions.push({
      action: 'deny',
      message: failureMessage(v, env, activation),
      ...(typeof v.reason === 'string' && v.reason !== '' ? { reason: v.reason } : {}),
      index,
    });
  });

  // As upstream's validator: a value is trimmed and an empty one left out, as null is; an expression that fails
  // (to compile or to evaluate) is an error under Fail and left out under Ignore.
  const auditAnnotations: AuditAnnotationResult[] = [];
  const auditAnnotationErrors: string[] = [];
  for (const a of records(spec.auditAnnotations)) {
    const expression = str(a.valueExpression).trim();
    const program = compiled(expression, env, 'string-or-null');
    if (typeof program === 'string') {
      if (fail) auditAnnotationErrors.push(`compilation error: ${program}`);
      continue;
    }
    let value: unknown;
    try {
      value = program.evaluate(activation);
    } catch (err) {
      if (fail) auditAnnotationErrors.push(`expression '${expression}' resulted in error: ${(err as Error).message}`);
      continue;
    }
    if (value !== null && typeof value !== 'string') {
      // Upstream names the CEL type; this says what was wanted, under any failurePolicy as upstream.
      auditAnnotationErrors.push(
        `valueExpression '${expression}' resulted in unsupported return type. Return type must be either string or null.`,
      );
      continue;
    }
    const trimmed = typeof value === 'string' ? value.trim() : '';
    if (trimmed !== '') auditAnnotations.push({ key: str(a.key), value: trimmed });
  }
  return { decisions, auditAnnotations, auditAnnotationErrors };
}

/** The message of a failed validation: its messageExpression's text when that gives one on one line. */
function failureMessage(v: Rec, env: PolicyEnvironment, activation: Rec): string {
  const messageExpression = str(v.messageExpression);
  if (messageExpression.trim() !== '') {
    const program = compiled(messageExpression, { hasParams: env.hasParams, hasAuthorizer: false }, 'string');
    if (typeof program !== 'string') {
      try {
        const text = program.evaluate(activation);
        if (typeof text === 'string' && text.trim() !== '' && !/[\n\r]/.test(text)) return text.trim();
      } catch {
        // Upstream logs the failure and falls back to the static message.
      }
    }
  }
  const message = str(v.message);
  if (message !== '') return message;
  return `failed expression: ${str(v.expression).trim()}`;
}
