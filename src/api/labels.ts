/**
 * Label selectors, as the `labelSelector` query parameter spells them and as metav1 LabelSelector objects hold
 * them (apimachinery's pkg/labels). Parse errors and requirement errors carry upstream's messages, since clients
 * show them as they are.
 */
import { aggregateMessage, type FieldError, type FieldPath, invalid, notSupported, path } from './field-errors.js';
import { goQuote, goStringSlice } from './validation/go-format.js';
import { isQualifiedName, isValidLabelValue } from './validation/names.js';

/** Operators as upstream's selection package names them; `!` is DoesNotExist, `exists` has no spelling. */
export type LabelSelectorOperator = 'in' | 'notin' | '=' | '==' | '!=' | 'gt' | 'lt' | 'exists' | '!';

const BINARY_OPERATORS: readonly string[] = ['in', 'notin', '=', '==', '!=', 'gt', 'lt'];
const ALL_OPERATORS: readonly string[] = [...BINARY_OPERATORS, 'exists', '!'];

export interface LabelRequirement {
  readonly key: string;
  readonly operator: LabelSelectorOperator;
  readonly values: readonly string[];
}

/** metav1.LabelSelectorRequirement as it arrives in an object. */
export interface LabelSelectorRequirementObject {
  key?: string;
  operator?: string;
  values?: string[] | null;
}

/** metav1.LabelSelector as it arrives in an object. */
export interface LabelSelectorObject {
  matchLabels?: Record<string, string> | null;
  matchExpressions?: LabelSelectorRequirementObject[] | null;
}

export type LabelSet = Readonly<Record<string, string>>;

export class LabelSelectorError extends Error {
  override name = 'LabelSelectorError';
  constructor(
    message: string,
    /** The field errors behind the message, when it came from requirement validation. */
    readonly fieldErrors: readonly FieldError[] = [],
  ) {
    super(message);
  }
}

const under = (base: FieldPath | undefined, name: string) => (base ? base.child(name) : path(name));

/** Go's strconv.ParseInt(s, 10, 64). */
export function parseInt64(s: string): bigint | undefined {
  if (!/^[+-]?[0-9]+$/.test(s)) return undefined;
  const n = BigInt(s);
  return n >= -(2n ** 63n) && n < 2n ** 63n ? n : undefined;
}

/** The checks of upstream's NewRequirement; `base` is where the requirement sits (none for a query parameter). */
export function requirementErrors(
  key: string,
  operator: string,
  values: readonly string[],
  base?: FieldPath,
): FieldError[] {
  const errs: FieldError[] = [];
  const keyErrs = isQualifiedName(key);
  if (keyErrs.length > 0) errs.push(invalid(under(base, 'key'), key, keyErrs.join('; ')));
  const valuesPath = under(base, 'values');
  const badValues = goStringSlice(values.length === 0 ? null : values);
  switch (operator) {
    case 'in':
    case 'notin':
      if (values.length === 0)
        errs.push(invalid(valuesPath, badValues, "for 'in', 'notin' operators, values set can't be empty"));
      break;
    case '=':
    case '==':
    case '!=':
      if (values.length !== 1)
        errs.push(invalid(valuesPath, badValues, 'exact-match compatibility requires one single value'));
      break;
    case 'exists':
    case '!':
      if (values.length !== 0)
        errs.push(invalid(valuesPath, badValues, 'values set must be empty for exists and does not exist'));
      break;
    case 'gt':
    case 'lt':
      if (values.length !== 1)
        errs.push(invalid(valuesPath, badValues, "for 'Gt', 'Lt' operators, exactly one value is required"));
      values.forEach((v, i) => {
        if (parseInt64(v) === undefined) {
          errs.push(invalid(valuesPath.index(i), v, "for 'Gt', 'Lt' operators, the value must be an integer"));
        }
      });
      break;
    default:
      errs.push(notSupported(under(base, 'operator'), operator, ALL_OPERATORS));
  }
  values.forEach((v, i) => {
    const msgs = isValidLabelValue(v);
    if (msgs.length > 0) errs.push(invalid(valuesPath.index(i).key(key), v, msgs.join('; ')));
  });
  return errs;
}

/** A checked requirement; throws LabelSelectorError with upstream's aggregated message when it is not valid. */
export function newRequirement(
  key: string,
  operator: LabelSelectorOperator,
  values: readonly string[],
  base?: FieldPath,
): LabelRequirement {
  const errs = requirementErrors(key, operator, values, base);
  if (errs.length > 0) throw new LabelSelectorError(aggregateMessage(errs.map((e) => e.message)), errs);
  return { key, operator, values: [...values] };
}

