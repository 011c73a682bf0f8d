/**
 * Escalation prevention (upstream's rbac registry policy): a user may create or update a Role or ClusterRole only
 * with permissions it already holds (or the `escalate` verb on it), and bind a role only when it holds the role's
 * permissions (or the `bind` verb on it). system:masters is never refused. The refusal names the permissions the
 * user lacks, as upstream words it.
 */
import { statusErrors } from '../../api/status-error.js';
import type { UserInfo } from '../context.js';
import type { KubeObject } from '../registry/object.js';
import type { WritePolicy } from '../registry/store.js';
import type { AuthorizationAttributes, ModeAuthorizer } from './attributes.js';
import { MASTERS_GROUP } from './modes.js';
import { compactString, type PolicyRule, rulesOf } from './policy-rule.js';
import { policyRulesFor } from './rbac-authorizer.js';
import type { RBACIndex } from './rbac-index.js';

const RBAC_GROUP = 'rbac.authorization.k8s.io';
const ALL = '*';

/** Splits a rule into rules of one group, resource, verb and name (or one URL and verb). */
export function breakdownRule(rule: PolicyRule): PolicyRule[] {
  const out: PolicyRule[] = [];
  for (const group of rule.apiGroups ?? []) {
    for (const resource of rule.resources ?? []) {
      for (const verb of rule.verbs) {
        if (rule.resourceNames?.length) {
          for (const name of rule.resourceNames) {
            out.push({ apiGroups: [group], resources: [resource], verbs: [verb], resourceNames: [name] });
          }
        } else out.push({ apiGroups: [group], resources: [resource], verbs: [verb] });
      }
    }
  }
  for (const url of rule.nonResourceURLs ?? []) {
    for (const verb of rule.verbs) out.push({ nonResourceURLs: [url], verbs: [verb] });
  }
  return out;
}

const hasAll = (set: string[] | undefined, wanted: string[] | undefined) =>
  (wanted ?? []).every((w) => (set ?? []).includes(w));

function resourcesCovered(owner: string[] | undefined, wanted: string[] | undefined): boolean {
  const own = owner ?? [];
  return (wanted ?? []).every((r) => {
    if (own.includes(ALL) || own.includes(r)) return true;
    const slash = r.indexOf('/');
    return slash >= 0 && own.includes(`*/${r.slice(slash + 1)}`);
  });
}

function urlsCovered(owner: string[] | undefined, wanted: string[] | undefined): boolean {
  const own = owner ?? [];
  return (wanted ?? []).every((url) =>
    own.some((o) => o === ALL || o === url || (o.endsWith(ALL) && url.startsWith(o.slice(0, -1)))),
  );
}

function ruleCovers(owner: PolicyRule, sub: PolicyRule): boolean {
  const verbs = owner.verbs.includes(ALL) || hasAll(owner.verbs, sub.verbs);
  const groups = (owner.apiGroups ?? []).includes(ALL) || hasAll(owner.apiGroups, sub.apiGroups);
  const ownNames = owner.resourceNames ?? [];
  const names = sub.resourceNames?.length
    ? ownNames.length === 0 || hasAll(ownNames, sub.resourceNames)
    : ownNames.length === 0;
  return (
    verbs &&
    groups &&
    resourcesCovered(owner.resources, sub.resources) &&
    names &&
    urlsCovered(owner.nonResourceURLs, sub.nonResourceURLs)
  );
}

/** Whether the owner's rules cover every permission of the wanted rules, and the ones they miss. */
export function covers(owner: PolicyRule[], wanted: PolicyRule[]): { covered: boolean; missing: PolicyRule[] } {
  const missing: PolicyRule[] = [];
  for (const rule of wanted) {
    for (const sub of breakdownRule(rule)) if (!owner.some((o) => ruleCovers(o, sub))) missing.push(sub);
  }
  return { covered: missing.length === 0, missing };
}

/** Merges single-resource rules of the same group, resource and name into one rule with all their verbs. */
export function compactRules(rules: PolicyRule[]): PolicyRule[] {
  const out: PolicyRule[] = [];
  const simple = new Map<string, PolicyRule>();
  for (const rule of rules) {
    const isSimple =
      !rule.nonResourceURLs?.length &&
      rule.apiGroups?.length === 1 &&
      rule.resources?.length === 1 &&
      (rule.resourceNames?.length ?? 0) <= 1;
    if (!isSimple) {
      out.push(rule);
      continue;
    }
    const key = JSON.stringify([rule.apiGroups, rule.resources, rule.resourceNames ?? null]);
    const existing = simple.get(key);
    if (existing) existing.verbs.push(...rule.verbs);
    else simple.set(key, structuredClone(rule));
  }
  return [...out, ...simple.values()];
}

/** Go's %q of a []string: `["a" "b"]`. */
function goQuotedList(values: string[]): string {
  return `[${values.map((v) => JSON.stringify(v)).join(' ')}]`;
}

/** Throws upstream's "attempting to grant RBAC permissions not currently held" when the user lacks any of rules. */
export function confirmNoEscalation(
  index: RBACIndex,
  user: UserInfo,
  namespace: string,
  rules: PolicyRule[],
): string | undefined {
  const held = policyRulesFor(index, user, namespace);
  const { covered, missing } = covers(held.rules, rules);
  if (covered) return undefined;
  const descriptions = [...new Set(compactRules(missing).map(compactString))].sort();
  let msg = `user ${JSON.stringify(user.name)} (groups=${goQuotedList(user.groups)}) is attempting to grant RBAC permissions not currently held:\n${descriptions.join('\n')}`;
  if (held.errors.length > 0) msg += `; resolution errors: [${held.errors.join(' ')}]`;
  return msg;
}

