/**
 * `x-kubernetes-validations`: CEL rules on schema nodes, compiled with the project's CEL environment and evaluated
 * over a custom resource as apiextensions' CEL validator does — `self` is the node's value, `oldSelf` its value
 * before an update (a rule that uses oldSelf is a transition rule: it runs only when the old value exists, unless
 * `optionalOldSelf` makes oldSelf an optional), a failed rule gives its `message`, `messageExpression` or
 * `failed rule: <rule>` at the node's path (or `fieldPath`), typed by `reason`.
 *
 * Types: rules are type-checked with `self` declared from the node's schema (object fields, lists, maps; dyn for
 * int-or-string and free-form parts), and evaluated with values converted by it (integer → int, number → double).
 */
import { Optional } from '@marcbachmann/cel-js';
import {
  CelCompileError,
  type CelValueSchema,
  type CelVariableDeclaration,
  COST_LIMIT_MESSAGE,
  type CompiledCelExpression,
  compileCel,
  openAPISchemaForCel,
  type RawOpenAPISchema,
  type TypedVariable,
  toCel,
  typeCheckCel,
} from '../../../api/cel/index.js';
import {
  additionalProperties,
  isEmbeddedResource,
  isObject,
  items,
  jsonEqual,
  properties,
  property,
  type Schema,
  stringList,
  stringValue,
  typeOf,
} from '../../../api/crd-schema-node.js';
import {
  duplicate,
  type FieldError,
  type FieldPath,
  forbidden,
  internalError,
  invalid,
  path as newPath,
  required,
} from '../../../api/field-errors.js';
import { GoValue, goQuote } from '../../../api/validation/go-format.js';

/** One entry of x-kubernetes-validations, as the wire holds it. */
export interface ValidationRule {
  rule?: string;
  message?: string;
  messageExpression?: string;
  reason?: string;
  fieldPath?: string;
  optionalOldSelf?: boolean;
}

/** The reasons a rule may give (apiextensions' FieldValueErrorReason). */
export const SUPPORTED_REASONS = [
  'FieldValueDuplicate',
  'FieldValueForbidden',
  'FieldValueInvalid',
  'FieldValueRequired',
];

export interface CompiledRule {
  readonly rule: ValidationRule;
  readonly program?: CompiledCelExpression;
  /** Why the rule does not compile (`compilation failed: …`, `cel expression must evaluate to a bool`). */
  readonly error?: string;
  readonly usesOldSelf: boolean;
  readonly messageExpression?: CompiledCelExpression;
  readonly messageExpressionError?: string;
  /** fieldPath normalized (`spec.foo[bar]`), when it is valid. */
  readonly normalizedFieldPath?: string;
}

export function validationRules(s: Schema | undefined): ValidationRule[] {
  const v = s?.['x-kubernetes-validations'];
  return Array.isArray(v) ? v.filter(isObject).map((r) => r as ValidationRule) : [];
}

/** Whether an expression refers to the variable `oldSelf` (outside string literals). */
function refersToOldSelf(expression: string): boolean {
  const code = expression.replace(/'''[\s\S]*?'''|"""[\s\S]*?"""|'(?:\\.|[^'\\])*'|"(?:\\.|[^"\\])*"/g, '""');
  return /(^|[^\w.])oldSelf\b/.test(code);
}

const cache = new WeakMap<Schema, CompiledRule[]>();
const rootCache = new WeakMap<Schema, CompiledRule[]>();
let nodeCount = 0;

const STRING = { type: 'string' };

/**
 * The node's schema as its rules see it. At a resource's root (the whole object, or an embedded resource) `self`
 * also has kind, apiVersion and metadata.name / metadata.generateName (and no other metadata), as upstream's
 * WithTypeAndObjectMeta declares them, whatever the schema says of them.
 */
function celSchemaOf(s: Schema, resourceRoot: boolean): RawOpenAPISchema {
  if (!resourceRoot) return s as RawOpenAPISchema;
  const meta = { type: 'object', properties: { name: STRING, generateName: STRING } };
  const props = { ...(properties(s) ?? {}), kind: STRING, apiVersion: STRING, metadata: meta };
  return { ...(s as RawOpenAPISchema), properties: props } as RawOpenAPISchema;
}

