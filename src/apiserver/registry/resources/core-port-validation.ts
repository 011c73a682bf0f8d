/** Port numbers and port names (IANA service names), as apimachinery's util/validation checks them. */
import { type FieldError, type FieldPath, invalid } from '../../../api/field-errors.js';
import { maxLenError } from '../../../api/validation/names.js';

export const inclusiveRangeError = (lo: number, hi: number) => `must be between ${lo} and ${hi}, inclusive`;

export function isValidPortNum(port: number): string[] {
  return Number.isInteger(port) && port >= 1 && port <= 65535 ? [] : [inclusiveRangeError(1, 65535)];
}

/** At most 15 of [-a-z0-9], at least one letter, no `--`, no hyphen at either end. */
export function isValidPortName(name: string): string[] {
  const errs: string[] = [];
  if (name.length > 15) errs.push(maxLenError(15));
  if (!/^[-a-z0-9]+$/.test(name)) errs.push('must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)');
  if (!/[a-z]/.test(name)) errs.push('must contain at least one letter (a-z)');
  if (name.includes('--')) errs.push('must not contain consecutive hyphens');
  if (name.length > 0 && (name.startsWith('-') || name.endsWith('-'))) errs.push('must not begin or end with a hyphen');
  return errs;
}

/** An IntOrString port: a number in range or a valid port name. */
export function validatePortNumOrName(port: unknown, fieldPath: FieldPath): FieldError[] {
  if (typeof port === 'string') return isValidPortName(port).map((msg) => invalid(fieldPath, port, msg));
  const n = typeof port === 'number' ? port : 0;
  return isValidPortNum(n).map((msg) => invalid(fieldPath, n, msg));
}
