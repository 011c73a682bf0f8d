/**
 * Value validation of a custom resource against its schema, as kube-openapi's SchemaValidator does it for
 * apiextensions: per schema node the type, allOf/anyOf/oneOf/not, string, format, number, array, enum and object
 * checks, in that order, with kube-openapi's messages (`spec.size in body should be less than or equal to 10`) turned
 * into field errors as apiextensions turns them (`spec.size: Invalid value: 11: …`).
 */

import {
  additionalProperties,
  isIntOrString,
  isNullable,
  isObject,
  jsonEqual,
  numberValue,
  properties,
  type Schema,
  schemaList,
  stringList,
  stringValue,
  typeOf,
} from '../../../api/crd-schema-node.js';
import {
  type FieldError,
  type FieldPath,
  invalid,
  path as newPath,
  notSupported,
  required,
  tooLong,
  tooMany,
  typeInvalid,
} from '../../../api/field-errors.js';
import { goFloat, goQuote } from '../../../api/validation/go-format.js';
import { isSupportedFormat, matchesFormat } from './formats.js';
import { compilePattern } from './pattern.js';

/** One failed check, as kube-openapi reports it: a `Validation` (with a name) or a composite message. */
type Issue =
  | { kind: 'required'; name: string; message: string }
  | { kind: 'enum'; name: string; value: unknown; values: unknown[]; message: string }
  | { kind: 'tooLong'; name: string; max: number; message: string }
  | { kind: 'tooMany'; name: string; actual: number; max: number; message: string }
  | { kind: 'type'; name: string; value: unknown; message: string }
  | { kind: 'invalid'; name: string; value: unknown; message: string }
  | { kind: 'composite'; message: string };

interface Result {
  issues: Issue[];
  /** How many checks applied; anyOf/oneOf report the failing branch that matched most. */
  matched: number;
}

const IN = 'body';

/** Go's `%v` of a JSON number as kube-openapi holds it: int64 when integral, else float64. */
function goNum(n: number): string {
  return Number.isInteger(n) ? BigInt(Math.trunc(n)).toString() : goFloat(n);
}
/** `%v` of a float64 in Go. */
const goF64 = (n: number) => goFloat(n);

/** `<name> in body <rest>`; kube-openapi always has an `in` here. */
const said = (name: string, rest: string) => `${name} in ${IN} ${rest}`;

function jsonType(v: unknown): string {
  if (typeof v === 'boolean') return 'boolean';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  if (Array.isArray(v)) return 'array';
  if (isObject(v)) return 'object';
  return '';
}

/** The types a node accepts: `integer,string` for x-kubernetes-int-or-string, else its type if any. */
function schemaTypes(s: Schema): string[] {
  if (isIntOrString(s)) return ['integer', 'string'];
  const t = typeOf(s);
  return t === '' ? [] : [t];
}

/** The node's format as validation sees it: formats apiextensions does not support are dropped. */
function effectiveFormat(s: Schema): string {
  const f = stringValue(s, 'format') ?? '';
  return f !== '' && isSupportedFormat(f) ? f : '';
}

function typeIssue(name: string, typeName: string, value: string): Issue {
  return { kind: 'type', name, value, message: said(name, `must be of type ${typeName}: ${goQuote(value)}`) };
}

function validateType(s: Schema, name: string, data: unknown): Issue[] {
  const types = schemaTypes(s);
  const format = effectiveFormat(s);
  if (data === null || data === undefined) {
    if (types.length > 0 && !types.includes('null') && !isNullable(s))
      return [typeIssue(name, types.join(','), 'null')];
    return [];
  }
  const actual = jsonType(data);
  const isString = typeof data === 'string' || Array.isArray(data);
  const intFloat = actual === 'integer' && types.includes('number');
  if (!isString && format !== '' && !(types.includes(actual) || intFloat)) {
    // The value's own format name, as Go's reflection names it.
    const own = actual === 'integer' ? 'int64' : actual === 'number' ? 'float64' : '';
    return [typeIssue(name, format, own)];
  }
  if (!(types.includes('number') || types.includes('integer')) && format !== '' && isString) return [];
  if (!(types.includes(actual) || intFloat)) return [typeIssue(name, types.join(','), actual)];
  return [];
}