/**
 * The compiled rules of one schema node (compiled once per node object). resourceRoot: the node is the schema of a
 * whole object (the CRD's openAPIV3Schema); an embedded resource's node counts as one by its own flag.
 */
export function compiledRules(s: Schema, resourceRoot = false): CompiledRule[] {
  const root = resourceRoot || isEmbeddedResource(s);
  const byNode = root ? rootCache : cache;
  const cached = byNode.get(s);
  if (cached) return cached;
  const valueSchema = openAPISchemaForCel(celSchemaOf(s, root));
  const key = `crd-rules-${++nodeCount}`;
  const compiled = validationRules(s).map((rule) => compileRule(s, rule, valueSchema, key));
  byNode.set(s, compiled);
  return compiled;
}

/**
 * Type-checks an expression with `self` and `oldSelf` typed by the node's schema (object fields, lists, maps), as
 * upstream compiles rules against the schema's declared type; `wrap` checks the result type (`!(e)` is a bool only).
 */
function typeIssue(
  expression: string,
  valueSchema: CelValueSchema,
  optional: boolean,
  key: string,
  wrap?: (e: string) => string,
): string | undefined {
  const vars: TypedVariable[] = [
    { name: 'self', schema: valueSchema },
    optional ? { name: 'oldSelf', type: 'optional<dyn>' } : { name: 'oldSelf', schema: valueSchema },
  ];
  return typeCheckCel(wrap ? wrap(expression) : expression, vars, `${key}:${optional}`);
}

const asBool = (e: string) => `!(${e}\n)`;
const asString = (e: string) => `(${e}\n) + ""`;

function compileRule(s: Schema, rule: ValidationRule, valueSchema: CelValueSchema, key: string): CompiledRule {
  const text = typeof rule.rule === 'string' ? rule.rule : '';
  const usesOldSelf = refersToOldSelf(text);
  if (text.trim() === '') return { rule, usesOldSelf: false };
  const optional = rule.optionalOldSelf === true;
  // Evaluation runs in the dynamic environment, values converted by the schema (ints stay ints).
  const vars: CelVariableDeclaration[] = [
    { name: 'self', schema: valueSchema },
    { name: 'oldSelf', type: optional ? 'optional<dyn>' : 'dyn', schema: valueSchema, native: optional },
  ];
  let program: CompiledCelExpression;
  try {
    program = compileCel(text, vars);
  } catch (err) {
    return { rule, usesOldSelf, error: compileMessage(err) };
  }
  const issue = typeIssue(text, valueSchema, optional, key);
  if (issue !== undefined) return { rule, usesOldSelf, error: `compilation failed: ${issue}` };
  const notBool =
    (program.outputType !== 'bool' && program.outputType !== 'dyn') ||
    typeIssue(text, valueSchema, optional, key, asBool) !== undefined;
  if (notBool) return { rule, usesOldSelf, error: 'cel expression must evaluate to a bool' };
  const normalizedFieldPath = rule.fieldPath ? validFieldPath(rule.fieldPath, s)?.toString() : undefined;
  const base = { rule, usesOldSelf, program, ...(normalizedFieldPath ? { normalizedFieldPath } : {}) };
  const messageExpression = typeof rule.messageExpression === 'string' ? rule.messageExpression : '';
  if (messageExpression === '') return base;
  let msg: CompiledCelExpression;
  try {
    msg = compileCel(messageExpression, vars);
  } catch (err) {
    const detail = err instanceof CelCompileError ? err.issue : String(err);
    return { ...base, messageExpressionError: `messageExpression compilation failed: ${detail}` };
  }
  const msgIssue = typeIssue(messageExpression, valueSchema, optional, key);
  if (msgIssue !== undefined)
    return { ...base, messageExpressionError: `messageExpression compilation failed: ${msgIssue}` };
  const notString =
    (msg.outputType !== 'string' && msg.outputType !== 'dyn') ||
    typeIssue(messageExpression, valueSchema, optional, key, asString) !== undefined;
  if (notString) return { ...base, messageExpressionError: 'messageExpression must evaluate to a string' };
  return { ...base, messageExpression: msg };
}

function compileMessage(err: unknown): string {
  if (err instanceof CelCompileError) return err.compilationFailed;
  return `compilation failed: ${(err as Error)?.message ?? String(err)}`;
}

