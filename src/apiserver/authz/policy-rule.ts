/**
 * RBAC PolicyRules and how one matches a request, as upstream's rbac authorizer reads them: `*` in verbs,
 * apiGroups and resources matches anything; a resource may name a subresource (`pods/log`), and `*\/scale` matches
 * the scale subresource of any resource; resourceNames, when present, restrict the names; nonResourceURLs match
 * exactly or, ending in `*`, by prefix.
 */
import type { AuthorizationAttributes } from './attributes.js';

export interface PolicyRule {
  verbs: string[];
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
}

const ALL = '*';

/** Reads the rules of a Role or ClusterRole object, dropping what is not a list of strings. */
export function rulesOf(obj: object): PolicyRule[] {
  const raw = (obj as { rules?: unknown }).rules;
  if (!Array.isArray(raw)) return [];
  const strings = (v: unknown): string[] | undefined =>
    Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string') : undefined;
  const out: PolicyRule[] = [];
  for (const item of raw) {
    if (!item || typeof item !== 'object') continue;
    const r = item as Record<string, unknown>;
    const rule: PolicyRule = { verbs: strings(r.verbs) ?? [] };
    const apiGroups = strings(r.apiGroups);
    const resources = strings(r.resources);
    const resourceNames = strings(r.resourceNames);
    const nonResourceURLs = strings(r.nonResourceURLs);
    if (apiGroups?.length) rule.apiGroups = apiGroups;
    if (resources?.length) rule.resources = resources;
    if (resourceNames?.length) rule.resourceNames = resourceNames;
    if (nonResourceURLs?.length) rule.nonResourceURLs = nonResourceURLs;
    out.push(rule);
  }
  return out;
}

export function verbMatches(rule: PolicyRule, verb: string): boolean {
  return rule.verbs.includes(ALL) || rule.verbs.includes(verb);
}

export function apiGroupMatches(rule: PolicyRule, group: string): boolean {
  const groups = rule.apiGroups ?? [];
  return groups.includes(ALL) || groups.includes(group);
}

/** combined is `resource` or `resource/subresource`. */
export function resourceMatches(rule: PolicyRule, combined: string, subresource: string): boolean {
  const resources = rule.resources ?? [];
  for (const r of resources) {
    if (r === ALL || r === combined) return true;
    if (subresource && r === `*/${subresource}`) return true;
  }
  return false;
}

export function resourceNameMatches(rule: PolicyRule, name: string): boolean {
  const names = rule.resourceNames ?? [];
  return names.length === 0 || names.includes(name);
}

export function nonResourceURLMatches(rule: PolicyRule, path: string): boolean {
  for (const url of rule.nonResourceURLs ?? []) {
    if (url === ALL || url === path) return true;
    if (url.endsWith(ALL) && path.startsWith(url.slice(0, -1))) return true;
  }
  return false;
}

/** Whether a rule allows the request. */
export function ruleAllows(attrs: AuthorizationAttributes, rule: PolicyRule): boolean {
  if (attrs.isResourceRequest) {
    const combined = attrs.subresource ? `${attrs.resource}/${attrs.subresource}` : attrs.resource;
    return (
      verbMatches(rule, attrs.verb) &&
      apiGroupMatches(rule, attrs.apiGroup) &&
      resourceMatches(rule, combined, attrs.subresource) &&
      resourceNameMatches(rule, attrs.name)
    );
  }
  return verbMatches(rule, attrs.verb) && nonResourceURLMatches(rule, attrs.path);
}

/**
 * Upstream's compact form of a rule in messages, `{APIGroups:[""], Resources:["pods"], Verbs:["get" "list"]}`: each
 * field Go's %q of a string list (quoted values, space-separated), in upstream's order — APIGroups, Resources,
 * NonResourceURLs, ResourceNames, Verbs — and empty fields left out.
 */
export function compactString(rule: PolicyRule): string {
  const parts: string[] = [];
  const field = (name: string, values: string[] | undefined) => {
    if (values && values.length > 0) parts.push(`${name}:[${values.map((v) => JSON.stringify(v)).join(' ')}]`);
  };
  field('APIGroups', rule.apiGroups);
  field('Resources', rule.resources);
  field('NonResourceURLs', rule.nonResourceURLs);
  field('ResourceNames', rule.resourceNames);
  field('Verbs', rule.verbs);
  return `{${parts.join(', ')}}`;
}
