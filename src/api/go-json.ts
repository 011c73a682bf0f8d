import { jsonKindWord } from './patch/go-format.js';

/**
 * JSON as Go's encoding/json Marshal writes it for values whose field order the caller already set: the same text
 * as JSON.stringify, except that <, >, & and the line and paragraph separators U+2028, U+2029 are escaped as \u00XX
 * even inside strings (Marshal's HTML-safe escaping). Audit annotations upstream builds with json.Marshal
 * (webhook patches, validation failures) carry these escapes.
 */
export function goJsonMarshal(value: unknown): string {
  return JSON.stringify(value).replace(
    /[<>&\u2028\u2029]/g,
    (c) => `\\u${(c.codePointAt(0) ?? 0).toString(16).padStart(4, '0')}`,
  );
}

const byBytes = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));

/**
 * A deep copy of value with every object's keys sorted by their bytes, as Go's json.Marshal orders a map's keys
 * (undefined members left out).
 */
export function withSortedKeys<T>(value: T): T {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(withSortedKeys) as T;
  const record = value as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(record).sort(byBytes)) {
    if (record[k] === undefined) continue;
    // defineProperty: a key such as __proto__ stays an own key.
    Object.defineProperty(out, k, {
      value: withSortedKeys(record[k]),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out as T;
}

/** JSON as Go's json.Marshal writes decoded JSON (map[string]interface{}, []interface{}): keys sorted, HTML-safe. */
export function goJsonMarshalSorted(value: unknown): string {
  return goJsonMarshal(withSortedKeys(value));
}

/**
 * What Go's json.Unmarshal into a map[string]interface{} says of text, or undefined when it takes it: the common
 * syntax errors in its words, and a value that is not an object.
 */
export function goJsonObjectError(text: string): string | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return goJsonSyntaxError(text);
  }
  if (value === null || (typeof value === 'object' && !Array.isArray(value))) return undefined;
  return `json: cannot unmarshal ${jsonKindWord(value)} into Go value of type map[string]interface {}`;
}

/** Go's scanner error for text that is not JSON, for the first place it goes wrong (a subset of its states). */
export function goJsonSyntaxError(text: string): string {
  // Go's quoteChar: strconv.Quote's escapes between single quotes.
  const named: Record<string, string> = { "'": "\\'", '\n': '\\n', '\r': '\\r', '\t': '\\t' };
  const quote = (c: string) =>
    `'${named[c] ?? (c < ' ' || c === '\x7f' ? `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}` : c)}'`;
  let i = 0;
  const ws = () => {
    while (i < text.length && ' \t\r\n'.includes(text[i] as string)) i++;
  };
  const fail = (context: string) =>
    i >= text.length ? 'unexpected end of JSON input' : `invalid character ${quote(text[i] as string)} ${context}`;
  /** Past an opening bracket: whether the container closes at once. */
  const closesAt = (close: string): boolean => {
    i++;
    ws();
    if (text[i] !== close) return false;
    i++;
    return true;
  };
  /** After a member: true to go on (a comma), false at the closing bracket, else Go's error in that context. */
  const after = (close: string, context: string): boolean | string => {
    ws();
    const c = text[i];
    if (c !== ',' && c !== close) return fail(context);
    i++;
    return c === ',';
  };
  const value = (): string | undefined => {
    ws();
    const c = text[i];
    if (c === '{') {
      if (closesAt('}')) return undefined;
      for (;;) {
        ws();
        if (text[i] !== '"') return fail('looking for beginning of object key string');
        const key = string();
        if (key) return key;
        ws();
        if (text[i] !== ':') return fail('after object key');
        i++;
        const member = value() ?? after('}', 'after object key:value pair');
        if (member !== true) return member || undefined;
      }
    }
    if (c === '[') {
      if (closesAt(']')) return undefined;
      for (;;) {
        const member = value() ?? after(']', 'after array element');
        if (member !== true) return member || undefined;
      }
    }
    if (c === '"') return string();
    const word = c === 't' ? 'true' : c === 'f' ? 'false' : c === 'n' ? 'null' : undefined;
    if (word) {
      for (let j = 0; j < word.length; j++, i++) {
        if (text[i] !== word[j]) return fail(`in literal ${word} (expecting '${word[j]}')`);
      }
      return undefined;
    }
    const number = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/.exec(text.slice(i));
    if (number) {
      i += number[0].length;
      return undefined;
    }
    if (c === '-') {
      i++;
      return fail('in numeric literal');
    }
    return fail('looking for beginning of value');
  };
  const string = (): string | undefined => {
    i++;
    while (i < text.length) {
      const c = text[i] as string;
      if (c === '"') {
        i++;
        return undefined;
      }
      if (c === '\\') {
        i++;
        if (i < text.length && !'"\\/bfnrtu'.includes(text[i] as string)) return fail('in string escape code');
      } else if (c < ' ') return fail('in string literal');
      i++;
    }
    return 'unexpected end of JSON input';
  };
  const problem = value();
  if (problem) return problem;
  ws();
  return i < text.length ? fail('after top-level value') : 'unexpected end of JSON input';
}
