/**
 * Node selectors (core/v1 NodeSelector, NodeSelectorTerm, PreferredSchedulingTerm) and a pod's required node
 * placement (`spec.nodeSelector` AND required node affinity), matched against Node objects the way
 * component-helpers' nodeaffinity package does. The scheduler's NodeAffinity plugin and the DaemonSet controller
 * share this.
 *
 * - Terms are ORed; a term's matchExpressions (on labels) and matchFields (on `metadata.name`) are ANDed.
 * - A term with neither matches nothing; a selector with no usable terms matches nothing.
 * - A term that does not parse (bad operator, `Gt` with two values, a non-integer `Lt` bound…) never matches,
 *   without spoiling the other terms (upstream's LazyErrorNodeSelector); the errors are kept for callers to log.
 * - `Gt`/`Lt` compare the label's value and the bound as int64 integers; a non-integer label value never matches.
 */

import { type LabelRequirement, type LabelSelectorOperator, requirementErrors, requirementMatches } from './labels.js';

export interface NodeSelectorRequirement {
  key: string;
  operator: string;
  values?: string[] | null;
}

export interface NodeSelectorTerm {
  matchExpressions?: NodeSelectorRequirement[] | null;
  matchFields?: NodeSelectorRequirement[] | null;
}

export interface NodeSelector {
  nodeSelectorTerms?: NodeSelectorTerm[] | null;
}

export interface PreferredSchedulingTerm {
  weight: number;
  preference: NodeSelectorTerm;
}

export interface NodeAffinity {
  requiredDuringSchedulingIgnoredDuringExecution?: NodeSelector | null;
  preferredDuringSchedulingIgnoredDuringExecution?: PreferredSchedulingTerm[] | null;
}

/** What matching needs of a Node. */
export interface NodeLike {
  metadata?: { name?: string; labels?: Record<string, string> | null };
}

/** The only node field selectors may use. */
export const NODE_NAME_FIELD = 'metadata.name';

const LABEL_OPERATORS: Record<string, LabelSelectorOperator> = {
  In: 'in',
  NotIn: 'notin',
  Exists: 'exists',
  DoesNotExist: '!',
  Gt: 'gt',
  Lt: 'lt',
};

interface FieldRequirement {
  key: string;
  equal: boolean;
  value: string;
}

/** One parsed term. */
class ParsedTerm {
  constructor(
    readonly labels: LabelRequirement[] | undefined,
    readonly fields: FieldRequirement[] | undefined,
    readonly errors: string[],
  ) {}

  matches(node: NodeLike): boolean {
    if (this.errors.length > 0) return false;
    const nodeLabels = node.metadata?.labels ?? {};
    if (this.labels && !this.labels.every((r) => requirementMatches(r, nodeLabels))) return false;
    if (this.fields) {
      const fieldSet: Record<string, string> = { [NODE_NAME_FIELD]: node.metadata?.name ?? '' };
      for (const f of this.fields) {
        const actual = Object.hasOwn(fieldSet, f.key) ? fieldSet[f.key] : '';
        if ((actual === f.value) !== f.equal) return false;
      }
    }
    return true;
  }
}

function parseExpressions(
  exprs: NodeSelectorRequirement[],
  where: string,
): { reqs: LabelRequirement[]; errors: string[] } {
  const reqs: LabelRequirement[] = [];
  const errors: string[] = [];
  exprs.forEach((expr, i) => {
    const op = Object.hasOwn(LABEL_OPERATORS, expr.operator) ? LABEL_OPERATORS[expr.operator] : undefined;
    if (op === undefined) {
      errors.push(`${where}[${i}].operator: Unsupported value: "${expr.operator}"`);
      return;
    }
    const values = expr.values ?? [];
    const errs = requirementErrors(expr.key, op, values);
    if (errs.length > 0) {
      errors.push(...errs.map((e) => `${where}[${i}]: ${e.message}`));
      return;
    }
    reqs.push({ key: expr.key, operator: op, values: [...values] });
  });
  return { reqs, errors };
}

function parseFields(exprs: NodeSelectorRequirement[], where: string): { reqs: FieldRequirement[]; errors: string[] } {
  const reqs: FieldRequirement[] = [];
  const errors: string[] = [];
  exprs.forEach((expr, i) => {
    if (expr.operator !== 'In' && expr.operator !== 'NotIn') {
      errors.push(`${where}[${i}].operator: Unsupported value: "${expr.operator}": supported values: "In", "NotIn"`);
      return;
    }
    const values = expr.values ?? [];
    const [value] = values;
    if (values.length !== 1 || value === undefined) {
      errors.push(`${where}[${i}].values: Invalid value: must have one element`);
      return;
    }
    reqs.push({ key: expr.key, equal: expr.operator === 'In', value });
  });
  return { reqs, errors };
}

