/**
 * Field selectors (`fieldSelector=metadata.name=x,status.phase!=Running`), as apimachinery's pkg/fields parses
 * and matches them. A resource exposes a flat map of the fields it supports; anything else is refused with
 * upstream's `field label not supported: <name>`.
 */

export type FieldSelectorOperator = '=' | '!=';

export interface FieldRequirement {
  readonly field: string;
  /** `==` parses to `=`, as upstream's selector keeps no difference between them. */
  readonly operator: FieldSelectorOperator;
  readonly value: string;
}

export type FieldSet = Readonly<Record<string, string>>;

/** A field label rename or refusal: return the new [field, value], or throw. */
export type FieldLabelConverter = (field: string, value: string) => [string, string];

export class FieldSelectorError extends Error {
  override name = 'FieldSelectorError';
}

/** Escapes `\`, `,` and `=` in a value so that it can be written into a selector. */
export function escapeFieldValue(value: string): string {
  return value.replace(/[\\,=]/g, (ch) => `\\${ch}`);
}

/** Reverses escapeFieldValue; unknown escapes, a trailing `\` and bare `,` or `=` are errors, as upstream. */
export function unescapeFieldValue(value: string): string {
  if (!/[\\,=]/.test(value)) return value;
  let out = '';
  let escaped = false;
  for (const ch of value) {
    if (escaped) {
      if (ch !== '\\' && ch !== ',' && ch !== '=') {
        throw new FieldSelectorError(`invalid field selector: invalid escape sequence: \\${ch}`);
      }
      out += ch;
      escaped = false;
    } else if (ch === '\\') {
      escaped = true;
    } else if (ch === ',' || ch === '=') {
      // Upstream prints the character's code point, not the character.
      throw new FieldSelectorError(`invalid field selector: unescaped character in value: ${ch.codePointAt(0)}`);
    } else {
      out += ch;
    }
  }
  if (escaped) throw new FieldSelectorError('invalid field selector: invalid escape sequence: \\');
  return out;
}

/** Splits on commas that are not escaped; escapes stay in the terms. */
function splitTerms(text: string): string[] {
  if (text.length === 0) return [];
  const terms: string[] = [];
  let start = 0;
  let escaped = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (escaped) escaped = false;
    else if (ch === '\\') escaped = true;
    else if (ch === ',') {
      terms.push(text.slice(start, i));
      start = i + 1;
    }
  }
  terms.push(text.slice(start));
  return terms;
}

/** The first operator in the term splits it; `!=` and `==` are tried before `=` at each position. */
function splitTerm(term: string): [string, string, string] | undefined {
  for (let i = 0; i < term.length; i++) {
    for (const op of ['!=', '==', '=']) {
      if (term.startsWith(op, i)) return [term.slice(0, i), op, term.slice(i + op.length)];
    }
  }
  return undefined;
}

function byteOrder(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * A field selector: the AND of its terms. `everything()` (also the empty selector) matches every object,
 * `nothing()` none.
 */
export class FieldSelector {
  private constructor(private readonly terms: readonly FieldRequirement[] | null) {}

  private static readonly EVERYTHING = new FieldSelector([]);
  private static readonly NOTHING = new FieldSelector(null);

  static everything(): FieldSelector {
    return FieldSelector.EVERYTHING;
  }

  static nothing(): FieldSelector {
    return FieldSelector.NOTHING;
  }

  /** Parses the `fieldSelector` query syntax; throws FieldSelectorError with upstream's message. */
  static parse(text: string): FieldSelector {
    const terms: FieldRequirement[] = [];
    for (const part of splitTerms(text).sort(byteOrder)) {
      if (part === '') continue;
      const split = splitTerm(part);
      if (!split) throw new FieldSelectorError(`invalid selector: '${text}'; can't understand '${part}'`);
      const [field, op, rawValue] = split;
      terms.push({ field, operator: op === '!=' ? '!=' : '=', value: unescapeFieldValue(rawValue) });
    }
    return new FieldSelector(terms);
  }

  /** `field=value` for every entry; a missing set selects everything. */
  static fromSet(set: FieldSet | null | undefined): FieldSelector {
    return new FieldSelector(Object.entries(set ?? {}).map(([field, value]) => ({ field, operator: '=', value })));
  }

  static oneTermEqual(field: string, value: string): FieldSelector {
    return new FieldSelector([{ field, operator: '=', value }]);
  }

  static oneTermNotEqual(field: string, value: string): FieldSelector {
    return new FieldSelector([{ field, operator: '!=', value }]);
  }

  /** The AND of several selectors (nothing() in it makes the whole nothing()). */
  static and(...selectors: FieldSelector[]): FieldSelector {
    if (selectors.some((s) => s.terms === null)) return FieldSelector.NOTHING;
    return new FieldSelector(selectors.flatMap((s) => s.requirements));
  }

  get requirements(): readonly FieldRequirement[] {
    return this.terms ?? [];
  }

  isEmpty(): boolean {
    return this.terms !== null && this.terms.length === 0;
  }

  /** A field the object does not provide reads as '' (so `spec.nodeName=` selects unscheduled pods). */
  matches(fields: FieldSet | null | undefined): boolean {
    return (
      this.terms?.every((t) => {
        const actual = fields != null && Object.hasOwn(fields, t.field) ? fields[t.field] : '';
        return t.operator === '=' ? actual === t.value : actual !== t.value;
      }) ?? false
    );
  }

  /** The value an `=` term on this field requires, if there is one. */
  requiresExactMatch(field: string): string | undefined {
    return this.requirements.find((t) => t.operator === '=' && t.field === field)?.value;
  }

  /** The distinct field names the selector reads, in order. */
  fields(): string[] {
    return [...new Set(this.requirements.map((t) => t.field))];
  }

  /** Renames or refuses terms (upstream's Transform); a term turned into ['', ''] is dropped. */
  transform(convert: FieldLabelConverter): FieldSelector {
    if (this.terms === null) return this;
    const terms: FieldRequirement[] = [];
    for (const t of this.terms) {
      const [field, value] = convert(t.field, t.value);
      if (field !== '' || value !== '') terms.push({ field, operator: t.operator, value });
    }
    return new FieldSelector(terms);
  }

  /** `a=b,c!=d` with values escaped; '' for everything and nothing. */
  toString(): string {
    return this.requirements.map((t) => `${t.field}${t.operator}${escapeFieldValue(t.value)}`).join(',');
  }
}

/** Upstream's message for a field a resource does not index: `field label not supported: <name>`. */
export function fieldLabelNotSupported(field: string): FieldSelectorError {
  return new FieldSelectorError(`field label not supported: ${field}`);
}

/**
 * A converter that lets through the given fields, renames the ones in `renames` (e.g. Pods' legacy
 * `spec.host` → `spec.nodeName`) and refuses any other with fieldLabelNotSupported.
 */
export function supportedFieldLabels(
  supported: Iterable<string>,
  renames: Readonly<Record<string, string>> = {},
): FieldLabelConverter {
  const allowed = new Set(supported);
  return (field, value) => {
    if (allowed.has(field)) return [field, value];
    if (Object.hasOwn(renames, field)) return [renames[field] ?? field, value];
    throw fieldLabelNotSupported(field);
  };
}
