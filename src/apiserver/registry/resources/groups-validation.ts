/**
 * Checks shared by the named groups' validation: immutable fields, IntOrString values (counts or percentages),
 * required label selectors and domain-prefixed paths, with upstream's messages.
 */
import { type FieldError, type FieldPath, invalid, required } from '../../../api/field-errors.js';
import { LabelSelector, type LabelSelectorObject } from '../../../api/labels.js';
import { validateLabelSelector } from '../../../api/validation/labels.js';
import { isDNS1123Subdomain, regexError } from '../../../api/validation/names.js';
import { validateNonnegativeField } from '../../../api/validation/object-meta.js';
import { jsonEqual } from '../object.js';
import { rec, unset } from './groups-fields.js';
import { goIntOrString, goLabelSelector } from './groups-go-format.js';

export const FIELD_IMMUTABLE = 'field is immutable';

/** `<path>: Invalid value: <shown>: field is immutable` when next differs from old. */
export function immutable(fieldPath: FieldPath, next: unknown, old: unknown, shown: unknown = next): FieldError[] {
  return jsonEqual(next ?? null, old ?? null) ? [] : [invalid(fieldPath, shown ?? null, FIELD_IMMUTABLE)];
}

/** A number field that must not be negative, when it is set. */
export function nonNegative(value: unknown, fieldPath: FieldPath): FieldError[] {
  return typeof value === 'number' ? validateNonnegativeField(value, fieldPath) : [];
}

const PERCENT = /^[0-9]+%$/;

/** An IntOrString that must be a non-negative count or a percentage like `25%`. */
export function validatePositiveIntOrPercent(v: unknown, fieldPath: FieldPath): FieldError[] {
  if (typeof v === 'string') {
    if (PERCENT.test(v)) return [];
    const msg = regexError(
      "a valid percent string must be a numeric string followed by an ending '%'",
      '[0-9]+%',
      '1%',
      '93%',
    );
    return [invalid(fieldPath, goIntOrString(v), msg)];
  }
  return nonNegative(typeof v === 'number' ? v : 0, fieldPath);
}

/** The value of a percentage, or undefined when v is not one. */
export function percentValue(v: unknown): number | undefined {
  return typeof v === 'string' && PERCENT.test(v) ? Number(v.slice(0, -1)) : undefined;
}

/** A count or percentage as a number (a malformed string counts as 0, as IntValue() does). */
export function intOrPercentValue(v: unknown): number {
  const p = percentValue(v);
  if (p !== undefined) return p;
  if (typeof v === 'number') return v;
  if (typeof v === 'string') return /^[+-]?[0-9]+$/.test(v) ? Number(v) : 0;
  return 0;
}

export function isNotMoreThan100Percent(v: unknown, fieldPath: FieldPath): FieldError[] {
  const p = percentValue(v);
  return p !== undefined && p > 100 ? [invalid(fieldPath, goIntOrString(v), 'must not be greater than 100%')] : [];
}

/**
 * A workload's spec.selector: required, valid, and not empty (`empty selector is invalid for <kind>`). Returns the
 * errors and the parsed selector (nothing() when absent, undefined when it cannot be parsed).
 */
export function validateRequiredSelector(
  selector: unknown,
  fieldPath: FieldPath,
  kindWord: string,
): { errs: FieldError[]; parsed: LabelSelector | undefined } {
  const errs: FieldError[] = [];
  if (unset(selector)) {
    errs.push(required(fieldPath));
  } else {
    const sel = rec(selector) as LabelSelectorObject;
    errs.push(...validateLabelSelector(sel, {}, fieldPath));
    const count =
      Object.keys(rec(sel.matchLabels)).length +
      (Array.isArray(sel.matchExpressions) ? sel.matchExpressions.length : 0);
    if (count === 0)
      errs.push(invalid(fieldPath, goLabelSelector(selector), `empty selector is invalid for ${kindWord}`));
  }
  return { errs, parsed: parseSelector(selector) };
}

/** LabelSelectorAsSelector: nothing() for an absent selector, undefined when it does not convert. */
export function parseSelector(selector: unknown): LabelSelector | undefined {
  try {
    return LabelSelector.fromObject(unset(selector) ? undefined : (rec(selector) as LabelSelectorObject));
  } catch {
    return undefined;
  }
}

const HTTP_PATH_FMT = "[A-Za-z0-9/\\-._~%!$&'()*+,;=:]+";
const HTTP_PATH = new RegExp(`^${HTTP_PATH_FMT}$`);

/** IsDomainPrefixedPath: `acme.io/foo`. */
export function domainPrefixedPathErrors(at: FieldPath, value: string): FieldError[] {
  if (value === '') return [required(at)];
  const slash = value.indexOf('/');
  if (slash <= 0 || slash === value.length - 1) {
    return [invalid(at, value, 'must be a domain-prefixed path (such as "acme.io/foo")')];
  }
  const host = value.slice(0, slash);
  const rest = value.slice(slash + 1);
  const errs = isDNS1123Subdomain(host).map((msg) => invalid(at, host, msg));
  if (!HTTP_PATH.test(rest)) errs.push(invalid(at, rest, regexError('must be a valid path', HTTP_PATH_FMT)));
  return errs;
}