function isEmptyTerm(term: NodeSelectorTerm): boolean {
  return (term.matchExpressions ?? []).length === 0 && (term.matchFields ?? []).length === 0;
}

function parseTerm(term: NodeSelectorTerm, where: string): ParsedTerm {
  const errors: string[] = [];
  let labels: LabelRequirement[] | undefined;
  let fields: FieldRequirement[] | undefined;
  const exprs = term.matchExpressions ?? [];
  if (exprs.length > 0) {
    const parsed = parseExpressions(exprs, `${where}.matchExpressions`);
    labels = parsed.reqs;
    errors.push(...parsed.errors);
  }
  const fieldExprs = term.matchFields ?? [];
  if (fieldExprs.length > 0) {
    const parsed = parseFields(fieldExprs, `${where}.matchFields`);
    fields = parsed.reqs;
    errors.push(...parsed.errors);
  }
  return new ParsedTerm(labels, fields, errors);
}

/** A compiled NodeSelector (the ORed terms); parse errors stay with their term. */
export class CompiledNodeSelector {
  private constructor(private readonly terms: ParsedTerm[]) {}

  static compile(selector: NodeSelector | null | undefined): CompiledNodeSelector {
    const terms: ParsedTerm[] = [];
    (selector?.nodeSelectorTerms ?? []).forEach((term, i) => {
      if (isEmptyTerm(term)) return;
      terms.push(parseTerm(term, `nodeSelectorTerms[${i}]`));
    });
    return new CompiledNodeSelector(terms);
  }

  /** Some term matches the node. */
  matches(node: NodeLike): boolean {
    return this.terms.some((t) => t.matches(node));
  }

  /** The parse errors of all terms. */
  get errors(): string[] {
    return this.terms.flatMap((t) => t.errors);
  }
}

/** Whether a node matches a NodeSelector (upstream's corev1.MatchNodeSelectorTerms over the whole selector). */
export function nodeMatchesNodeSelector(node: NodeLike, selector: NodeSelector | null | undefined): boolean {
  return CompiledNodeSelector.compile(selector).matches(node);
}

/** Weighted preferred terms: a node's score is the sum of the weights of the terms it matches. */
export class PreferredSchedulingTerms {
  private constructor(private readonly terms: { term: ParsedTerm; weight: number }[]) {}

  /** Terms of weight 0 and empty terms are ignored; throws an Error listing the parse errors if any term is bad. */
  static compile(terms: PreferredSchedulingTerm[] | null | undefined): PreferredSchedulingTerms {
    const out: { term: ParsedTerm; weight: number }[] = [];
    const errors: string[] = [];
    (terms ?? []).forEach((t, i) => {
      if (!t.weight || !t.preference || isEmptyTerm(t.preference)) return;
      const parsed = parseTerm(t.preference, `[${i}].preference`);
      if (parsed.errors.length > 0) {
        errors.push(...parsed.errors);
        return;
      }
      out.push({ term: parsed, weight: Number(t.weight) });
    });
    if (errors.length > 0) throw new Error(errors.length === 1 ? (errors[0] ?? '') : `[${errors.join(', ')}]`);
    return new PreferredSchedulingTerms(out);
  }

  get length(): number {
    return this.terms.length;
  }

  score(node: NodeLike): number {
    let sum = 0;
    for (const { term, weight } of this.terms) if (term.matches(node)) sum += weight;
    return sum;
  }
}

/** What placement needs of a Pod. */
export interface PodLike {
  spec?: { nodeSelector?: Record<string, string> | null; affinity?: { nodeAffinity?: NodeAffinity | null } | null };
}

/**
 * A pod's required placement (upstream's nodeaffinity.GetRequiredNodeAffinity): every `spec.nodeSelector` label,
 * and, if the pod has required node affinity, one of its terms.
 */
export class RequiredNodeAffinity {
  private readonly labels: [string, string][] | undefined;
  private readonly affinity: CompiledNodeSelector | undefined;

  constructor(pod: PodLike) {
    const selector = pod.spec?.nodeSelector;
    this.labels = selector ? Object.entries(selector) : undefined;
    const required = pod.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution;
    this.affinity = required ? CompiledNodeSelector.compile(required) : undefined;
  }

  matches(node: NodeLike): boolean {
    if (this.labels) {
      const nodeLabels = node.metadata?.labels ?? {};
      for (const [k, v] of this.labels) if (!Object.hasOwn(nodeLabels, k) || nodeLabels[k] !== v) return false;
    }
    return this.affinity ? this.affinity.matches(node) : true;
  }

  get errors(): string[] {
    return this.affinity?.errors ?? [];
  }
}

/** Whether the pod's nodeSelector and required node affinity admit the node (the DaemonSet controller's check). */
export function podMatchesNodeSelectorAndAffinityTerms(pod: PodLike, node: NodeLike): boolean {
  return new RequiredNodeAffinity(pod).matches(node);
}
