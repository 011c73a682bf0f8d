/**
 * Validation of admissionregistration.k8s.io/v1 ValidatingAdmissionPolicies and their Bindings, as kube-apiserver
 * 1.33 checks them: failurePolicy; paramKind (apiVersion, kind); matchConstraints with at least one resourceRule
 * (rules as webhooks', plus resourceNames); matchConditions, variables, validations and auditAnnotations whose
 * expressions compile with upstream's `compilation failed: …` detail and give the type upstream wants; messages
 * on one line; reasons; audit annotation keys. A Binding: policyName, paramRef (name or selector,
 * parameterNotFoundAction), matchResources (upstream's path is spelled `matchResouces`), validationActions (Deny,
 * Warn, Audit; not both Deny and Warn). An update re-checks only the expressions it changes.
 */
import {
  duplicate,
  type FieldError,
  type FieldPath,
  forbidden,
  invalid,
  notSupported,
  path,
  required,
} from '../../../api/field-errors.js';
import type { LabelSelectorObject } from '../../../api/labels.js';
import { GoValue, goQuote } from '../../../api/validation/go-format.js';
import { validateLabelSelector } from '../../../api/validation/labels.js';
import { isValidPathSegmentName, nameIsDNSSubdomain } from '../../../api/validation/name-validators.js';
import { isDNS1035Label, isDNS1123Subdomain, isQualifiedName } from '../../../api/validation/names.js';
import {
  compilePolicyExpression,
  type PolicyEnvironment,
  type ReturnTypes,
  undefinedVariableReference,
} from '../../admission/policy/compile.js';
import type { KubeObject } from '../object.js';
import { validateMatchConditionList, validateRuleWithOperations } from './admissionregistration-webhooks-validation.js';
import { type Rec, rec, records, str, unset } from './groups-fields.js';

const FAILURE_POLICIES = ['Fail', 'Ignore'];
const MATCH_POLICIES = ['Equivalent', 'Exact'];
/** upstream's supportedValidationPolicyReason (reasonToCode also knows Unauthorized, which validation refuses). */
const REASONS = ['Forbidden', 'Invalid', 'RequestEntityTooLarge'];
const VALIDATION_ACTIONS = ['Audit', 'Deny', 'Warn'];
const PARAMETER_NOT_FOUND_ACTIONS = ['Deny', 'Allow'];
const MAX_AUDIT_ANNOTATIONS = 20;
const MAX_AUDIT_VALUE_EXPRESSION_LENGTH = 5 * 1024;

/** What an expression may name: the policy's environment and its variables. */
type ExpressionEnvironment = PolicyEnvironment & { variableNames?: readonly string[] };

/** Expressions the stored object already has: not compiled again on update (upstream's StoredExpressions). */
type Known = ReadonlySet<string>;

function checkExpression(
  expression: string,
  env: ExpressionEnvironment,
  want: ReturnTypes,
  p: FieldPath,
  known: Known,
  shown = expression,
): FieldError[] {
  if (known.has(expression)) return [];
  const variableNames = env.variableNames ?? [];
  const result = compilePolicyExpression(expression, env, want);
  if (typeof result === 'string') return [invalid(p, shown, result)];
  const undefinedVariable = undefinedVariableReference(expression, env, variableNames);
  return undefinedVariable ? [invalid(p, shown, undefinedVariable)] : [];
}

function strings(v: unknown): string[] {
  return Array.isArray(v) ? v.map((s) => (typeof s === 'string' ? s : String(s))) : [];
}

function validateNamedRule(rule: Rec, p: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  strings(rule.resourceNames).forEach((name, i) => {
    for (const msg of isValidPathSegmentName(name)) errs.push(invalid(p.child('resourceNames').index(i), name, msg));
    if (seen.has(name)) errs.push(duplicate(p.child('resourceNames').index(i), name));
    seen.add(name);
  });
  return [...errs, ...validateRuleWithOperations(rule, p)];
}