/** A rule as Go's `%#v` prints apiextensions.ValidationRule (the bad value of a rule's compile error). */
export function goValidationRule(rule: ValidationRule): GoValue {
  const str = (v: unknown) => goQuote(typeof v === 'string' ? v : '');
  const reason =
    rule.reason === undefined
      ? '(*apiextensions.FieldValueErrorReason)(nil)'
      : `(*apiextensions.FieldValueErrorReason)(${goQuote(rule.reason)})`;
  const optional = rule.optionalOldSelf === undefined ? '(*bool)(nil)' : `(*bool)(${String(rule.optionalOldSelf)})`;
  return new GoValue(
    `apiextensions.ValidationRule{Rule:${str(rule.rule)}, Message:${str(rule.message)}, MessageExpression:${str(rule.messageExpression)}, Reason:${reason}, FieldPath:${str(rule.fieldPath)}, OptionalOldSelf:${optional}}`,
  );
}

function unescapeSingleQuoted(s: string): string | undefined {
  const map: Record<string, string> = {
    a: '\x07',
    b: '\b',
    f: '\f',
    n: '\n',
    r: '\r',
    t: '\t',
    v: '\v',
    "'": "'",
    '\\': '\\',
  };
  let bad = false;
  const out = s.replace(/\\./g, (m) => {
    const r = map[m[1] ?? ''];
    if (r === undefined) bad = true;
    return r ?? '';
  });
  return bad ? undefined : out;
}

/** What a JSON path names in a schema: the field path and its schema, or upstream's words for why it names none. */
export type ResolvedFieldPath =
  | { path: FieldPath | undefined; schema: Schema | undefined; error?: undefined }
  | { error: string };

/**
 * Resolves a JSON path of field and map accessors (`.spec.foo`, `['a.b']`) against the schema, as upstream's
 * cel.ValidFieldPath: with allowArrayNotation false (selectable fields) no `[…]` accessor is allowed.
 */
export function resolveFieldPath(jsonPath: string, schema: Schema, allowArrayNotation = true): ResolvedFieldPath {
  const tokens = jsonPath.match(/'(?:\\.|[^'\\])*'|[.[\]]|[^.[\]']+/g) ?? [];
  let p: FieldPath | undefined;
  let s: Schema | undefined = schema;
  const NOT_A_FIELD = 'does not refer to a valid field';
  const step = (name: string): string | undefined => {
    if (s && properties(s)) {
      p = p ? p.child(name) : newPath(name);
      s = property(s, name);
      return s === undefined ? NOT_A_FIELD : undefined;
    }
    const additional = s ? additionalProperties(s) : undefined;
    if (!additional) return NOT_A_FIELD;
    p = p ? p.key(name) : newPath('').key(name);
    s = additional.schema;
    return undefined;
  };
  const END = 'unexpected end of JSON path';
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i] as string;
    if (t === '.') {
      const name = tokens[++i];
      if (name === undefined) return { error: END };
      const error = step(name);
      if (error) return { error };
    } else if (t === '[') {
      if (!allowArrayNotation) return { error: 'array notation is not allowed' };
      const quoted = tokens[++i];
      if (quoted === undefined) return { error: END };
      if (quoted.length < 2 || !quoted.startsWith("'") || !quoted.endsWith("'")) {
        return { error: `expected single quoted string but got ${quoted}` };
      }
      const name = unescapeSingleQuoted(quoted.slice(1, -1));
      if (name === undefined) return { error: 'invalid string literal' };
      const error = step(name);
      if (error) return { error };
      const close = tokens[++i];
      if (close === undefined) return { error: END };
      if (close !== ']') return { error: `expected ] but got ${close}` };
    } else {
      return { error: `expected [ or . but got: ${t}` };
    }
  }
  return { path: p, schema: s };
}

/** A rule's fieldPath checked against the schema: the field path it names, or undefined when it names none. */
export function validFieldPath(jsonPath: string, schema: Schema): FieldPath | undefined {
  const resolved = resolveFieldPath(jsonPath, schema);
  return resolved.error === undefined ? resolved.path : undefined;
}

