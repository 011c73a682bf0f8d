/**
 * The type checking of a ValidatingAdmissionPolicy, as upstream's TypeChecker: every validation's expression and
 * messageExpression is checked with `object` and `oldObject` typed by the schema of each kind the policy's
 * matchConstraints name exactly (wildcard groups, versions and resources, and subresources, are skipped; kinds
 * without a known schema too), `params` by the paramKind's. Built-in kinds come from the API tables; others (custom
 * resources) from the server, when a ServedSchemas is given (discovery and OpenAPI v3, see served-schemas.ts). Each
 * expression that fails for some kind gets one warning: per kind `<group>/<version>, Kind=<Kind>: <issues>` and a
 * newline.
 */
import { lookupResource } from '../../api/catalog.js';
import { type CelValueSchema, type TypedVariable, typeCheckCel } from '../../api/cel/index.js';
import { schemaForKind } from '../../api/schema.js';
import type { KubeObject } from '../../client/types.js';
import type { GVK, ServedSchemas } from './served-schemas.js';

export interface ExpressionWarning {
  fieldRef: string;
  warning: string;
}

type Rec = Record<string, unknown>;
const rec = (v: unknown): Rec => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Rec) : {});
const strs = (v: unknown): string[] => (Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string') : []);
const MAX_TYPES_TO_CHECK = 10;

const gvkString = (g: GVK) => `${g.group}/${g.version}, Kind=${g.kind}`;

/** The kinds the policy's rules name exactly, sorted by group, version and kind. */
export async function typesToCheck(policy: KubeObject, served?: ServedSchemas): Promise<GVK[]> {
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
          const kind =
            lookupResource(group, version, resource)?.kind ?? (await served?.kindOf(group, version, resource));
          if (!kind) continue;
          const gvk = { group, version, kind };
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

/**
 * A kind's schema: the built-in one, else the server's; with the name of its typed environments (a served schema's
 * includes a digest of it, as the CRD may change).
 */
async function schemaOf(
  gvk: GVK,
  served: ServedSchemas | undefined,
): Promise<{ schema: CelValueSchema; key: string } | undefined> {
  const builtIn = schemaForKind(gvk);
  if (builtIn) return { schema: builtIn, key: gvkString(gvk) };
  const found = await served?.schemaOf(gvk);
  return found && { schema: found.schema, key: `${gvkString(gvk)} ${found.key}` };
}

/** The warnings of a policy (empty when every expression type-checks). */
export async function checkPolicy(policy: KubeObject, served?: ServedSchemas): Promise<ExpressionWarning[]> {
  const kinds: { gvk: GVK; schema: CelValueSchema; key: string }[] = [];
  for (const gvk of await typesToCheck(policy, served)) {
    const found = await schemaOf(gvk, served);
    if (found) kinds.push({ gvk, ...found });
  }
  const params = paramsGVK(policy);
  const paramsFound = params ? await schemaOf(params, served) : undefined;
  const warnings: ExpressionWarning[] = [];
  const check = (expression: string, fieldRef: string) => {
    const lines: string[] = [];
    for (const { gvk, schema, key: kindKey } of kinds) {
      const vars: TypedVariable[] = [
        { name: 'object', schema },
        { name: 'oldObject', schema },
        { name: 'request' },
        { name: 'namespaceObject' },
        { name: 'variables' },
        { name: 'authorizer', type: 'kubernetes.authorization.Authorizer' },
        ...(params ? [{ name: 'params', schema: paramsFound?.schema }] : []),
      ];
      const key = `vap ${kindKey} params=${params ? (paramsFound?.key ?? gvkString(params)) : '-'}`;
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