/** MatchResources of a policy (matchConstraints) or a binding (matchResources). */
function validateMatchResources(mc: Rec, p: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  if (unset(mc.matchPolicy)) errs.push(required(p.child('matchPolicy')));
  else if (!MATCH_POLICIES.includes(str(mc.matchPolicy))) {
    errs.push(notSupported(p.child('matchPolicy'), mc.matchPolicy, MATCH_POLICIES));
  }
  for (const field of ['namespaceSelector', 'objectSelector']) {
    if (unset(mc[field])) errs.push(required(p.child(field)));
    else errs.push(...validateLabelSelector(rec(mc[field]) as LabelSelectorObject, {}, p.child(field)));
  }
  records(mc.resourceRules).forEach((r, i) => {
    errs.push(...validateNamedRule(r, p.child('resourceRules').index(i)));
  });
  records(mc.excludeResourceRules).forEach((r, i) => {
    errs.push(...validateNamedRule(r, p.child('excludeResourceRules').index(i)));
  });
  return errs;
}

function validateParamKind(pk: Rec, p: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const apiVersion = str(pk.apiVersion);
  if (apiVersion === '') errs.push(required(p.child('apiVersion')));
  else {
    const slashes = apiVersion.split('/').length - 1;
    if (slashes > 1) {
      errs.push(invalid(p.child('apiVersion'), apiVersion, `unexpected GroupVersion string: ${apiVersion}`));
    } else {
      const [group, version] = slashes === 0 ? ['', apiVersion] : apiVersion.split('/');
      if (group) {
        const ge = isDNS1123Subdomain(group);
        if (ge.length > 0) errs.push(invalid(p.child('apiVersion'), group, ge.join(',')));
      }
      if (!version) errs.push(invalid(p.child('apiVersion'), apiVersion, 'version must be specified'));
      else {
        const ve = isDNS1035Label(version);
        if (ve.length > 0) errs.push(invalid(p.child('apiVersion'), version, ve.join(',')));
      }
    }
  }
  const kind = str(pk.kind);
  if (kind === '') errs.push(required(p.child('kind')));
  else {
    const ke = isDNS1035Label(kind.toLowerCase());
    if (ke.length > 0) {
      errs.push(invalid(p.child('kind'), kind, `may have mixed case, but should otherwise match: ${ke.join(',')}`));
    }
  }
  return errs;
}

const CEL_IDENTIFIER = /^[_a-zA-Z][_a-zA-Z0-9]*$/;
const CEL_RESERVED = new Set(
  'true false null in as break const continue else for function if import let loop package namespace return var void while'.split(
    ' ',
  ),
);

function validateValidation(v: Rec, env: ExpressionEnvironment, p: FieldPath, known: Known): FieldError[] {
  const errs: FieldError[] = [];
  const expression = str(v.expression);
  if (expression.trim() === '') errs.push(required(p.child('expression'), 'expression is not specified'));
  else errs.push(...checkExpression(expression, env, 'bool', p.child('expression'), known));
  const messageExpression = str(v.messageExpression);
  if (messageExpression.length > 0 && messageExpression.trim() === '') {
    errs.push(invalid(p.child('messageExpression'), messageExpression, 'must be non-empty if specified'));
  } else if (messageExpression.trim() !== '') {
    const messageEnv = { ...env, hasAuthorizer: false };
    errs.push(...checkExpression(messageExpression, messageEnv, 'string', p.child('messageExpression'), known));
  }
  const message = str(v.message);
  if (message.length > 0 && message.trim() === '') {
    errs.push(invalid(p.child('message'), message, 'message must be non-empty if specified'));
  } else if (/[\n\r]/.test(message.trim())) {
    errs.push(invalid(p.child('message'), message, 'message must not contain line breaks'));
  }
  if (!unset(v.reason) && !REASONS.includes(str(v.reason)))
    errs.push(notSupported(p.child('reason'), v.reason, REASONS));
  return errs;
}