function errorForReason(p: FieldPath | null, value: unknown, detail: string, reason: string | undefined): FieldError {
  switch (reason) {
    case 'FieldValueForbidden':
      return forbidden(p, detail);
    case 'FieldValueRequired':
      return required(p, detail);
    case 'FieldValueDuplicate':
      return duplicate(p, value);
    default:
      return invalid(p, value, detail);
  }
}

const ruleErrorString = (rule: ValidationRule) =>
  (rule.message ?? '').length > 0 ? (rule.message ?? '').trim() : (rule.rule ?? '').trim();

function ruleMessageOrDefault(rule: ValidationRule): string {
  return (rule.message ?? '').length === 0 ? `failed rule: ${ruleErrorString(rule)}` : (rule.message ?? '').trim();
}

const MAX_MESSAGE_EXPRESSION_BYTES = 5 * 1024;

/** The message a messageExpression gives, or why it cannot be used (upstream then falls back to the message). */
function evalMessageExpression(
  expr: CompiledCelExpression,
  activation: Record<string, unknown>,
): { message: string } | { fallback: true } | { invalid: string } {
  let result: unknown;
  try {
    result = expr.evaluate(activation);
  } catch (err) {
    if ((err as Error).message === COST_LIMIT_MESSAGE) {
      return {
        invalid: `no further validation rules will be run due to call cost exceeds limit for messageExpression: ${goQuote(expr.expression)}`,
      };
    }
    return { fallback: true };
  }
  if (typeof result !== 'string') return { fallback: true };
  const trimmed = result.trim();
  if (Buffer.byteLength(trimmed) > MAX_MESSAGE_EXPRESSION_BYTES || trimmed.includes('\n') || trimmed === '') {
    return { fallback: true };
  }
  return { message: trimmed };
}

interface Walk {
  errs: FieldError[];
  /** Where errors of unchanged values go instead (ratcheting); dropped when absent. */
  warnings?: string[];
  /** Set once a rule stops all further rules (the cost limit). */
  stopped: boolean;
}

const childPath = (p: FieldPath | null, name: string) => (p ? p.child(name) : newPath(name));

function validateExpressions(p: FieldPath | null, s: Schema, obj: unknown, oldObj: unknown, w: Walk): void {
  // No path: the value is the whole object.
  const rules = compiledRules(s, p === null);
  if (rules.length === 0) return;
  const type = typeOf(s);
  const hasOld = oldObj !== undefined && oldObj !== null;
  // Ratcheting: a rule that does not use oldSelf and fails on an unchanged value warns instead of failing.
  const unchanged = hasOld && jsonEqual(obj, oldObj);
  for (const compiled of rules) {
    if (w.stopped) return;
    const { rule } = compiled;
    if (compiled.error !== undefined) {
      w.errs.push(invalid(p, type, `rule compile error: ${compiled.error}`));
      continue;
    }
    if (!compiled.program) continue;
    const optional = rule.optionalOldSelf === true;
    if (compiled.usesOldSelf && !hasOld && !optional) continue;
    const activation: Record<string, unknown> = { self: obj };
    if (optional) activation.oldSelf = optionalOf(hasOld, oldObj, s);
    else if (hasOld) activation.oldSelf = oldObj;
    let result: unknown;
    try {
      result = compiled.program.evaluate(activation);
    } catch (err) {
      const message = (err as Error).message;
      if (message.startsWith('no such overload')) {
        w.errs.push(
          invalid(
            p,
            type,
            `'${message}': call arguments did not match a supported operator, function or macro signature for rule: ${ruleErrorString(rule)}`,
          ),
        );
      } else if (message.startsWith(COST_LIMIT_MESSAGE)) {
        w.errs.push(
          invalid(
            p,
            type,
            `'${message}': no further validation rules will be run due to call cost exceeds limit for rule: ${ruleErrorString(rule)}`,
          ),
        );
        w.stopped = true;
      } else {
        w.errs.push(invalid(p, type, `${message} evaluating rule: ${ruleErrorString(rule)}`));
      }
      continue;
    }
    if (result === true) continue;
    const at = compiled.normalizedFieldPath ? childPath(p, compiled.normalizedFieldPath) : p;
    const ratchet = unchanged && !compiled.usesOldSelf;
    const add = (e: FieldError) => {
      if (!ratchet) w.errs.push(e);
      else w.warnings?.push(e.message);
    };
    if (compiled.messageExpression) {
      // The messageExpression sees oldSelf as the rule's non-optional activation does.
      const msgActivation: Record<string, unknown> = { self: obj };
      if (hasOld) msgActivation.oldSelf = optional ? optionalOf(true, oldObj, s) : oldObj;
      const msg = evalMessageExpression(compiled.messageExpression, msgActivation);
      if ('invalid' in msg) {
        add(invalid(at, type, msg.invalid));
        w.stopped = true;
        return;
      }
      add(errorForReason(at, type, 'message' in msg ? msg.message : ruleMessageOrDefault(rule), rule.reason));
    } else {
      add(errorForReason(at, type, ruleMessageOrDefault(rule), rule.reason));
    }
  }
}

