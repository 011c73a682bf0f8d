/** Small field checks that core/v1 validation repeats, each giving upstream's field errors. */
import { type FieldError, type FieldPath, invalid } from '../../../api/field-errors.js';
import { isDNS1123Label, isDNS1123Subdomain, isQualifiedName } from '../../../api/validation/names.js';
import { jsonEqual } from '../object.js';

export const IS_NEGATIVE = 'must be greater than or equal to 0';
export const FIELD_IMMUTABLE = 'field is immutable';

export function dns1123Label(value: string, at: FieldPath): FieldError[] {
  return isDNS1123Label(value).map((msg) => invalid(at, value, msg).withOrigin('format=dns-label'));
}

export function dns1123Subdomain(value: string, at: FieldPath): FieldError[] {
  return isDNS1123Subdomain(value).map((msg) => invalid(at, value, msg));
}

export function qualifiedName(value: string, at: FieldPath): FieldError[] {
  return isQualifiedName(value).map((msg) => invalid(at, value, msg).withOrigin('format=qualified-name'));
}

/** A number that must not be negative; a missing value counts as 0, as Go's zero value does. */
export function nonNegative(value: unknown, at: FieldPath): FieldError[] {
  const n = typeof value === 'number' ? value : 0;
  return n < 0 ? [invalid(at, n, IS_NEGATIVE)] : [];
}

/** Upstream's ValidateImmutableField: the new value, printed, when it differs from the old. */
export function immutable(next: unknown, old: unknown, at: FieldPath): FieldError[] {
  return jsonEqual(next ?? null, old ?? null) ? [] : [invalid(at, next ?? null, FIELD_IMMUTABLE)];
}
