/**
 * The RBAC authorizer (upstream's plugin/pkg/auth/authorizer/rbac): a request is allowed when a rule of a role
 * bound to the user — by a ClusterRoleBinding, or by a RoleBinding in the request's namespace — matches it.
 * RBAC never denies: without a matching rule it has no opinion, and the next authorizer decides.
 */
import type { UserInfo } from '../context.js';
import type { AuthorizationAttributes, AuthorizationResult, ModeAuthorizer, RulesForUser } from './attributes.js';
import { type PolicyRule, ruleAllows } from './policy-rule.js';
import type { BindingMatch, RBACIndex, Subject } from './rbac-index.js';

/** How upstream names a subject in its reasons: ServiceAccounts as "name/namespace". */
function describeSubject(subject: Subject, bindingNamespace: string): string {
  if (subject.kind === 'ServiceAccount') {
    return `${subject.kind} ${JSON.stringify(`${subject.name}/${subject.namespace || bindingNamespace}`)}`;
  }
  return `${subject.kind} ${JSON.stringify(subject.name)}`;
}

function describeBinding({ binding, subject }: BindingMatch): string {
  const name = binding.kind === 'RoleBinding' ? `${binding.name}/${binding.namespace}` : binding.name;
  return `${binding.kind} ${JSON.stringify(name)} of ${binding.roleRef.kind} ${JSON.stringify(binding.roleRef.name)} to ${describeSubject(subject, binding.namespace)}`;
}

function notFound(kind: string, name: string): string {
  return `${kind.toLowerCase()}.rbac.authorization.k8s.io ${JSON.stringify(name)} not found`;
}

/**
 * Visits every rule the user has in the namespace (cluster-wide ones first); visit returns false to stop. Roles
 * that do not exist are reported to onError.
 */
export function visitRulesFor(
  index: RBACIndex,
  user: Pick<UserInfo, 'name' | 'groups'>,
  namespace: string,
  visit: (source: BindingMatch, rule: PolicyRule) => boolean,
  onError: (message: string) => void,
): void {
  const visitBindings = (matches: readonly BindingMatch[]): boolean => {
    for (const match of matches) {
      const { roleRef, namespace: ns } = match.binding;
      const rules = index.rulesOf(roleRef, ns);
      if (!rules) {
        onError(notFound(roleRef.kind, roleRef.name));
        continue;
      }
      for (const rule of rules) if (!visit(match, rule)) return false;
    }
    return true;
  };
  if (!visitBindings(index.clusterBindingsFor(user))) return;
  if (namespace) visitBindings(index.roleBindingsFor(user, namespace));
}

/** How many answers an RBACAuthorizer keeps before it starts again. */
const ANSWERS_KEPT = 8192;

/**
 * One step of the answers kept: a tree of maps, one level per part of the question (the user's name, the number of
 * groups and each group, the verb, the group, resource, subresource and namespace or the path), so that finding an
 * answer builds no key and two different questions never meet. At the end, the answer, or the answers by name.
 */
interface AnswerNode {
  next?: Map<string, AnswerNode>;
  answer?: Readonly<AuthorizationResult>;
  byName?: Map<string, Readonly<AuthorizationResult>>;
}

function step(node: AnswerNode, part: string): AnswerNode {
  node.next ??= new Map();
  let child = node.next.get(part);
  if (!child) {
    child = {};
    node.next.set(part, child);
  }
  return child;
}

/** The node of the question (but the object's name), made on the way when missing. */
function questionNode(root: AnswerNode, attrs: AuthorizationAttributes): AnswerNode {
  const { user } = attrs;
  let node = step(step(root, user.name), String(user.groups.length));
  for (const group of user.groups) node = step(node, group);
  if (!attrs.isResourceRequest) return step(step(step(node, 'non-resource'), attrs.verb), attrs.path);
  node = step(step(step(node, 'resource'), attrs.verb), attrs.apiGroup);
  return step(step(step(node, attrs.resource), attrs.subresource), attrs.namespace);
}

