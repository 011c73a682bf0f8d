/**
 * The name formats of Kubernetes (apimachinery's util/validation): DNS-1123 labels and subdomains, DNS-1035
 * labels, qualified names (label and annotation keys, finalizers) and label values. Each check returns the
 * list of what is wrong, in upstream's words; an empty list means valid. Lengths count UTF-8 bytes, as Go does.
 */

export const DNS1123_LABEL_MAX_LENGTH = 63;
export const DNS1123_SUBDOMAIN_MAX_LENGTH = 253;
export const DNS1035_LABEL_MAX_LENGTH = 63;
export const QUALIFIED_NAME_MAX_LENGTH = 63;
export const LABEL_VALUE_MAX_LENGTH = 63;

const byteLength = (s: string) => Buffer.byteLength(s, 'utf8');

export function maxLenError(length: number): string {
  return `must be no more than ${length} characters`;
}

export function emptyError(): string {
  return 'must be non-empty';
}

/**
 * `<msg> (e.g. 'a',  or 'b', regex used for validation is '<fmt>')` — the two spaces before `or` are upstream's —
 * or without examples `<msg> (regex used for validation is '<fmt>')`.
 */
export function regexError(msg: string, format: string, ...examples: string[]): string {
  if (examples.length === 0) return `${msg} (regex used for validation is '${format}')`;
  return `${msg} (e.g. ${examples.map((e) => `'${e}', `).join(' or ')}regex used for validation is '${format}')`;
}

const anchored = (format: string) => new RegExp(`^${format}$`);

const QNAME_CHAR = '[A-Za-z0-9]';
const QNAME_EXT_CHAR = '[-A-Za-z0-9_.]';
const QUALIFIED_NAME_FMT = `(${QNAME_CHAR}${QNAME_EXT_CHAR}*)?${QNAME_CHAR}`;
const QUALIFIED_NAME_MSG =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const QUALIFIED_NAME_RE = anchored(QUALIFIED_NAME_FMT);

const LABEL_VALUE_FMT = `(${QUALIFIED_NAME_FMT})?`;
const LABEL_VALUE_MSG =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const LABEL_VALUE_RE = anchored(LABEL_VALUE_FMT);

const DNS1123_LABEL_FMT = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const DNS1123_LABEL_MSG =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character";
const DNS1123_LABEL_RE = anchored(DNS1123_LABEL_FMT);

const DNS1123_SUBDOMAIN_FMT = `${DNS1123_LABEL_FMT}(\\.${DNS1123_LABEL_FMT})*`;
const DNS1123_SUBDOMAIN_MSG =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
const DNS1123_SUBDOMAIN_RE = anchored(DNS1123_SUBDOMAIN_FMT);

const DNS1035_LABEL_FMT = '[a-z]([-a-z0-9]*[a-z0-9])?';
const DNS1035_LABEL_MSG =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character";
const DNS1035_LABEL_RE = anchored(DNS1035_LABEL_FMT);

const WILDCARD_FMT = `\\*\\.${DNS1123_SUBDOMAIN_FMT}`;
const WILDCARD_MSG =
  "a wildcard DNS-1123 subdomain must start with '*.', followed by a valid DNS subdomain, which must consist of lower case alphanumeric characters, '-' or '.' and end with an alphanumeric character";
const WILDCARD_RE = anchored(WILDCARD_FMT);

/**
 * Whether value is at most max long and matches re. For the patterns here, which admit ASCII only, a match means
 * that the length in characters is the length in UTF-8 bytes: the checks below answer valid values (nearly all)
 * this way first, without counting bytes, and work out the errors only for the others.
 */
const fitsAscii = (value: string, max: number, re: RegExp): boolean => value.length <= max && re.test(value);