function escalationAllowed(user: UserInfo): boolean {
  return user.groups.includes(MASTERS_GROUP);
}

async function allowedTo(
  authorizer: ModeAuthorizer,
  user: UserInfo,
  verb: string,
  resource: string,
  namespace: string,
  name: string,
): Promise<boolean> {
  const attrs: AuthorizationAttributes = {
    user,
    verb,
    isResourceRequest: true,
    path: '',
    apiGroup: RBAC_GROUP,
    apiVersion: '*',
    namespace,
    resource,
    subresource: '',
    name,
  };
  return (await authorizer.authorize(attrs)).decision === 'allow';
}

const FULL_AUTHORITY: PolicyRule[] = [
  { verbs: [ALL], apiGroups: [ALL], resources: [ALL] },
  { verbs: [ALL], nonResourceURLs: [ALL] },
];

/** Whether only what the garbage collector writes (owner references, finalizers) changed. */
function onlyGCFieldsChanged(next: KubeObject, old: KubeObject): boolean {
  const strip = (o: KubeObject) => {
    const { metadata, ...rest } = o;
    const {
      ownerReferences: _o,
      finalizers: _f,
      resourceVersion: _r,
      managedFields: _m,
      generation: _g,
      ...meta
    } = metadata;
    return JSON.stringify({ ...rest, metadata: meta, apiVersion: undefined, kind: undefined });
  };
  return strip(next) === strip(old);
}

/** Whether a ClusterRole has an aggregationRule with at least one selector (upstream's hasAggregationRule). */
function hasAggregationRule(obj: KubeObject | undefined): boolean {
  const rule = obj?.aggregationRule as { clusterRoleSelectors?: unknown } | undefined;
  return Array.isArray(rule?.clusterRoleSelectors) && rule.clusterRoleSelectors.length > 0;
}

/**
 * The write policy of Roles (resource "roles") or ClusterRoles ("clusterroles"). The `escalate` check asks about
 * the request's name, as upstream asks with its RequestInfo: empty on a create (a POST to the collection), so
 * `escalate` restricted by resourceNames lets a user update that role but not create it. An aggregationRule with
 * selectors, on the new object or (on update) the old one, needs full authority (`*` on `*.*` and on every URL).
 */
export function roleWritePolicy(
  resource: 'roles' | 'clusterroles',
  index: RBACIndex,
  authorizer: () => ModeAuthorizer,
): WritePolicy {
  const gr = { group: RBAC_GROUP, resource };
  const check = async (obj: KubeObject, old: KubeObject | undefined, namespace: string, user: UserInfo) => {
    const name = obj.metadata.name ?? '';
    const requestName = old ? name : '';
    if (escalationAllowed(user)) return;
    if (await allowedTo(authorizer(), user, 'escalate', resource, namespace, requestName)) return;
    const why = confirmNoEscalation(index, user, namespace, rulesOf(obj));
    if (why) throw statusErrors.forbidden(gr, name, why);
    if (resource === 'clusterroles' && (hasAggregationRule(obj) || hasAggregationRule(old))) {
      if (confirmNoEscalation(index, user, namespace, FULL_AUTHORITY)) {
        throw statusErrors.forbidden(gr, name, 'must have cluster-admin privileges to use the aggregationRule');
      }
    }
  };
  return {
    create: (obj, namespace, user) => check(obj, undefined, namespace, user),
    update: (next, old, namespace, user) => {
      if (onlyGCFieldsChanged(next, old)) return;
      return check(next, old, namespace, user);
    },
  };
}

/** The write policy of RoleBindings ("rolebindings") or ClusterRoleBindings ("clusterrolebindings"). */
export function bindingWritePolicy(
  resource: 'rolebindings' | 'clusterrolebindings',
  index: RBACIndex,
  authorizer: () => ModeAuthorizer,
): WritePolicy {
  const gr = { group: RBAC_GROUP, resource };
  const check = async (obj: KubeObject, namespace: string, user: UserInfo) => {
    const name = obj.metadata.name ?? '';
    if (escalationAllowed(user)) return;
    const ref = (obj.roleRef ?? {}) as Record<string, unknown>;
    const kind = String(ref.kind ?? '');
    const roleName = String(ref.name ?? '');
    const roleResource = kind === 'Role' ? 'roles' : 'clusterroles';
    if (await allowedTo(authorizer(), user, 'bind', roleResource, namespace, roleName)) return;
    const rules = index.rulesOf({ kind, name: roleName }, namespace);
    // Upstream reads the role through the roles' (or clusterroles') storage: its NotFound names the resource.
    if (!rules) throw statusErrors.notFound({ group: RBAC_GROUP, resource: roleResource }, roleName);
    const why = confirmNoEscalation(index, user, namespace, rules);
    if (why) throw statusErrors.forbidden(gr, name, why);
  };
  return {
    create: (obj, namespace, user) => check(obj, namespace, user),
    update: (next, old, namespace, user) => {
      if (onlyGCFieldsChanged(next, old)) return;
      return check(next, namespace, user);
    },
  };
}
