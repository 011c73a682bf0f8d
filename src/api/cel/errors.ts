/**
 * CEL errors worded as Kubernetes shows them. A compile error reads as cel-go prints one
 * (`ERROR: <input>:1:5: undeclared reference to 'x' (in container '')`, then the source line and a caret under the
 * column), and the apiserver puts `compilation failed: ` before it. Evaluation errors keep the evaluator's summary
 * in upstream's words where they differ (`no such key: x`).
 */

interface LibraryNode {
  op?: unknown;
  args?: unknown;
  start?: number;
  end?: number;
  checkedType?: { name: string };
}

interface LibraryError {
  name?: string;
  summary?: string;
  message?: string;
  range?: { start: number; end: number };
  /** The node the error is about (the library's CelError carries it). */
  node?: LibraryNode;
}

/**
 * Type names as cel-go's FormatCELType writes them: `list(string)`, `map(string, int)`, `optional_type(int)` where
 * the library writes `list<string>`, `map<string, int>`, `optional<int>`.
 */
export function upstreamTypeNames(text: string): string {
  const generic = /\b(list|map|optional)<([^<>]*)>/g;
  let out = text;
  for (let before = ''; before !== out; ) {
    before = out;
    out = out.replace(generic, (_m, name: string, params: string) =>
      name === 'optional' ? `optional_type(${params})` : `${name}(${params})`,
    );
  }
  return out;
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
  return upstreamTypeNames(compileMessage(err));
}

function compileMessage(err: LibraryError): string {
  const summary = publicNames(err.summary ?? err.message ?? String(err));
  const index = /^List index must be int, got '(.+)'$/.exec(summary);
  const list = (err.node?.args as LibraryNode[] | undefined)?.[0]?.checkedType?.name;
  if (index && list) return `found no matching overload for '_[_]' applied to '(${list}, ${index[1]})'`;
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
  // cel-go's list Get: the index and the list's size, quoted.
  const index = /^No such key: index out of bounds, index (-?\d+) (?:< 0|>= size (\d+))$/.exec(summary);
  const size = index?.[2] ?? listSize(e?.node);
  if (index && size !== undefined) return `index '${index[1]}' out of range in list size '${size}'`;
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
  if (message.startsWith("found no matching overload for '_[_]'"))
    position = indexPosition(expression, e?.node) ?? position;
  else if (operator && e?.range) {
    position = operatorPosition(expression, e.range.start, e.range.end, operator) ?? position;
  } else if (message.startsWith('found no matching overload for '))
    position = callPosition(expression, e?.node) ?? position;
  return new CelCompileError(expression, formatCompileIssue(expression, position, message));
}

/** cel-go places a function call at its opening parenthesis: after the name, or after a receiver's `.name`. */
function callPosition(expression: string, node: LibraryNode | undefined): number | undefined {
  if (node?.op !== 'call' && node?.op !== 'rcall') return undefined;
  const receiver = node.op === 'rcall' ? (node.args as LibraryNode[] | undefined)?.[1] : undefined;
  const from = node.op === 'rcall' ? receiver?.end : node.start;
  if (from === undefined) return undefined;
  const at = expression.indexOf('(', from);
  return at < 0 ? undefined : at;
}

/** An index `a[i]` is placed at its bracket: the last `[` before the index expression. */
function indexPosition(expression: string, node: LibraryNode | undefined): number | undefined {
  const index = (node?.args as LibraryNode[] | undefined)?.[1]?.start;
  if (index === undefined) return undefined;
  const at = expression.lastIndexOf('[', index);
  return at < 0 ? undefined : at;
}

/** The size of the list an index node reads, when its receiver is a literal list. */
function listSize(node: LibraryNode | undefined): string | undefined {
  const list = (node?.args as LibraryNode[] | undefined)?.[0];
  return list?.op === 'list' && Array.isArray(list.args) ? String(list.args.length) : undefined;
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