function validateAuditAnnotation(
  a: Rec,
  policyName: string,
  env: ExpressionEnvironment,
  p: FieldPath,
  known: Known,
): FieldError[] {
  const errs: FieldError[] = [];
  const key = str(a.key);
  if (policyName !== '') {
    for (const msg of isQualifiedName(`${policyName}/${key}`)) {
      errs.push(invalid(p.child('key'), `${policyName}/${key}`, msg));
    }
  } else errs.push(invalid(p.child('key'), key, 'requires metadata.name be non-empty'));
  const valueExpression = str(a.valueExpression);
  const trimmed = valueExpression.trim();
  if (trimmed === '') errs.push(required(p.child('valueExpression'), 'valueExpression is not specified'));
  else if (trimmed.length > MAX_AUDIT_VALUE_EXPRESSION_LENGTH) {
    errs.push(
      required(p.child('valueExpression'), `must not exceed ${MAX_AUDIT_VALUE_EXPRESSION_LENGTH} bytes in length`),
    );
  } else
    errs.push(...checkExpression(trimmed, env, 'string-or-null', p.child('valueExpression'), known, valueExpression));
  return errs;
}

function validatePolicySpec(obj: KubeObject, known: Known, ignoreMatchConditions: boolean): FieldError[] {
  const spec = rec(obj.spec);
  const p = path('spec');
  const errs: FieldError[] = [];
  if (unset(spec.failurePolicy)) errs.push(required(p.child('failurePolicy')));
  else if (!FAILURE_POLICIES.includes(str(spec.failurePolicy))) {
    errs.push(notSupported(p.child('failurePolicy'), spec.failurePolicy, FAILURE_POLICIES));
  }
  const hasParams = !unset(spec.paramKind);
  if (hasParams) errs.push(...validateParamKind(rec(spec.paramKind), p.child('paramKind')));
  if (unset(spec.matchConstraints)) errs.push(required(p.child('matchConstraints')));
  else {
    const mc = rec(spec.matchConstraints);
    errs.push(...validateMatchResources(mc, p.child('matchConstraints')));
    if (records(mc.resourceRules).length === 0) errs.push(required(p.child('matchConstraints', 'resourceRules')));
  }
  const allVariables = records(spec.variables).map((v) => str(v.name));
  const env = { hasParams, hasAuthorizer: true, variableNames: allVariables };
  if (!ignoreMatchConditions) {
    errs.push(
      ...validateMatchConditionList(records(spec.matchConditions), p.child('matchConditions'), (expression, fp) =>
        checkExpression(expression, env, 'bool', fp, known),
      ),
    );
  }
  records(spec.variables).forEach((v, i) => {
    const vp = p.child('variables').index(i);
    const name = str(v.name);
    if (name.trim() === '') errs.push(required(vp.child('name'), 'name is not specified'));
    else if (!CEL_IDENTIFIER.test(name) || CEL_RESERVED.has(name)) {
      errs.push(invalid(vp.child('name'), name, 'name is not a valid CEL identifier'));
    }
    const expression = str(v.expression);
    if (expression.trim() === '') errs.push(required(vp.child('expression'), 'expression is not specified'));
    else {
      const earlier = { ...env, variableNames: allVariables.slice(0, i) };
      errs.push(...checkExpression(expression, earlier, 'any', vp.child('expression'), known));
    }
  });
  const validations = records(spec.validations);
  const annotations = records(spec.auditAnnotations);
  if (validations.length === 0 && annotations.length === 0) {
    const msg = 'validations or auditAnnotations must contain at least one item';
    errs.push(required(p.child('validations'), msg), required(p.child('auditAnnotations'), msg));
    return errs;
  }
  validations.forEach((v, i) => {
    errs.push(...validateValidation(v, env, p.child('validations').index(i), known));
  });
  if (annotations.length > MAX_AUDIT_ANNOTATIONS) {
    errs.push(
      invalid(
        p.child('auditAnnotations'),
        spec.auditAnnotations,
        `must not have more than ${MAX_AUDIT_ANNOTATIONS} auditAnnotations`,
      ),
    );
  }
  const keys = new Set<string>();
  annotations.forEach((a, i) => {
    const ap = p.child('auditAnnotations').index(i);
    errs.push(...validateAuditAnnotation(a, obj.metadata.name ?? '', env, ap, known));
    if (keys.has(str(a.key))) errs.push(duplicate(ap.child('key'), str(a.key)));
    keys.add(str(a.key));
  });
  return errs;
}