export class RBACAuthorizer implements ModeAuthorizer {
  /**
   * Answers already worked out at the index's current version. The same few users ask the same questions on every
   * request, and an answer depends only on the user, the question and the roles and bindings indexed; an answer that
   * went through a rule naming resourceNames is kept per name.
   */
  private answers: AnswerNode = {};
  private answersKept = 0;
  private answersVersion = -1;

  constructor(readonly index: RBACIndex) {}

  authorize(attrs: AuthorizationAttributes): AuthorizationResult {
    if (this.answersVersion !== this.index.version || this.answersKept >= ANSWERS_KEPT) {
      this.answers = {};
      this.answersKept = 0;
      this.answersVersion = this.index.version;
    }
    const node = questionNode(this.answers, attrs);
    const known = node.answer ?? node.byName?.get(attrs.name);
    if (known) return known;
    const { result, byName } = this.decide(attrs);
    this.answersKept++;
    if (byName && attrs.isResourceRequest) {
      node.byName ??= new Map();
      node.byName.set(attrs.name, result);
    } else node.answer = result;
    return result;
  }

  /** The answer, and whether a rule consulted on the way names resourceNames (the name then matters). */
  private decide(attrs: AuthorizationAttributes): { result: Readonly<AuthorizationResult>; byName: boolean } {
    let allowedBy: BindingMatch | undefined;
    let byName = false;
    const errors: string[] = [];
    visitRulesFor(
      this.index,
      attrs.user,
      attrs.namespace,
      (source, rule) => {
        if (rule.resourceNames?.length) byName = true;
        if (!ruleAllows(attrs, rule)) return true;
        allowedBy = source;
        return false;
      },
      (message) => errors.push(message),
    );
    const result: AuthorizationResult = allowedBy
      ? { decision: 'allow', reason: `RBAC: allowed by ${describeBinding(allowedBy)}` }
      : { decision: 'no-opinion', reason: errors.length > 0 ? `RBAC: ${aggregate(errors)}` : '' };
    return { result: Object.freeze(result), byName };
  }

  rulesFor(user: UserInfo, namespace: string): RulesForUser {
    return rulesForUser(this.index, user, namespace);
  }
}

/** Every rule the user has in the namespace, split into resource and non-resource rules. */
export function rulesForUser(
  index: RBACIndex,
  user: Pick<UserInfo, 'name' | 'groups'>,
  namespace: string,
): RulesForUser {
  const out: RulesForUser = { resourceRules: [], nonResourceRules: [], incomplete: false, errors: [] };
  visitRulesFor(
    index,
    user,
    namespace,
    (_source, rule) => {
      if (rule.nonResourceURLs?.length) {
        out.nonResourceRules.push({ verbs: [...rule.verbs], nonResourceURLs: [...rule.nonResourceURLs] });
      } else {
        out.resourceRules.push({
          verbs: [...rule.verbs],
          apiGroups: [...(rule.apiGroups ?? [])],
          resources: [...(rule.resources ?? [])],
          ...(rule.resourceNames?.length ? { resourceNames: [...rule.resourceNames] } : {}),
        });
      }
      return true;
    },
    (message) => out.errors.push(message),
  );
  out.incomplete = out.errors.length > 0;
  return out;
}

/** Upstream's aggregate error text: one error as it is, several as a bracketed list. */
export function aggregate(errors: string[]): string {
  return errors.length === 1 ? (errors[0] as string) : `[${errors.join(', ')}]`;
}

/** Every rule the user holds in the namespace, for escalation checks. */
export function policyRulesFor(
  index: RBACIndex,
  user: Pick<UserInfo, 'name' | 'groups'>,
  namespace: string,
): { rules: PolicyRule[]; errors: string[] } {
  const rules: PolicyRule[] = [];
  const errors: string[] = [];
  visitRulesFor(
    index,
    user,
    namespace,
    (_s, rule) => {
      rules.push(rule);
      return true;
    },
    (m) => errors.push(m),
  );
  return { rules, errors };
}
