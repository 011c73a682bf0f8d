/**
 * CEL errors worded as Kubernetes shows them. A compile error reads as cel-go prints one
 * (`ERROR: <input>:1:5: undeclared reference to 'x' (in container '')`, then the source line and a caret under the
 * column), and the apiserver puts `compilation failed: ` before it. Evaluation errors keep the evaluator's summary
 * in upstream's words where they differ (`no such key: x`).
 */

interface LibraryError {
  name?: string;
  summary?: string;
  message?: string;
  range?: { start: number; end: number };
}

const OPERATOR_NAMES: Record<string, string> = {
  '+': '_+_',
  '-': '_-_',
  '*': '_*_',
  '/': '_/_',
  '%': '_%_',
  '<': '_<_',
  '<=': '_<=_',
  '>': '_>_',
  '>=': '_>=_',
  '==': '_==_',
  '!=': '_!=_',
  in: '@in',
};

/** Internal names the environment rewrites calls to (see regex.ts), shown to users by their public name. */
const INTERNAL_NAMES: [RegExp, string][] = [[/__re2_matches/g, 'matches']];

function publicNames(text: string): string {
  let out = text;
  for (const [re, name] of INTERNAL_NAMES) out = out.replace(re, name);
  return out;
}

/** The library's summary of a type-check or parse error in cel-go's words. */
export function upstreamCompileMessage(err: LibraryError): string {
  const summary = publicNames(err.summary ?? err.message ?? String(err));
  let m = /^Unknown variable: (.+)$/.exec(summary);
  if (m) return `undeclared reference to '${m[1]}' (in container '')`;
  m = /^No such key: (.+)$/.exec(summary);
  if (m && err.name === 'TypeError') return `undefined field '${m[1]}'`;
  m = /^no such overload: (\S+) (\S+) (\S+)$/.exec(summary);
  if (m?.[2] && OPERATOR_NAMES[m[2]]) {
    return `found no matching overload for '${OPERATOR_NAMES[m[2]]}' applied to '(${m[1]}, ${m[3]})'`;
  }
  m = /^no such overload: ([!-])(\S+)$/.exec(summary);
  if (m) return `found no matching overload for '${m[1]}_' applied to '(${m[2]})'`;
  m = /^found no matching overload for '([\w.<>, ]+?)\.(\w+)\((.*)\)'$/.exec(summary);
  if (m) return `found no matching overload for '${m[2]}' applied to '${m[1]}.(${m[3]})'`;
  m = /^found no matching overload for '(\w+)\((.*)\)'$/.exec(summary);
  if (m) return `found no matching overload for '${m[1]}' applied to '(${m[2]})'`;
  if (err.name === 'ParseError') return `Syntax error: ${summary}`;
  return summary;
}

/** `ERROR: <input>:L:C: message` and the source line with a caret, as cel-go formats one issue. */
export function formatCompileIssue(expression: string, position: number, message: string): string {
  const before = expression.slice(0, Math.max(0, Math.min(position, expression.length)));
  const lineStart = before.lastIndexOf('\n') + 1;
  const line = before.split('\n').length;
  const column = before.length - lineStart;
  const lineEnd = expression.indexOf('\n', lineStart);
  const sourceLine = expression.slice(lineStart, lineEnd < 0 ? undefined : lineEnd);
  return `ERROR: <input>:${line}:${column + 1}: ${message}\n | ${sourceLine}\n | ${'.'.repeat(column)}^`;
}

/** An expression that does not compile; `message` is what follows `compilation failed: `. */
export class CelCompileError extends Error {
  override name = 'CelCompileError';
  constructor(
    readonly expression: string,
    readonly issue: string,
  ) {
    super(issue);
  }
  /** Upstream's full text: `compilation failed: ERROR: <input>:…`. */
  get compilationFailed(): string {
    return `compilation failed: ${this.issue}`;
  }
}

/** An evaluation that failed (a missing key, a bad conversion, the cost limit). */
export class CelEvaluationError extends Error {
  override name = 'CelEvaluationError';
}

/** The cost bound was passed (see cost.ts). Upstream's text. */
export const COST_LIMIT_MESSAGE = 'operation cancelled: actual cost limit exceeded';

/** An error thrown by the library during evaluation, in upstream's words. */
export function upstreamEvaluationMessage(err: unknown): string {
  if (err instanceof CelEvaluationError) return err.message;
  const e = err as LibraryError;
  const summary = publicNames(e?.summary ?? e?.message ?? String(err));
  const m = /^No such key: (.+)$/.exec(summary);
  if (m) return `no such key: ${m[1]}`;
  return summary;
}

export function compileErrorFrom(expression: string, err: unknown): CelCompileError {
  const e = err as LibraryError;
  let position = e?.range?.start ?? 0;
  const message = upstreamCompileMessage(e);
  // cel-go places a field selection at its dot, and a binary operator's call at the operator.
  if (message.startsWith('undefined field') && expression[position - 1] === '.') position--;
  const operator = /^found no matching overload for '_(\S+)_' applied to '\(/.exec(message)?.[1];
  if (operator && e?.range) position = operatorPosition(expression, e.range.start, e.range.end, operator) ?? position;
  return new CelCompileError(expression, formatCompileIssue(expression, position, message));
}

/**
 * Where the binary operator of the expression spanning [start, end) stands: its last occurrence outside brackets
 * and string literals (binary operators associate to the left, so the last one of the failing node's kind is its
 * own). Undefined when it is not found.
 */
function operatorPosition(expression: string, start: number, end: number, operator: string): number | undefined {
  let depth = 0;
  let found: number | undefined;
  for (let i = start; i < Math.min(end, expression.length); i++) {
    const ch = expression[i] as string;
    if (ch === '"' || ch === "'") {
      // Skip the literal, escapes included.
      for (i++; i < end && expression[i] !== ch; i++) if (expression[i] === '\\') i++;
      continue;
    }
    if (ch === '(' || ch === '[' || ch === '{') depth++;
    else if (ch === ')' || ch === ']' || ch === '}') depth--;
    else if (depth === 0 && expression.startsWith(operator, i) && isOperatorAt(expression, i, operator)) found = i;
  }
  return found;
}

/** Whether operator at i is that operator, not part of a longer one (`<` of `<=`) or of a name (`in` of `index`). */
function isOperatorAt(expression: string, i: number, operator: string): boolean {
  const before = expression[i - 1] ?? ' ';
  const after = expression[i + operator.length] ?? ' ';
  if (/\w/.test(operator)) return !/\w/.test(before) && !/\w/.test(after);
  if (operator === '<' || operator === '>') return after !== '=';
  return true;
}