export function requirementMatches(r: LabelRequirement, labels: LabelSet | null | undefined): boolean {
  const has = labels != null && Object.hasOwn(labels, r.key);
  const value = has ? labels[r.key] : undefined;
  switch (r.operator) {
    case 'in':
    case '=':
    case '==':
      return value !== undefined && r.values.includes(value);
    case 'notin':
    case '!=':
      return value === undefined || !r.values.includes(value);
    case 'exists':
      return has;
    case '!':
      return !has;
    case 'gt':
    case 'lt': {
      const actual = value === undefined ? undefined : parseInt64(value);
      const bound = r.values.length === 1 ? parseInt64(r.values[0] ?? '') : undefined;
      if (actual === undefined || bound === undefined) return false;
      return r.operator === 'gt' ? actual > bound : actual < bound;
    }
  }
}

const SPELLING: Record<LabelSelectorOperator, string> = {
  '=': '=',
  '==': '==',
  '!=': '!=',
  in: ' in ',
  notin: ' notin ',
  gt: '>',
  lt: '<',
  exists: '',
  '!': '',
};

/** Upstream's canonical text of one requirement: `!a`, `a`, `a=b`, `a in (x,y)` (values sorted), `a>1`. */
export function requirementString(r: LabelRequirement): string {
  if (r.operator === 'exists') return r.key;
  if (r.operator === '!') return `!${r.key}`;
  const values = r.values.length === 1 ? (r.values[0] ?? '') : [...r.values].sort(byteOrder).join(',');
  const set = r.operator === 'in' || r.operator === 'notin';
  return `${r.key}${SPELLING[r.operator]}${set ? `(${values})` : values}`;
}