/** A qualified name: `[prefix/]name`, the prefix a DNS-1123 subdomain, the name at most 63 characters. */
export function isQualifiedName(value: string): string[] {
  const slash = value.indexOf('/');
  if (slash < 0 ? fitsAscii(value, QUALIFIED_NAME_MAX_LENGTH, QUALIFIED_NAME_RE) : validPrefixed(value, slash))
    return [];
  const errs: string[] = [];
  const parts = value.split('/');
  let name: string;
  if (parts.length === 1) {
    name = parts[0] ?? '';
  } else if (parts.length === 2) {
    const prefix = parts[0] ?? '';
    name = parts[1] ?? '';
    if (prefix.length === 0) errs.push(`prefix part ${emptyError()}`);
    else for (const msg of isDNS1123Subdomain(prefix)) errs.push(`prefix part ${msg}`);
  } else {
    errs.push(
      `a qualified name ${regexError(QUALIFIED_NAME_MSG, QUALIFIED_NAME_FMT, 'MyName', 'my.name', '123-abc')} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
    );
    return errs;
  }
  if (name.length === 0) errs.push(`name part ${emptyError()}`);
  else if (byteLength(name) > QUALIFIED_NAME_MAX_LENGTH)
    errs.push(`name part ${maxLenError(QUALIFIED_NAME_MAX_LENGTH)}`);
  if (!QUALIFIED_NAME_RE.test(name)) {
    errs.push(`name part ${regexError(QUALIFIED_NAME_MSG, QUALIFIED_NAME_FMT, 'MyName', 'my.name', '123-abc')}`);
  }
  return errs;
}

/** A valid `prefix/name` qualified name, its one slash at index slash. */
function validPrefixed(value: string, slash: number): boolean {
  return (
    slash > 0 &&
    value.indexOf('/', slash + 1) < 0 &&
    fitsAscii(value.slice(0, slash), DNS1123_SUBDOMAIN_MAX_LENGTH, DNS1123_SUBDOMAIN_RE) &&
    fitsAscii(value.slice(slash + 1), QUALIFIED_NAME_MAX_LENGTH, QUALIFIED_NAME_RE)
  );
}

export function isValidLabelValue(value: string): string[] {
  if (fitsAscii(value, LABEL_VALUE_MAX_LENGTH, LABEL_VALUE_RE)) return [];
  const errs: string[] = [];
  if (byteLength(value) > LABEL_VALUE_MAX_LENGTH) errs.push(maxLenError(LABEL_VALUE_MAX_LENGTH));
  if (!LABEL_VALUE_RE.test(value))
    errs.push(regexError(LABEL_VALUE_MSG, LABEL_VALUE_FMT, 'MyValue', 'my_value', '12345'));
  return errs;
}

export function isDNS1123Label(value: string): string[] {
  if (fitsAscii(value, DNS1123_LABEL_MAX_LENGTH, DNS1123_LABEL_RE)) return [];
  const errs: string[] = [];
  if (byteLength(value) > DNS1123_LABEL_MAX_LENGTH) errs.push(maxLenError(DNS1123_LABEL_MAX_LENGTH));
  if (!DNS1123_LABEL_RE.test(value)) {
    // A valid subdomain that is not a valid label (length was checked above) can only be wrong by its dots.
    if (DNS1123_SUBDOMAIN_RE.test(value)) errs.push('must not contain dots');
    else errs.push(regexError(DNS1123_LABEL_MSG, DNS1123_LABEL_FMT, 'my-name', '123-abc'));
  }
  return errs;
}

export function isDNS1123Subdomain(value: string): string[] {
  if (fitsAscii(value, DNS1123_SUBDOMAIN_MAX_LENGTH, DNS1123_SUBDOMAIN_RE)) return [];
  const errs: string[] = [];
  if (byteLength(value) > DNS1123_SUBDOMAIN_MAX_LENGTH) errs.push(maxLenError(DNS1123_SUBDOMAIN_MAX_LENGTH));
  if (!DNS1123_SUBDOMAIN_RE.test(value)) {
    errs.push(regexError(DNS1123_SUBDOMAIN_MSG, DNS1123_SUBDOMAIN_FMT, 'example.com'));
  }
  return errs;
}

const DNS1123_LABEL_FMT_UNDERSCORE = '_?[a-z0-9]([-_a-z0-9]*[a-z0-9])?';
const DNS1123_SUBDOMAIN_UNDERSCORE_RE = anchored(
  `${DNS1123_LABEL_FMT_UNDERSCORE}(\\.${DNS1123_LABEL_FMT_UNDERSCORE})*`,
);
const DNS1123_SUBDOMAIN_UNDERSCORE_MSG =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '_', '-' or '.', and must start and end with an alphanumeric character";

/**
 * IsDNS1123SubdomainWithUnderscore: a subdomain whose labels may hold underscores and start with one (DNS search
 * domains such as `_sip._tcp.example.com`). As upstream, its message quotes the plain subdomain's regex.
 */
export function isDNS1123SubdomainWithUnderscore(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > DNS1123_SUBDOMAIN_MAX_LENGTH) errs.push(maxLenError(DNS1123_SUBDOMAIN_MAX_LENGTH));
  if (!DNS1123_SUBDOMAIN_UNDERSCORE_RE.test(value)) {
    errs.push(regexError(DNS1123_SUBDOMAIN_UNDERSCORE_MSG, DNS1123_SUBDOMAIN_FMT, 'example.com'));
  }
  return errs;
}

export function isDNS1035Label(value: string): string[] {
  if (fitsAscii(value, DNS1035_LABEL_MAX_LENGTH, DNS1035_LABEL_RE)) return [];
  const errs: string[] = [];
  if (byteLength(value) > DNS1035_LABEL_MAX_LENGTH) errs.push(maxLenError(DNS1035_LABEL_MAX_LENGTH));
  if (!DNS1035_LABEL_RE.test(value)) errs.push(regexError(DNS1035_LABEL_MSG, DNS1035_LABEL_FMT, 'my-name', 'abc-123'));
  return errs;
}

/** `*.example.com`: a wildcard followed by a DNS-1123 subdomain. */
export function isWildcardDNS1123Subdomain(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > DNS1123_SUBDOMAIN_MAX_LENGTH) errs.push(maxLenError(DNS1123_SUBDOMAIN_MAX_LENGTH));
  if (!WILDCARD_RE.test(value)) errs.push(regexError(WILDCARD_MSG, WILDCARD_FMT, '*.example.com'));
  return errs;
}