function validateString(s: Schema, name: string, data: string): Issue[] {
  const length = [...data].length;
  const maxLength = numberValue(s, 'maxLength');
  if (maxLength !== undefined && length > maxLength) {
    return [
      { kind: 'tooLong', name, max: maxLength, message: said(name, `should be at most ${maxLength} chars long`) },
    ];
  }
  const minLength = numberValue(s, 'minLength');
  if (minLength !== undefined && length < minLength) {
    return [{ kind: 'invalid', name, value: data, message: said(name, `should be at least ${minLength} chars long`) }];
  }
  const pattern = stringValue(s, 'pattern');
  if (pattern !== undefined && pattern !== '') {
    const re = compilePattern(pattern);
    if (re instanceof Error) {
      const shown = `${pattern}, but pattern is invalid: ${re.message}`;
      return [{ kind: 'invalid', name, value: data, message: said(name, `should match '${shown}'`) }];
    }
    if (!re.test(data))
      return [{ kind: 'invalid', name, value: data, message: said(name, `should match '${pattern}'`) }];
  }
  return [];
}

function validateFormat(s: Schema, name: string, data: string): Issue[] {
  const format = stringValue(s, 'format') ?? '';
  if (matchesFormat(format, data)) return [];
  return [typeIssue(name, format, data)];
}

function validateNumber(s: Schema, name: string, data: number): Issue[] {
  const issues: Issue[] = [];
  const isInt = Number.isInteger(data);
  const multipleOf = numberValue(s, 'multipleOf');
  if (multipleOf !== undefined) {
    const factor = isInt ? Math.trunc(multipleOf) : multipleOf;
    if (factor <= 0) {
      const shown = isInt ? goNum(factor) : goF64(factor);
      issues.push({
        kind: 'invalid',
        name,
        value: factor,
        message: `factor MultipleOf declared for ${name} must be positive: ${shown}`,
      });
    } else {
      const ok = isInt ? data % factor === 0 : Number.isInteger(factor < 1 ? (1 / factor) * data : data / factor);
      if (!ok) {
        const shown = isInt ? goNum(factor) : goF64(factor);
        issues.push({ kind: 'invalid', name, value: data, message: said(name, `should be a multiple of ${shown}`) });
      }
    }
  }
  const bound = (key: 'minimum' | 'maximum', exclusiveKey: string) => {
    const limit = numberValue(s, key);
    if (limit === undefined) return;
    const exclusive = s[exclusiveKey] === true;
    // An integer is compared with the bound cut to an integer, as kube-openapi does for int64 values.
    const b = isInt ? Math.trunc(limit) : limit;
    const fails = key === 'maximum' ? (exclusive ? data >= b : data > b) : exclusive ? data <= b : data < b;
    if (!fails) return;
    const shown = isInt ? goNum(b) : goF64(b);
    const words =
      key === 'maximum'
        ? exclusive
          ? 'should be less than'
          : 'should be less than or equal to'
        : exclusive
          ? 'should be greater than'
          : 'should be greater than or equal to';
    issues.push({ kind: 'invalid', name, value: data, message: said(name, `${words} ${shown}`) });
  };
  // kube-openapi merges multipleOf, then minimum, then maximum.
  bound('minimum', 'exclusiveMinimum');
  bound('maximum', 'exclusiveMaximum');
  return issues;
}

/** minItems/maxItems or minProperties/maxProperties: too few is Invalid, too many is TooMany. */
function countIssues(s: Schema, name: string, count: number, suffix: 'Items' | 'Properties', noun: string): Issue[] {
  const issues: Issue[] = [];
  const min = numberValue(s, `min${suffix}`);
  if (min !== undefined && count < min) {
    issues.push({ kind: 'invalid', name, value: count, message: said(name, `should have at least ${min} ${noun}`) });
  }
  const max = numberValue(s, `max${suffix}`);
  if (max !== undefined && count > max) {
    issues.push({
      kind: 'tooMany',
      name,
      actual: count,
      max,
      message: said(name, `should have at most ${max} ${noun}`),
    });
  }
  return issues;
}

function validateArray(s: Schema, name: string, data: unknown[], out: Result, old: unknown): void {
  const itemSchema = isObject(s.items) ? s.items : undefined;
  if (itemSchema) {
    data.forEach((v, i) => {
      merge(out, validateValue(itemSchema, `${name}[${i}]`, v, correlatedItem(s, old, v)));
    });
  }
  out.issues.push(...countIssues(s, name, data.length, 'Items', 'items'));
  if (s.uniqueItems === true && data.some((v, i) => data.slice(0, i).some((u) => jsonEqual(u, v)))) {
    out.issues.push({ kind: 'invalid', name, value: '', message: said(name, "shouldn't contain duplicates") });
  }
}