function byteOrder(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

const sortByKey = (reqs: LabelRequirement[]) => reqs.sort((a, b) => byteOrder(a.key, b.key));

const OBJECT_OPERATORS: Record<string, LabelSelectorOperator> = {
  In: 'in',
  NotIn: 'notin',
  Exists: 'exists',
  DoesNotExist: '!',
};

/**
 * A label selector: the AND of its requirements. `everything()` (also a selector with no requirements) matches
 * every object; `nothing()` (what a missing metav1 selector means) matches none.
 */
export class LabelSelector {
  private constructor(private readonly reqs: readonly LabelRequirement[] | null) {}

  private static readonly EVERYTHING = new LabelSelector([]);
  private static readonly NOTHING = new LabelSelector(null);

  static everything(): LabelSelector {
    return LabelSelector.EVERYTHING;
  }

  static nothing(): LabelSelector {
    return LabelSelector.NOTHING;
  }

  /** Parses the `labelSelector` query syntax; throws LabelSelectorError with upstream's message. */
  static parse(text: string, base?: FieldPath): LabelSelector {
    return new LabelSelector(sortByKey(parseRequirements(text, base)));
  }

  /** `a=b` for every entry; an empty or missing set selects everything. `validate` checks keys and values. */
  static fromSet(set: LabelSet | null | undefined, options: { validate?: boolean } = {}): LabelSelector {
    const reqs = Object.entries(set ?? {}).map(([key, value]) =>
      options.validate ? newRequirement(key, '=', [value]) : { key, operator: '=' as const, values: [value] },
    );
    return new LabelSelector(sortByKey(reqs));
  }

  /** From a metav1 LabelSelector: missing selects nothing, empty selects everything (LabelSelectorAsSelector). */
  static fromObject(selector: LabelSelectorObject | null | undefined): LabelSelector {
    if (selector == null) return LabelSelector.NOTHING;
    const reqs: LabelRequirement[] = [];
    for (const [key, value] of Object.entries(selector.matchLabels ?? {})) reqs.push(newRequirement(key, '=', [value]));
    for (const expr of selector.matchExpressions ?? []) {
      const op = Object.hasOwn(OBJECT_OPERATORS, expr.operator ?? '')
        ? OBJECT_OPERATORS[expr.operator ?? '']
        : undefined;
      if (op === undefined) {
        throw new LabelSelectorError(`${goQuote(expr.operator ?? '')} is not a valid label selector operator`);
      }
      reqs.push(newRequirement(expr.key ?? '', op, expr.values ?? []));
    }
    return new LabelSelector(sortByKey(reqs));
  }

  /** The requirements, sorted by key; none for everything() and nothing(). */
  get requirements(): readonly LabelRequirement[] {
    return this.reqs ?? [];
  }

  /** False only for nothing(): it cannot be expressed as requirements. */
  get selectable(): boolean {
    return this.reqs !== null;
  }

  /** True when the selector does not restrict anything (upstream's Empty()); false for nothing(). */
  isEmpty(): boolean {
    return this.reqs !== null && this.reqs.length === 0;
  }

  matches(labels: LabelSet | null | undefined): boolean {
    return this.reqs?.every((r) => requirementMatches(r, labels)) ?? false;
  }

  /** A new selector with more requirements (nothing() stays nothing). */
  add(...reqs: LabelRequirement[]): LabelSelector {
    if (this.reqs === null) return this;
    return new LabelSelector(sortByKey([...this.reqs, ...reqs]));
  }

  /** The single value the first requirement on `key` pins (=, == or in with one value), as upstream answers. */
  requiresExactMatch(key: string): string | undefined {
    const r = this.requirements.find((req) => req.key === key);
    if (!r || !['=', '==', 'in'].includes(r.operator) || r.values.length !== 1) return undefined;
    return r.values[0];
  }

  /** Every label an object must carry with one exact value to match: the keys an index can look up. */
  exactMatches(): Map<string, string> {
    const out = new Map<string, string>();
    for (const r of this.requirements) {
      if (['=', '==', 'in'].includes(r.operator) && r.values.length === 1) out.set(r.key, r.values[0] ?? '');
    }
    return out;
  }

  /** The keys an object must have to match (every operator but notin, != and !). */
  requiredKeys(): string[] {
    const keys = this.requirements.filter((r) => !['notin', '!=', '!'].includes(r.operator)).map((r) => r.key);
    return [...new Set(keys)];
  }

  /** Upstream's canonical text: requirements sorted by key, joined by commas; '' for everything and nothing. */
  toString(): string {
    return this.requirements.map(requirementString).join(',');
  }
}

// The parser: a port in our own words of upstream's lexer and recursive-descent parser, kept faithful because
// its error messages are what clients see. Tokens are the operators, parentheses, comma, identifiers and the end.

type Token = 'eos' | ')' | ',' | '!' | '==' | '=' | '>' | 'in' | '<' | '!=' | 'notin' | '(' | 'id';
interface Lexeme {
  tok: Token;
  lit: string;
}

const KEYWORDS: Record<string, Token> = { in: 'in', notin: 'notin' };
const SPECIAL = new Set(['=', '!', '(', ')', ',', '>', '<']);
const WHITESPACE = new Set([' ', '\t', '\r', '\n']);

/** Splits the text into lexemes. A NUL character ends the current lexeme as the end of text does upstream. */
function lex(text: string): Lexeme[] {
  const out: Lexeme[] = [];
  let pos = 0;
  const read = () => (pos < text.length ? (text[pos++] ?? '\0') : '\0');
  for (;;) {
    let ch = read();
    while (WHITESPACE.has(ch)) ch = read();
    if (ch === '\0') {
      out.push({ tok: 'eos', lit: '' });
      return out;
    }
    if (SPECIAL.has(ch)) {
      // The longest operator: '==' and '!=' are the only two-character ones.
      const two = ch + (text[pos] ?? '');
      const lit = two === '==' || two === '!=' ? two : ch;
      pos += lit.length - 1;
      if (text[pos] === '\0') pos++; // upstream swallows a NUL right after an operator
      out.push({ tok: lit as Token, lit });
      continue;
    }
    let lit = '';
    while (ch !== '\0' && !SPECIAL.has(ch) && !WHITESPACE.has(ch)) {
      lit += ch;
      ch = read();
    }
    if (ch !== '\0') pos--;
    out.push({ tok: Object.hasOwn(KEYWORDS, lit) ? (KEYWORDS[lit] ?? 'id') : 'id', lit });
  }
}

class Parser {
  private pos = 0;
  constructor(
    private readonly items: Lexeme[],
    private readonly base: FieldPath | undefined,
  ) {}

  /** In value position, 'in' and 'notin' are plain identifiers. */
  private look(values: boolean): Lexeme {
    const item = this.items[this.pos] ?? { tok: 'eos', lit: '' };
    return values && (item.tok === 'in' || item.tok === 'notin') ? { tok: 'id', lit: item.lit } : item;
  }

  private next(values: boolean): Lexeme {
    const item = this.look(values);
    this.pos++;
    return item;
  }

  parse(): LabelRequirement[] {
    const reqs: LabelRequirement[] = [];
    for (;;) {
      const { tok, lit } = this.look(true);
      if (tok === 'eos') return reqs;
      if (tok !== 'id' && tok !== '!')
        throw new LabelSelectorError(`found '${lit}', expected: !, identifier, or 'end of string'`);
      try {
        reqs.push(this.requirement());
      } catch (err) {
        const e = err as LabelSelectorError;
        throw new LabelSelectorError(`unable to parse requirement: ${e.message}`, e.fieldErrors);
      }
      const after = this.next(true);
      if (after.tok === 'eos') return reqs;
      if (after.tok !== ',') throw new LabelSelectorError(`found '${after.lit}', expected: ',' or 'end of string'`);
      const following = this.look(true);
      if (following.tok !== 'id' && following.tok !== '!') {
        throw new LabelSelectorError(`found '${following.lit}', expected: identifier after ','`);
      }
    }
  }

  private requirement(): LabelRequirement {
    let { tok, lit } = this.next(true);
    const negated = tok === '!';
    if (negated) ({ tok, lit } = this.next(true));
    if (tok !== 'id') throw new LabelSelectorError(`found '${lit}', expected: identifier`);
    const keyErrs = isQualifiedName(lit);
    if (keyErrs.length > 0) {
      const e = invalid(this.base ?? null, lit, keyErrs.join('; '));
      throw new LabelSelectorError(e.message, [e]);
    }
    const key = lit;
    const following = this.look(true).tok;
    if (negated || following === 'eos' || following === ',') {
      return newRequirement(key, negated ? '!' : 'exists', [], this.base);
    }
    const op = this.operator();
    const values = op === 'in' || op === 'notin' ? this.valueSet() : this.exactValue();
    return newRequirement(key, op, [...new Set(values)].sort(byteOrder), this.base);
  }

  private operator(): LabelSelectorOperator {
    const { tok, lit } = this.next(false);
    const ops: Partial<Record<Token, LabelSelectorOperator>> = {
      in: 'in',
      '=': '=',
      '==': '==',
      '>': 'gt',
      '<': 'lt',
      notin: 'notin',
      '!=': '!=',
    };
    const op = ops[tok];
    if (op === undefined) throw new LabelSelectorError(`found '${lit}', expected: ${BINARY_OPERATORS.join(', ')}`);
    return op;
  }

  private valueSet(): string[] {
    const open = this.next(true);
    if (open.tok !== '(') throw new LabelSelectorError(`found '${open.lit}' expected: '('`);
    const { tok, lit } = this.look(true);
    if (tok === ')') {
      this.next(true);
      return [''];
    }
    if (tok !== 'id' && tok !== ',') throw new LabelSelectorError(`found '${lit}', expected: ',', ')' or identifier`);
    const values = this.identifierList();
    if (this.next(true).tok !== ')') throw new LabelSelectorError(`found '${lit}', expected: ')'`);
    return values;
  }

  /** A list of possibly empty identifiers: `a,b`, `,a`, `a,,b`, `a,`. Stops before the closing parenthesis. */
  private identifierList(): string[] {
    const values: string[] = [];
    for (;;) {
      const { tok, lit } = this.next(true);
      if (tok === 'id') {
        values.push(lit);
        const following = this.look(true);
        if (following.tok === ',') continue;
        if (following.tok === ')') return values;
        throw new LabelSelectorError(`found '${following.lit}', expected: ',' or ')'`);
      }
      if (tok !== ',') throw new LabelSelectorError(`found '${lit}', expected: ',', or identifier`);
      if (values.length === 0) values.push('');
      const following = this.look(true).tok;
      if (following === ')') {
        values.push('');
        return values;
      }
      if (following === ',') {
        this.next(true);
        values.push('');
      }
    }
  }

  private exactValue(): string[] {
    const following = this.look(true).tok;
    if (following === 'eos' || following === ',') return [''];
    const { tok, lit } = this.next(true);
    if (tok !== 'id') throw new LabelSelectorError(`found '${lit}', expected: identifier`);
    return [lit];
  }
}

function parseRequirements(text: string, base: FieldPath | undefined): LabelRequirement[] {
  return new Parser(lex(text), base).parse();
}
