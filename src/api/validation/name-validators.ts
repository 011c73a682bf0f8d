/**
 * Name validators: which format a resource's names follow (apimachinery's api/validation ValidateNameFunc and
 * api/validation/path). `prefix` is true when the name is a `generateName` that a random suffix will complete.
 */
import { isDNS1035Label, isDNS1123Label, isDNS1123Subdomain } from './names.js';

export type NameValidator = (name: string, prefix: boolean) => string[];

/**
 * For a generateName, a trailing dash is allowed (the suffix follows it). Upstream masks it by dropping the last
 * two bytes and appending `a`; we do the same, on UTF-8 bytes, so that exactly the same prefixes pass. A byte of a
 * multi-byte character becomes NUL, which no name format accepts (Go's regexes reject such bytes too).
 */
export function maskTrailingDash(name: string): string {
  const bytes = Buffer.from(name, 'utf8');
  if (bytes.length <= 1 || !name.endsWith('-')) return name;
  let out = '';
  for (const b of bytes.subarray(0, bytes.length - 2)) out += b < 0x80 ? String.fromCharCode(b) : '\0';
  return `${out}a`;
}

export const nameIsDNSSubdomain: NameValidator = (name, prefix) =>
  isDNS1123Subdomain(prefix ? maskTrailingDash(name) : name);

export const nameIsDNSLabel: NameValidator = (name, prefix) => isDNS1123Label(prefix ? maskTrailingDash(name) : name);

export const nameIsDNS1035Label: NameValidator = (name, prefix) =>
  isDNS1035Label(prefix ? maskTrailingDash(name) : name);

/** Namespace names are DNS-1123 labels. */
export const validateNamespaceName: NameValidator = nameIsDNSLabel;

/** Service account names are DNS-1123 subdomains. */
export const validateServiceAccountName: NameValidator = nameIsDNSSubdomain;

const NAME_MAY_NOT_BE = ['.', '..'];
const NAME_MAY_NOT_CONTAIN = ['/', '%'];

/** Whether a name can be a segment of a REST path or storage key: not `.` or `..`, no `/` or `%`. */
export function isValidPathSegmentName(name: string): string[] {
  for (const bad of NAME_MAY_NOT_BE) if (name === bad) return [`may not be '${bad}'`];
  return isValidPathSegmentPrefix(name);
}

/** Like isValidPathSegmentName for a prefix: a suffix can make `.` or `..` valid, so only contents are checked. */
export function isValidPathSegmentPrefix(name: string): string[] {
  return NAME_MAY_NOT_CONTAIN.filter((bad) => name.includes(bad)).map((bad) => `may not contain '${bad}'`);
}

/** The name rule every resource follows at least (the generic registry applies it on create and update). */
export const validatePathSegmentName: NameValidator = (name, prefix) =>
  prefix ? isValidPathSegmentPrefix(name) : isValidPathSegmentName(name);