function validateEnum(s: Schema, name: string, data: unknown): Issue[] {
  const values = Array.isArray(s.enum) ? s.enum : [];
  if (values.length === 0) return [];
  if (data !== null && data !== undefined && values.some((e) => jsonEqual(e, data))) return [];
  return [{ kind: 'enum', name, value: data, values, message: said(name, `should be one of ${goList(values)}`) }];
}

/** `%v` of a []interface{}: `[a b 1]`. */
function goList(values: unknown[]): string {
  const one = (v: unknown): string => {
    if (typeof v === 'string') return v;
    if (typeof v === 'number') return goNum(v);
    if (Array.isArray(v)) return `[${v.map(one).join(' ')}]`;
    if (isObject(v)) {
      const keys = Object.keys(v).sort();
      return `map[${keys.map((k) => `${k}:${one(v[k])}`).join(' ')}]`;
    }
    return v === null ? '<nil>' : String(v);
  };
  return `[${values.map(one).join(' ')}]`;
}

function validateObjectNode(s: Schema, name: string, data: Record<string, unknown>, out: Result, old: unknown): void {
  // The old value of a field, for ratcheting; apiVersion and kind of the resource itself are never ratcheted.
  const oldOf = (k: string) =>
    isObject(old) && Object.hasOwn(old, k) && !(name === '' && (k === 'apiVersion' || k === 'kind')) ? old[k] : NO_OLD;
  const keys = Object.keys(data);
  out.issues.push(...countIssues(s, name, keys.length, 'Properties', 'properties'));
  const props = properties(s) ?? {};
  const additional = additionalProperties(s);
  if (additional && !additional.allows) {
    for (const k of keys) {
      if (!Object.hasOwn(props, k)) {
        out.issues.push({ kind: 'invalid', name, value: k, message: `${name}.${k} in ${IN} is a forbidden property` });
      }
    }
  } else if (additional?.schema) {
    const schema = additional.schema;
    for (const k of keys) {
      if (!Object.hasOwn(props, k)) merge(out, validateValue(schema, `${name}.${k}`, data[k], oldOf(k)));
    }
  }
  for (const [p, ps] of Object.entries(props)) {
    if (!isObject(ps) || !Object.hasOwn(data, p)) continue;
    merge(out, validateValue(ps, name === '' ? p : `${name}.${p}`, data[p], oldOf(p)));
  }
  for (const k of stringList(s, 'required')) {
    if (!Object.hasOwn(data, k)) {
      const n = `${name}.${k}`;
      out.issues.push({ kind: 'required', name: n, message: `${n} in ${IN} is required` });
    }
  }
}

function isValid(r: Result): boolean {
  return r.issues.length === 0;
}

function merge(into: Result, from: Result): void {
  into.issues.push(...from.issues);
  into.matched += from.matched;
}

function validateCombinators(s: Schema, name: string, data: unknown, out: Result): void {
  const anyOf = schemaList(s, 'anyOf');
  if (anyOf.length > 0) {
    let best: Result | undefined;
    let succeeded = false;
    for (const sub of anyOf) {
      const r = validateValue(sub, name, data);
      if (isValid(r)) {
        succeeded = true;
        best = undefined;
        break;
      }
      if (!best || r.matched > best.matched) best = r;
    }
    if (!succeeded)
      out.issues.push({ kind: 'composite', message: `${goQuote(name)} must validate at least one schema (anyOf)` });
    if (best) merge(out, best);
  }
  const oneOf = schemaList(s, 'oneOf');
  if (oneOf.length > 0) {
    let best: Result | undefined;
    let validated = 0;
    for (const sub of oneOf) {
      const r = validateValue(sub, name, data);
      if (isValid(r)) {
        validated++;
        best = undefined;
        continue;
      }
      if (validated === 0 && (!best || r.matched > best.matched)) best = r;
    }
    if (validated !== 1) {
      const more = validated === 0 ? 'Found none valid' : `Found ${validated} valid alternatives`;
      out.issues.push({
        kind: 'composite',
        message: `${goQuote(name)} must validate one and only one schema (oneOf). ${more}`,
      });
      if (best) merge(out, best);
    }
  }
  const allOf = schemaList(s, 'allOf');
  if (allOf.length > 0) {
    let validated = 0;
    for (const sub of allOf) {
      const r = validateValue(sub, name, data);
      if (isValid(r)) validated++;
      merge(out, r);
    }
    if (validated !== allOf.length) {
      const more = validated === 0 ? '. None validated' : '';
      out.issues.push({ kind: 'composite', message: `${goQuote(name)} must validate all the schemas (allOf)${more}` });
    }
  }
  if (isObject(s.not) && isValid(validateValue(s.not, name, data))) {
    out.issues.push({ kind: 'composite', message: `${goQuote(name)} must not validate the schema (not)` });
  }
}

