/**
 * Pod (anti-)affinity terms as the scheduler works with them (upstream's framework.AffinityTerm and the parsed
 * terms of framework.PodInfo): each term's label selector, the namespaces it covers — its `namespaces`, or the
 * pod's own namespace when neither `namespaces` nor `namespaceSelector` is set — its namespace selector and its
 * topology key. Existing pods' terms are parsed once and kept in their PodInfo's cache.
 *
 * `matchLabelKeys` / `mismatchLabelKeys`: upstream's apiserver folds them into the term's labelSelector when the
 * pod is created (`key In (value)` / `key NotIn (value)` from the pod's labels). Parsing does the same here when
 * the selector does not carry that requirement yet, so pods created by an apiserver that did not fold them still
 * get upstream's meaning; a selector that already has it is left as it is.
 */

import {
  LabelSelector,
  type LabelSelectorObject,
  type LabelSelectorRequirementObject,
  type LabelSet,
} from '../../../api/labels.js';
import type { Pod, PodInfo } from '../../framework/types.js';

export interface AffinityTerm {
  /** Namespaces the term names (or the pod's own); the namespace selector's matches are merged in for the
   * incoming pod's terms. */
  namespaces: Set<string>;
  selector: LabelSelector;
  topologyKey: string;
  namespaceSelector: LabelSelector;
}

export interface WeightedAffinityTerm extends AffinityTerm {
  weight: number;
}

export interface ParsedAffinity {
  requiredAffinityTerms: AffinityTerm[];
  requiredAntiAffinityTerms: AffinityTerm[];
  preferredAffinityTerms: WeightedAffinityTerm[];
  preferredAntiAffinityTerms: WeightedAffinityTerm[];
  /** Messages of terms that could not be parsed (those terms are left out). */
  errors: string[];
}

/** v1.PodAffinityTerm as it arrives in a pod. */
interface PodAffinityTermObject {
  labelSelector?: LabelSelectorObject | null;
  namespaces?: string[] | null;
  namespaceSelector?: LabelSelectorObject | null;
  topologyKey?: string;
  matchLabelKeys?: string[] | null;
  mismatchLabelKeys?: string[] | null;
}

interface WeightedPodAffinityTermObject {
  weight?: number;
  podAffinityTerm?: PodAffinityTermObject;
}

const CACHE_KEY = 'InterPodAffinity/terms';

/** The selector with matchLabelKeys/mismatchLabelKeys folded in as upstream's apiserver does at pod creation. */
function effectiveSelector(term: PodAffinityTermObject, podLabels: LabelSet): LabelSelectorObject | null | undefined {
  const sel = term.labelSelector;
  if (sel == null) return sel;
  const matchKeys = term.matchLabelKeys ?? [];
  const mismatchKeys = term.mismatchLabelKeys ?? [];
  if (matchKeys.length === 0 && mismatchKeys.length === 0) return sel;
  const exprs: LabelSelectorRequirementObject[] = [...(sel.matchExpressions ?? [])];
  const fold = (keys: string[], operator: 'In' | 'NotIn') => {
    for (const key of keys) {
      if (!Object.hasOwn(podLabels, key)) continue;
      const value = podLabels[key] ?? '';
      const present = exprs.some(
        (e) => e.key === key && e.operator === operator && e.values?.length === 1 && e.values[0] === value,
      );
      if (!present) exprs.push({ key, operator, values: [value] });
    }
  };
  fold(matchKeys, 'In');
  fold(mismatchKeys, 'NotIn');
  return { ...sel, matchExpressions: exprs };
}

/** Upstream's newAffinityTerm; throws on a selector that does not parse. */
export function newAffinityTerm(pod: Pod, term: PodAffinityTermObject): AffinityTerm {
  const labels = (pod.metadata?.labels ?? {}) as LabelSet;
  const selector = LabelSelector.fromObject(effectiveSelector(term, labels));
  const namespaces = new Set<string>();
  if ((term.namespaces ?? []).length === 0 && term.namespaceSelector == null) {
    namespaces.add(pod.metadata?.namespace ?? '');
  } else {
    for (const ns of term.namespaces ?? []) namespaces.add(ns);
  }
  const namespaceSelector = LabelSelector.fromObject(term.namespaceSelector);
  return { namespaces, selector, topologyKey: term.topologyKey ?? '', namespaceSelector };
}

