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
