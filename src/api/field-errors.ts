/**
 * Field errors, as apimachinery's validation/field package reports them: a path to the field, a type, the bad value
 * and a detail. Their text is what `kubectl` prints, so it follows upstream to the character.
 */
import { type StatusCause as BaseStatusCause, type GroupKind, qualifiedKind } from './status-error.js';
import { GoValue, goNumber, goQuote, goSyntax, goTime } from './validation/go-format.js';

export type { GroupKind };

/** A path from an object's root to one of its fields: `spec.containers[0].name`, `metadata.labels[app]`. */
export class FieldPath {
  private constructor(
    private readonly parent: FieldPath | undefined,
    /** The field's name, or '' when this element is a subscript. */
    private readonly name: string,
    private readonly subscript: string,
  ) {}

  static root(name: string, ...more: string[]): FieldPath {
    let p = new FieldPath(undefined, name, '');
    for (const n of more) p = new FieldPath(p, n, '');
    return p;
  }

  child(name: string, ...more: string[]): FieldPath {
    let p = new FieldPath(this, name, '');
    for (const n of more) p = new FieldPath(p, n, '');
    return p;
  }

  index(i: number): FieldPath {
    return new FieldPath(this, '', String(i));
  }

  key(k: string): FieldPath {
    return new FieldPath(this, '', k);
  }

  toString(): string {
    const elems: FieldPath[] = [];
    for (let p: FieldPath | undefined = this; p; p = p.parent) elems.push(p);
    let out = '';
    for (const p of elems.reverse()) {
      if (p.name.length > 0) out += p.parent ? `.${p.name}` : p.name;
      else out += `[${p.subscript}]`;
    }
    return out;
  }
}

/** Starts a field path: `path('spec').child('containers').index(0).child('name')`. */
export function path(name: string, ...more: string[]): FieldPath {
  return FieldPath.root(name, ...more);
}

/** What a nil *field.Path prints as; `null` stands for it where upstream passes nil. */
const NIL_PATH = '<nil>';

export type FieldErrorType =
  | 'FieldValueNotFound'
  | 'FieldValueRequired'
  | 'FieldValueDuplicate'
  | 'FieldValueInvalid'
  | 'FieldValueNotSupported'
  | 'FieldValueForbidden'
  | 'FieldValueTooLong'
  | 'FieldValueTooMany'
  | 'InternalError'
  | 'FieldValueTypeInvalid';

const TYPE_TEXT: Record<FieldErrorType, string> = {
  FieldValueNotFound: 'Not found',
  FieldValueRequired: 'Required value',
  FieldValueDuplicate: 'Duplicate value',
  FieldValueInvalid: 'Invalid value',
  FieldValueNotSupported: 'Unsupported value',
  FieldValueForbidden: 'Forbidden',
  FieldValueTooLong: 'Too long',
  FieldValueTooMany: 'Too many',
  InternalError: 'Internal error',
  FieldValueTypeInvalid: 'Invalid value',
};

/** Types whose message never shows the value. */
const VALUE_HIDDEN = new Set<FieldErrorType>([
  'FieldValueRequired',
  'FieldValueForbidden',
  'FieldValueTooLong',
  'InternalError',
]);

/** A bad value that is left out of the message. */
export const OMIT_VALUE: unique symbol = Symbol('omit value');

/** A cause in the details of an Invalid Status (metav1.StatusCause); empty fields are left out as on the wire. */
export interface StatusCause extends BaseStatusCause {
  reason: FieldErrorType;
}

/**
 * How the bad value prints: strings quoted Go-style, numbers as Go prints int64/float64, null as `"null"`,
 * `GoValue` as written, anything else as Go's `%#v` of the decoded JSON.
 */
function renderValue(value: unknown): string {
  if (value === null || value === undefined) return goQuote('null');
  if (typeof value === 'string') return goQuote(value);
  if (typeof value === 'number') return goNumber(value);
  if (typeof value === 'bigint' || typeof value === 'boolean') return String(value);
  if (value instanceof GoValue) return value.text;
  if (value instanceof Date) return goTime(value).text;
  return goSyntax(value);
}

export class FieldError {
  constructor(
    readonly type: FieldErrorType,
    readonly field: string,
    readonly badValue: unknown,
    readonly detail: string,
    /** Which check produced the error (e.g. `format=dns-label`); never part of the message. */
    readonly origin?: string,
  ) {}

  /** The message without the field name (upstream's ErrorBody); what a StatusCause carries. */
  get body(): string {
    let s = TYPE_TEXT[this.type];
    if (!VALUE_HIDDEN.has(this.type) && this.badValue !== OMIT_VALUE) s += `: ${renderValue(this.badValue)}`;
    if (this.detail.length > 0) s += `: ${this.detail}`;
    return s;
  }

  /** `<field>: <body>`, e.g. `spec.containers[0].name: Required value`. */
  get message(): string {
    return `${this.field}: ${this.body}`;
  }