/** `oldSelf` under optionalOldSelf: a CEL optional of the old value, converted by the node's schema. */
function optionalOf(has: boolean, value: unknown, s: Schema): Optional<unknown> {
  return has ? Optional.of(toCel(value, openAPISchemaForCel(s as RawOpenAPISchema))) : Optional.none();
}

/** Whether a map type lets old and new values be correlated by key (granular and atomic maps do). */
const mapIsCorrelatable = (s: Schema) => {
  const t = stringValue(s, 'x-kubernetes-map-type');
  return t === undefined || t === 'granular' || t === 'atomic';
};

/** The old item of a list-type map with the same keys as `item`, if any. */
function correlatedItem(s: Schema, oldList: unknown, item: unknown): unknown {
  if (stringValue(s, 'x-kubernetes-list-type') !== 'map' || !Array.isArray(oldList) || !isObject(item))
    return undefined;
  const keys = stringList(s, 'x-kubernetes-list-map-keys');
  return oldList.find(
    (o) => isObject(o) && keys.every((k) => Object.hasOwn(o, k) === Object.hasOwn(item, k) && o[k] === item[k]),
  );
}

function walk(p: FieldPath | null, s: Schema | undefined, obj: unknown, oldObj: unknown, w: Walk): void {
  if (!s || obj === null || obj === undefined || w.stopped) return;
  validateExpressions(p, s, obj, oldObj, w);
  if (Array.isArray(obj)) {
    const itemSchema = items(s);
    if (!itemSchema) return;
    obj.forEach((v, i) => {
      walk(p ? p.index(i) : newPath('').index(i), itemSchema, v, correlatedItem(s, oldObj, v), w);
    });
    return;
  }
  if (!isObject(obj)) return;
  const correlatable = mapIsCorrelatable(s);
  const old = isObject(oldObj) && correlatable ? oldObj : undefined;
  const additional = additionalProperties(s)?.schema;
  if (additional) {
    for (const [k, v] of Object.entries(obj)) walk(p ? p.key(k) : newPath('').key(k), additional, v, old?.[k], w);
  }
  const props = properties(s);
  if (props) {
    for (const [k, v] of Object.entries(obj)) {
      const sub = property(s, k);
      if (sub) walk(childPath(p, k), sub, v, old?.[k], w);
    }
  }
}

/** Whether any node of the schema has x-kubernetes-validations. */
export function hasValidationRules(s: Schema | undefined, depth = 0): boolean {
  if (!s || depth > 64) return false;
  if (validationRules(s).length > 0) return true;
  if (hasValidationRules(items(s), depth + 1)) return true;
  if (hasValidationRules(additionalProperties(s)?.schema, depth + 1)) return true;
  return Object.values(properties(s) ?? {}).some((v) => isObject(v) && hasValidationRules(v, depth + 1));
}

/**
 * Runs every x-kubernetes-validations rule over a value; `base` is the value's path (null for a whole object). On
 * update, failures of rules without oldSelf on unchanged values go to `warnings` instead (ratcheting).
 */
export function validateRules(
  base: FieldPath | null,
  obj: unknown,
  schema: Schema,
  oldObj?: unknown,
  warnings?: string[],
): FieldError[] {
  const w: Walk = { errs: [], stopped: false, ...(warnings ? { warnings } : {}) };
  try {
    walk(base, schema, obj, oldObj, w);
  } catch (err) {
    w.errs.push(internalError(base, err as Error));
  }
  return w.errs;
}
