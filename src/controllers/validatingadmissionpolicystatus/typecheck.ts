/**
 * The type checking of a ValidatingAdmissionPolicy, as upstream's TypeChecker: every validation's expression and
 * messageExpression is checked with `object` and `oldObject` typed by the schema of each kind the policy's
 * matchConstraints name exactly (wildcard groups, versions and resources, and subresources, are skipped; kinds
 * without a known schema too), `params` by the paramKind's. Each expression that fails for some kind gets one
 * warning: per kind `<group>/<version>, Kind=<Kind>: <issues>` and a newline.
 */
import { lookupResource } from '../../api/catalog.js';
import { type TypedVariable, typeCheckCel } from '../../api/cel/index.js';
import { schemaForKind } from '../../api/schema.js';
import type { KubeObject } from '../../client/types.js';

export interface ExpressionWarning {
  fieldRef: string;
  warning: string;
}

interface GVK {
  group: string;
  version: string;
  kind: string;
}

type Rec = Record<string, unknown>;
const rec = (v: unknown): Rec => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Rec) : {});
const strs = (v: unknown): string[] => (Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string') : []);
const MAX_TYPES_TO_CHECK = 10;

const gvkString = (g: GVK) => `${g.group}/${g.version}, Kind=${g.kind}`;

/** The kinds the policy's rules name exactly, sorted by group, version and kind. */
export function typesToCheck(policy: KubeObject): GVK[] {
  const found = new Map<string, GVK>();
  for (const r of Array.isArray(rec(rec(policy.spec).matchConstraints).resourceRules)
    ? (rec(rec(policy.spec).matchConstraints).resourceRules as unknown[])
    : []) {
    const rule = rec(r);
    const groups = strs(rule.apiGroups);
    const versions = strs(rule.apiVersions);
    if (groups.some((g) => g.includes('*')) || versions.some((v) => v.includes('*'))) continue;
    const resources = strs(rule.resources).filter((res) => !/[*/]/.test(res));
    for (const group of [...groups].sort()) {
      for (const version of [...versions].sort()) {
        for (const resource of [...resources].sort()) {
          const info = lookupResource(group, version, resource);
          if (!info) continue;
          const gvk = { group, version, kind: info.kind };
          found.set(gvkString(gvk), gvk);
          if (found.size === MAX_TYPES_TO_CHECK) break;
        }
      }
    }
  }
  return [...found.values()].sort(
    (a, b) => a.group.localeCompare(b.group) || a.version.localeCompare(b.version) || a.kind.localeCompare(b.kind),
  );
}

function paramsGVK(policy: KubeObject): GVK | undefined {
  const pk = rec(rec(policy.spec).paramKind);
  const apiVersion = typeof pk.apiVersion === 'string' ? pk.apiVersion : '';
  const kind = typeof pk.kind === 'string' ? pk.kind : '';
  if (!apiVersion || !kind) return undefined;
  const [group, version] = apiVersion.includes('/') ? (apiVersion.split('/') as [string, string]) : ['', apiVersion];
  return { group, version, kind };
}

/** The warnings of a policy (empty when every expression type-checks). */
export function checkPolicy(policy: KubeObject): ExpressionWarning[] {
  const kinds = typesToCheck(policy)
    .map((gvk) => ({ gvk, schema: schemaForKind(gvk) }))
    .filter((k) => k.schema !== undefined);
  const params = paramsGVK(policy);
  const paramSchema = params ? schemaForKind(params) : undefined;
  const warnings: ExpressionWarning[] = [];
  const check = (expression: string, fieldRef: string) => {
    const lines: string[] = [];
    for (const { gvk, schema } of kinds) {
      const vars: TypedVariable[] = [
        { name: 'object', schema },
        { name: 'oldObject', schema },
        { name: 'request' },
        { name: 'namespaceObject' },
        { name: 'variables' },
        { name: 'authorizer', type: 'kubernetes.authorization.Authorizer' },
        ...(params ? [{ name: 'params', schema: paramSchema }] : []),
      ];
      const key = `vap ${gvkString(gvk)} params=${params ? gvkString(params) : '-'}`;
      const issue = typeCheckCel(expression, vars, key);
      if (issue) lines.push(`${gvkString(gvk)}: ${issue}\n`);
    }
    if (lines.length > 0) warnings.push({ fieldRef, warning: lines.join('\n') });
  };
  const validations = Array.isArray(rec(policy.spec).validations) ? (rec(policy.spec).validations as unknown[]) : [];
  validations.forEach((raw, i) => {
    const v = rec(raw);
    if (typeof v.expression === 'string') check(v.expression, `spec.validations[${i}].expression`);
    if (typeof v.messageExpression === 'string' && v.messageExpression !== '') {
      check(v.messageExpression, `spec.validations[${i}].messageExpression`);
    }
  });
  return warnings;
}
