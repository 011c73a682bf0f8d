/**
 * How Go's fmt package prints values, for the few places where upstream puts a Go value into a message a user
 * reads: `%q` of a string, `%v` of a number, `%#v` of a slice or map, `String()` of a time. Our messages must read
 * the same as the real apiserver's, so these follow Go's rules rather than JavaScript's.
 */

/** A value already written the way Go prints it; printed as is. */
export class GoValue {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S}]$/u;
const NAMED_ESCAPES: Record<string, string> = {
  '\x07': '\\a',
  '\b': '\\b',
  '\f': '\\f',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
  '\v': '\\v',
};

function hex(n: number, width: number): string {
  return n.toString(16).padStart(width, '0');
}

/** Go's strconv.Quote (what `%q` prints): double quotes, Go escapes, printable Unicode kept as is. */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const cp = ch.codePointAt(0) ?? 0;
    if (ch === '"' || ch === '\\') {
      out += `\\${ch}`;
    } else if (cp >= 0xd800 && cp <= 0xdfff) {
      // A lone surrogate: Go's JSON decoder would have turned it into U+FFFD, which is printable.
      out += '\ufffd';
    } else if (ch === ' ' || PRINTABLE.test(ch)) {
      out += ch;
    } else if (NAMED_ESCAPES[ch] !== undefined) {
      out += NAMED_ESCAPES[ch];
    } else if (cp < 0x20 || cp === 0x7f) {
      out += `\\x${hex(cp, 2)}`;
    } else if (cp < 0x10000) {
      out += `\\u${hex(cp, 4)}`;
    } else {
      out += `\\U${hex(cp, 8)}`;
    }
  }
  return `${out}"`;
}

/** `%v` of a Go float64: shortest digits, exponent form when the exponent is below -4 or at least 6. */
export function goFloat(n: number): string {
  if (Number.isNaN(n)) return 'NaN';
  if (!Number.isFinite(n)) return n > 0 ? '+Inf' : '-Inf';
  if (n === 0) return Object.is(n, -0) ? '-0' : '0';
  const [mantissa = '0', exponent = '0'] = n.toExponential().split('e');
  const exp = Number(exponent);
  if (exp < -4 || exp >= 6) {
    const sign = exp < 0 ? '-' : '+';
    return `${mantissa}e${sign}${String(Math.abs(exp)).padStart(2, '0')}`;
  }
  return String(n);
}

/** `%v` of a Go number: JSON integers decode to int64 in Go, everything else to float64. */
export function goNumber(n: number): string {
  if (Number.isInteger(n) && Math.abs(n) < 2 ** 63) return BigInt(n).toString();
  return goFloat(n);
}

/** `%q` of a []string: each element quoted, space separated, in brackets (`["a" "b"]`; empty or nil `[]`). */
export function goQuoteList(values: readonly string[]): string {
  return `[${values.map(goQuote).join(' ')}]`;
}

/** `%#v` of a []string; `nil` gives `[]string(nil)`. */
export function goStringSlice(values: readonly string[] | null): GoValue {
  if (values === null) return new GoValue('[]string(nil)');
  return new GoValue(`[]string{${values.map(goQuote).join(', ')}}`);
}

const pad2 = (n: number) => String(n).padStart(2, '0');

/**
 * `String()` of a Go time.Time, as metav1.Time prints in a server running in UTC:
 * `2006-01-02 15:04:05.999999999 +0000 UTC`. An unparsable input is returned quoted.
 */
export function goTime(iso: string | Date): GoValue {
  const date = typeof iso === 'string' ? new Date(iso) : iso;
  if (Number.isNaN(date.getTime())) return new GoValue(goQuote(String(iso)));
  const ms = date.getUTCMilliseconds();
  const fraction = ms === 0 ? '' : `.${String(ms).padStart(3, '0').replace(/0+$/, '')}`;
  const year = String(date.getUTCFullYear()).padStart(4, '0');
  const day = `${year}-${pad2(date.getUTCMonth() + 1)}-${pad2(date.getUTCDate())}`;
  const time = `${pad2(date.getUTCHours())}:${pad2(date.getUTCMinutes())}:${pad2(date.getUTCSeconds())}`;
  return new GoValue(`${day} ${time}${fraction} +0000 UTC`);
}

/** The zero time.Time, as Go prints it. */
export const GO_ZERO_TIME = new GoValue('0001-01-01 00:00:00 +0000 UTC');

/**
 * `%#v` of a value decoded from JSON into Go's `interface{}`: maps print with sorted keys, as Go's fmt does.
 */
export function goSyntax(value: unknown): string {
  if (value === null || value === undefined) return 'interface {}(nil)';
  if (value instanceof GoValue) return value.text;
  if (typeof value === 'string') return goQuote(value);
  if (typeof value === 'number') return goNumber(value);
  if (typeof value === 'bigint' || typeof value === 'boolean') return String(value);
  if (value instanceof Date) return goTime(value).text;
  if (Array.isArray(value)) {
    if (value.every((v) => typeof v === 'string')) return goStringSlice(value).text;
    return `[]interface {}{${value.map(goSyntax).join(', ')}}`;
  }
  if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `map[string]interface {}{${entries.map(([k, v]) => `${goQuote(k)}:${goSyntax(v)}`).join(', ')}}`;
  }
  return String(value);
}