/** Every expression of a stored policy (kept from re-compilation on update). */
function expressionsOf(obj: KubeObject): Set<string> {
  const spec = rec(obj.spec);
  const out = new Set<string>();
  for (const v of records(spec.validations)) {
    out.add(str(v.expression));
    out.add(str(v.messageExpression));
  }
  for (const v of records(spec.variables)) out.add(str(v.expression));
  for (const a of records(spec.auditAnnotations)) out.add(str(a.valueExpression).trim());
  out.delete('');
  return out;
}

export function validateValidatingAdmissionPolicy(obj: KubeObject): FieldError[] {
  return validatePolicySpec(obj, new Set(), false);
}

export function validateValidatingAdmissionPolicyUpdate(obj: KubeObject, old: KubeObject): FieldError[] {
  const spec = rec(obj.spec);
  const oldSpec = rec(old.spec);
  const sameParams = JSON.stringify(spec.paramKind ?? null) === JSON.stringify(oldSpec.paramKind ?? null);
  const ignoreMatchConditions =
    sameParams && JSON.stringify(spec.matchConditions ?? null) === JSON.stringify(oldSpec.matchConditions ?? null);
  return validatePolicySpec(obj, sameParams ? expressionsOf(old) : new Set(), ignoreMatchConditions);
}

function validateParamRef(pr: Rec, p: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const name = str(pr.name);
  const hasSelector = !unset(pr.selector);
  if (name !== '') {
    for (const msg of isValidPathSegmentName(name)) errs.push(invalid(p.child('name'), name, msg));
    if (hasSelector) errs.push(forbidden(p.child('name'), 'name and selector are mutually exclusive'));
  }
  if (hasSelector) {
    errs.push(...validateLabelSelector(rec(pr.selector) as LabelSelectorObject, {}, p.child('selector')));
    if (name !== '') errs.push(forbidden(p.child('selector'), 'name and selector are mutually exclusive'));
  }
  if (name === '' && !hasSelector) errs.push(required(p, 'one of name or selector must be specified'));
  const action = str(pr.parameterNotFoundAction);
  if (action === '') errs.push(required(p.child('parameterNotFoundAction')));
  else if (!PARAMETER_NOT_FOUND_ACTIONS.includes(action)) {
    errs.push(notSupported(p.child('parameterNotFoundAction'), action, PARAMETER_NOT_FOUND_ACTIONS));
  }
  return errs;
}

function validateValidationActions(actions: string[], p: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  actions.forEach((a, i) => {
    if (!VALIDATION_ACTIONS.includes(a)) errs.push(notSupported(p.index(i), a, VALIDATION_ACTIONS));
    if (seen.has(a)) errs.push(duplicate(p.index(i), a));
    seen.add(a);
  });
  if (seen.has('Deny') && seen.has('Warn')) {
    errs.push(
      invalid(
        p,
        new GoValue(`[]admissionregistration.ValidationAction{${actions.map(goQuote).join(', ')}}`),
        'must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)',
      ),
    );
  }
  if (seen.size === 0) errs.push(required(p, 'at least one validation action is required'));
  return errs;
}

export function validateValidatingAdmissionPolicyBinding(obj: KubeObject): FieldError[] {
  const spec = rec(obj.spec);
  const p = path('spec');
  const errs: FieldError[] = [];
  const policyName = str(spec.policyName);
  if (policyName === '') errs.push(required(p.child('policyName')));
  else
    for (const msg of nameIsDNSSubdomain(policyName, false)) errs.push(invalid(p.child('policyName'), policyName, msg));
  if (!unset(spec.paramRef)) errs.push(...validateParamRef(rec(spec.paramRef), p.child('paramRef')));
  if (!unset(spec.matchResources))
    errs.push(...validateMatchResources(rec(spec.matchResources), p.child('matchResouces')));
  errs.push(...validateValidationActions(strings(spec.validationActions), p.child('validationActions')));
  return errs;
}