function parseTerms(pod: Pod, terms: PodAffinityTermObject[] | null | undefined, errors: string[]): AffinityTerm[] {
  const out: AffinityTerm[] = [];
  for (const t of terms ?? []) {
    try {
      out.push(newAffinityTerm(pod, t ?? {}));
    } catch (err) {
      errors.push((err as Error).message);
    }
  }
  return out;
}

function parseWeighted(
  pod: Pod,
  terms: WeightedPodAffinityTermObject[] | null | undefined,
  errors: string[],
): WeightedAffinityTerm[] {
  const out: WeightedAffinityTerm[] = [];
  for (const t of terms ?? []) {
    const weight = Number(t?.weight ?? 0);
    try {
      out.push({ ...newAffinityTerm(pod, t?.podAffinityTerm ?? {}), weight });
    } catch (err) {
      errors.push((err as Error).message);
    }
  }
  return out;
}

/** Parses every (anti-)affinity term of a pod afresh (the incoming pod's terms are changed by the plugin). */
export function parsePodAffinity(pod: Pod): ParsedAffinity {
  const errors: string[] = [];
  const a = pod.spec?.affinity;
  return {
    requiredAffinityTerms: parseTerms(pod, a?.podAffinity?.requiredDuringSchedulingIgnoredDuringExecution, errors),
    requiredAntiAffinityTerms: parseTerms(
      pod,
      a?.podAntiAffinity?.requiredDuringSchedulingIgnoredDuringExecution,
      errors,
    ),
    preferredAffinityTerms: parseWeighted(pod, a?.podAffinity?.preferredDuringSchedulingIgnoredDuringExecution, errors),
    preferredAntiAffinityTerms: parseWeighted(
      pod,
      a?.podAntiAffinity?.preferredDuringSchedulingIgnoredDuringExecution,
      errors,
    ),
    errors,
  };
}

/** An existing pod's parsed terms, computed once per PodInfo. Treat the result as read-only. */
export function affinityOf(pi: PodInfo): ParsedAffinity {
  const cached = pi.cache.get(CACHE_KEY) as ParsedAffinity | undefined;
  if (cached) return cached;
  const parsed = parsePodAffinity(pi.pod);
  pi.cache.set(CACHE_KEY, parsed);
  return parsed;
}

/**
 * Whether the term selects the pod: the pod's namespace is one of the term's namespaces or its labels (nsLabels)
 * match the namespace selector, and the pod's labels match the term's selector.
 */
export function termMatches(term: AffinityTerm, pod: Pod, nsLabels: LabelSet | undefined): boolean {
  const ns = pod.metadata?.namespace ?? '';
  if (term.namespaces.has(ns) || term.namespaceSelector.matches(nsLabels)) {
    return term.selector.matches(pod.metadata?.labels);
  }
  return false;
}

/** True only when there are terms and the pod matches every one (namespace selectors already merged). */
export function podMatchesAllAffinityTerms(terms: readonly AffinityTerm[], pod: Pod): boolean {
  if (terms.length === 0) return false;
  return terms.every((t) => termMatches(t, pod, undefined));
}

/** Names and labels of namespaces, as the plugin reads them from the informer cache. */
export interface NamespaceSource {
  /** The namespaces whose labels the selector matches. */
  namesMatching(selector: LabelSelector): string[];
  /** A copy of the namespace's labels; undefined when the namespace is not known. */
  labelsOf(name: string): LabelSet | undefined;
}

/**
 * Upstream's mergeAffinityTermNamespacesIfNotEmpty: a term with a non-empty namespace selector gets the names of
 * the namespaces it selects added to its namespaces, and its selector becomes "nothing". An empty selector (all
 * namespaces) stays as it is.
 */
export function mergeTermNamespaces(term: AffinityTerm, source: NamespaceSource | undefined): void {
  if (term.namespaceSelector.isEmpty()) return;
  if (term.namespaceSelector.selectable) {
    for (const name of source?.namesMatching(term.namespaceSelector) ?? []) term.namespaces.add(name);
  }
  term.namespaceSelector = LabelSelector.nothing();
}
