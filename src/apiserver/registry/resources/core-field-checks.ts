/** Small field checks that core/v1 validation repeats, each giving upstream's field errors. */
import { type FieldError, type FieldPath, invalid } from '../../../api/field-errors.js';
import { isIPv4, parseIP } from '../../../api/validation/ip.js';
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

/**
 * Upstream's ValidateNonSpecialIP (for Endpoints and Service external IPs): no unspecified, loopback, link-local or
 * link-local multicast addresses, judged as Go's net.IP does (an IPv4-mapped address as IPv4).
 */
export function validateNonSpecialIP(ip: string, at: FieldPath): FieldError[] {
  const bytes = parseIP(ip);
  if (!bytes) return [invalid(at, ip, 'must be a valid IP address')];
  const v4 = isIPv4(bytes) ? bytes.slice(-4) : undefined;
  const [b0 = 0, b1 = 0, b2 = 0] = v4 ?? bytes;
  const errs: FieldError[] = [];
  if ((v4 ?? bytes).every((b) => b === 0)) errs.push(invalid(at, ip, `may not be unspecified (${ip})`));
  if (v4 ? b0 === 127 : bytes.every((b, i) => b === (i === 15 ? 1 : 0))) {
    errs.push(invalid(at, ip, 'may not be in the loopback range (127.0.0.0/8, ::1/128)'));
  }
  if (v4 ? b0 === 169 && b1 === 254 : b0 === 0xfe && (b1 & 0xc0) === 0x80) {
    errs.push(invalid(at, ip, 'may not be in the link-local range (169.254.0.0/16, fe80::/10)'));
  }
  if (v4 ? b0 === 224 && b1 === 0 && b2 === 0 : b0 === 0xff && (b1 & 0x0f) === 0x02) {
    errs.push(invalid(at, ip, 'may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)'));
  }
  return errs;
}