/** No old value to compare with (a create, or a field or item that cannot be correlated). */
const NO_OLD: unique symbol = Symbol('no old value');

/** The old item of a list-type map with the same keys (the only lists whose items correlate for ratcheting). */
function correlatedItem(s: Schema, old: unknown, item: unknown): unknown {
  if (stringValue(s, 'x-kubernetes-list-type') !== 'map' || !Array.isArray(old) || !isObject(item)) return NO_OLD;
  const keys = stringList(s, 'x-kubernetes-list-map-keys');
  const found = old.find(
    (o) => isObject(o) && keys.every((k) => Object.hasOwn(o, k) === Object.hasOwn(item, k) && jsonEqual(o[k], item[k])),
  );
  return found === undefined ? NO_OLD : found;
}

/**
 * Runs every check of one schema node on a value, as kube-openapi's SchemaValidator.Validate. On update, a value
 * equal to its correlated old value passes whatever it holds (CRD validation ratcheting, on by default in v1.33).
 */
function validateValue(s: Schema, name: string, data: unknown, old: unknown = NO_OLD): Result {
  const out: Result = { issues: [], matched: 0 };
  if (old !== NO_OLD && jsonEqual(old, data)) return out;
  const step = (issues: Issue[]) => {
    out.issues.push(...issues);
    out.matched++;
  };
  if (data === null || data === undefined) {
    step(validateType(s, name, data));
    step(validateEnum(s, name, data));
    return out;
  }
  if (schemaTypes(s).length > 0 || effectiveFormat(s) !== '') step(validateType(s, name, data));
  validateCombinators(s, name, data, out);
  out.matched++;
  if (typeof data === 'string') {
    step(validateString(s, name, data));
    if (effectiveFormat(s) !== '') step(validateFormat(s, name, data));
  }
  if (typeof data === 'number') step(validateNumber(s, name, data));
  if (Array.isArray(data)) {
    validateArray(s, name, data, out, old);
    out.matched++;
  }
  step(validateEnum(s, name, data));
  if (isObject(data)) {
    validateObjectNode(s, name, data, out, old);
    out.matched++;
  }
  return out;
}

function errorPath(base: FieldPath | null, name: string): FieldPath | null {
  if (name === '' || name === '.') return base;
  const n = name.startsWith('.') ? name.slice(1) : name;
  return base ? base.child(n) : newPath(n);
}

function enumValueText(v: unknown): string {
  return typeof v === 'string' ? v : JSON.stringify(v);
}

function toFieldError(base: FieldPath | null, issue: Issue): FieldError {
  if (issue.kind === 'composite') return invalid(base, '', issue.message);
  const p = errorPath(base, issue.name);
  switch (issue.kind) {
    case 'required':
      return required(p);
    case 'enum':
      return notSupported(p, issue.value ?? null, issue.values.map(enumValueText));
    case 'tooLong':
      return tooLong(p, issue.max);
    case 'tooMany':
      return tooMany(p, issue.actual, issue.max);
    case 'type':
      return typeInvalid(p, issue.value, issue.message);
    case 'invalid':
      return invalid(p, issue.value, issue.message);
  }
}

/**
 * Validates a value against a schema; errors carry paths below `base` (null for a whole custom resource, whose
 * errors start at its fields: `spec.size`). With `old` (an update), unchanged parts are not held to the schema.
 */
export function validateAgainstSchema(
  base: FieldPath | null,
  value: unknown,
  schema: Schema,
  old: unknown = NO_OLD,
): FieldError[] {
  return validateValue(schema, '', value, old).issues.map((i) => toFieldError(base, i));
}