  toString(): string {
    return this.message;
  }

  withOrigin(origin: string): FieldError {
    return new FieldError(this.type, this.field, this.badValue, this.detail, origin);
  }

  toCause(): StatusCause {
    const cause: StatusCause = { reason: this.type };
    const body = this.body;
    if (body) cause.message = body;
    if (this.field) cause.field = this.field;
    return cause;
  }
}

const fieldName = (p: FieldPath | null) => (p === null ? NIL_PATH : p.toString());

export function required(p: FieldPath | null, detail = ''): FieldError {
  return new FieldError('FieldValueRequired', fieldName(p), '', detail);
}

export function invalid(p: FieldPath | null, value: unknown, detail: string): FieldError {
  return new FieldError('FieldValueInvalid', fieldName(p), value, detail);
}

export function typeInvalid(p: FieldPath | null, value: unknown, detail: string): FieldError {
  return new FieldError('FieldValueTypeInvalid', fieldName(p), value, detail);
}

export function notFound(p: FieldPath | null, value: unknown): FieldError {
  return new FieldError('FieldValueNotFound', fieldName(p), value, '');
}

export function duplicate(p: FieldPath | null, value: unknown): FieldError {
  return new FieldError('FieldValueDuplicate', fieldName(p), value, '');
}

/** `Unsupported value: "x": supported values: "a", "b"` (no detail when nothing is supported). */
export function notSupported(p: FieldPath | null, value: unknown, validValues: readonly string[]): FieldError {
  const detail = validValues.length > 0 ? `supported values: ${validValues.map(goQuote).join(', ')}` : '';
  return new FieldError('FieldValueNotSupported', fieldName(p), value, detail);
}

export function forbidden(p: FieldPath | null, detail: string): FieldError {
  return new FieldError('FieldValueForbidden', fieldName(p), '', detail);
}

/** `Too long: may not be more than <max> bytes`; a negative max gives `Too long: value is too long`. */
export function tooLong(p: FieldPath | null, maxLength: number): FieldError {
  const detail = maxLength >= 0 ? `may not be more than ${maxLength} bytes` : 'value is too long';
  return new FieldError('FieldValueTooLong', fieldName(p), '<value omitted>', detail);
}

/** `Too many: <actual>: must have at most <max> items`; a negative actual is left out, a negative max too. */
export function tooMany(p: FieldPath | null, actual: number, max: number): FieldError {
  const detail = max >= 0 ? `must have at most ${max} items` : 'has too many items';
  return new FieldError('FieldValueTooMany', fieldName(p), actual >= 0 ? actual : OMIT_VALUE, detail);
}

export function internalError(p: FieldPath | null, err: Error | string): FieldError {
  return new FieldError('InternalError', fieldName(p), null, typeof err === 'string' ? err : err.message);
}

/**
 * Joins error messages as upstream's aggregate error does: duplicates dropped, one message as is, several as
 * `[a, b]`; no messages give ''.
 */
export function aggregateMessage(messages: readonly string[]): string {
  const unique = [...new Set(messages)];
  if (unique.length <= 1) return unique[0] ?? '';
  return `[${unique.join(', ')}]`;
}

/** The aggregate message of a field error list (`errs.ToAggregate().Error()` upstream). */
export function fieldErrorsMessage(errors: readonly FieldError[]): string {
  return aggregateMessage(errors.map((e) => e.message));
}

/**
 * The message of an Invalid Status: `Pod "x" is invalid: spec.a: Required value`, with several errors
 * `Deployment.apps "x" is invalid: [a, b]`, and with none `Pod "x" is invalid`.
 */
export function invalidMessage(gk: GroupKind, name: string, errors: readonly FieldError[]): string {
  const head = `${qualifiedKind(gk)} ${goQuote(name)} is invalid`;
  return errors.length === 0 ? head : `${head}: ${fieldErrorsMessage(errors)}`;
}

/** One StatusCause per error, in order and not deduplicated, as upstream's NewInvalid builds them. */
export function statusCauses(errors: readonly FieldError[]): StatusCause[] {
  return errors.map((e) => e.toCause());
}

/** The 422 Status upstream's NewInvalid returns, as it goes on the wire (empty fields left out). */
export interface InvalidStatus {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: Record<string, never>;
  status: 'Failure';
  message: string;
  reason: 'Invalid';
  details: { name?: string; group?: string; kind: string; causes?: StatusCause[] };
  code: 422;
}

export function invalidStatus(gk: GroupKind, name: string, errors: readonly FieldError[]): InvalidStatus {
  // Keys in upstream's wire order: name, group, kind, causes.
  const details = {
    ...(name ? { name } : {}),
    ...(gk.group ? { group: gk.group } : {}),
    kind: gk.kind,
    ...(errors.length > 0 ? { causes: statusCauses(errors) } : {}),
  };
  return {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: invalidMessage(gk, name, errors),
    reason: 'Invalid',
    details,
    code: 422,
  };
}
