/**
 * Quota scopes: `spec.scopes` (each one an Exists requirement on its name) and `spec.scopeSelector.matchExpressions`
 * (`{scopeName, operator: In|NotIn|Exists|DoesNotExist, values}`). An object counts against a scoped quota only when
 * it matches every requirement.
 */
import type { QuotaObject } from './object.js';

export interface ScopeRequirement {
  scopeName: string;
  operator: string;
  values?: string[];
}

/** Every scope requirement of a quota (getScopeSelectorsFromQuota). */
export function quotaScopes(quota: QuotaObject): ScopeRequirement[] {
  const spec = (quota.spec ?? {}) as { scopes?: unknown; scopeSelector?: { matchExpressions?: unknown } };
  const out: ScopeRequirement[] = [];
  if (Array.isArray(spec.scopes)) {
    for (const s of spec.scopes) if (typeof s === 'string') out.push({ scopeName: s, operator: 'Exists' });
  }
  const exprs = spec.scopeSelector?.matchExpressions;
  if (Array.isArray(exprs)) {
    for (const e of exprs as Partial<ScopeRequirement>[]) {
      out.push({
        scopeName: String(e.scopeName ?? ''),
        operator: String(e.operator ?? ''),
        ...(Array.isArray(e.values) ? { values: e.values.map(String) } : {}),
      });
    }
  }
  return out;
}

/** A scope requirement read as a label requirement on the key scopeName, tested against labels. */
export function scopeSelectorMatches(req: ScopeRequirement, labels: Record<string, string>): boolean {
  const has = Object.hasOwn(labels, req.scopeName);
  const value = labels[req.scopeName];
  switch (req.operator) {
    case 'In':
      return has && (req.values ?? []).includes(value ?? '');
    case 'NotIn':
      return !has || !(req.values ?? []).includes(value ?? '');
    case 'Exists':
      return has;
    case 'DoesNotExist':
      return !has;
    default:
      return false;
  }
}
