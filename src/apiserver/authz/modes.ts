/**
 * kube-apiserver's --authorization-mode: the authorizers a request goes through, in the order given, after the
 * system:masters group (always allowed, ahead of every mode, as upstream). The first allow or deny wins; when no
 * mode has an opinion the request is forbidden, with the reasons the modes gave.
 */
import type { UserInfo } from '../context.js';
import type { AuthorizationAttributes, AuthorizationResult, ModeAuthorizer, RulesForUser } from './attributes.js';
import { RBACAuthorizer } from './rbac-authorizer.js';
import type { RBACIndex } from './rbac-index.js';

/** Upstream's modes; wheelhouse has all but ABAC. */
export const AUTHORIZATION_MODES = ['AlwaysAllow', 'AlwaysDeny', 'ABAC', 'Webhook', 'RBAC', 'Node'] as const;
export const SUPPORTED_AUTHORIZATION_MODES = ['AlwaysAllow', 'AlwaysDeny', 'RBAC', 'Webhook', 'Node'];

/**
 * The modes when no --authorization-mode is given: Node,RBAC, as kubeadm configures kube-apiserver (upstream's flag
 * default is AlwaysAllow).
 */
export const DEFAULT_AUTHORIZATION_MODES: readonly string[] = ['Node', 'RBAC'];

export const MASTERS_GROUP = 'system:masters';

const ALL_RULES: Pick<RulesForUser, 'resourceRules' | 'nonResourceRules'> = {
  resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }],
  nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
};

function everything(): RulesForUser {
  return { ...structuredClone(ALL_RULES), incomplete: false, errors: [] };
}

function nothing(): RulesForUser {
  return { resourceRules: [], nonResourceRules: [], incomplete: false, errors: [] };
}

export const alwaysAllow: ModeAuthorizer = {
  authorize: () => ({ decision: 'allow', reason: '' }),
  rulesFor: everything,
};

export const alwaysDeny: ModeAuthorizer = {
  authorize: () => ({ decision: 'deny', reason: 'Everything is forbidden.' }),
  rulesFor: nothing,
};

/**
 * Upstream's privileged-group authorizer: members of system:masters may do anything. It lists no rules (upstream
 * adds it to the authorizers, not to the rule resolvers): `kubectl auth can-i --list` shows what RBAC's
 * cluster-admin binding of system:masters gives, once.
 */
export const privilegedGroups: ModeAuthorizer = {
  authorize: (attrs) =>
    attrs.user.groups.includes(MASTERS_GROUP)
      ? { decision: 'allow', reason: '' }
      : { decision: 'no-opinion', reason: '' },
  rulesFor: nothing,
};

/**
 * Reads a --authorization-mode value: a comma-separated list of upstream mode names, each once. Throws with
 * upstream's message for unknown or repeated names, and says plainly which upstream modes wheelhouse lacks yet.
 */
export function parseAuthorizationModes(value: string): string[] {
  const modes = value
    .split(',')
    .map((m) => m.trim())
    .filter((m) => m !== '');
  if (modes.length === 0) throw new Error('at least one authorization-mode must be passed');
  const seen = new Set<string>();
  for (const mode of modes) {
    if (!(AUTHORIZATION_MODES as readonly string[]).includes(mode)) {
      throw new Error(`authorization-mode ${JSON.stringify(mode)} is not a valid mode`);
    }
    if (seen.has(mode)) throw new Error(`authorization-mode ${JSON.stringify(mode)} has mode specified more than once`);
    seen.add(mode);
    if (!SUPPORTED_AUTHORIZATION_MODES.includes(mode)) {
      throw new Error(
        `authorization-mode ${JSON.stringify(mode)} is not implemented by wheelhouse yet (available: ${SUPPORTED_AUTHORIZATION_MODES.join(', ')})`,
      );
    }
  }
  return modes;
}

/** startControlPlane's `authorization` option, checked as the flag is. */
export function authorizationModesOf(option: { modes: string[] }): string[] {
  return parseAuthorizationModes(option.modes.join(','));
}

/** The authorizers of a request, in upstream's order: system:masters, then each mode. */
export class AuthorizerChain implements ModeAuthorizer {
  readonly authorizers: ModeAuthorizer[];

  /** webhook: the Webhook mode's authorizer, required when modes name Webhook; node: the Node mode's, likewise. */
  constructor(
    readonly modes: string[],
    rbac: RBACIndex,
    webhook?: ModeAuthorizer,
    node?: ModeAuthorizer,
  ) {
    this.authorizers = [
      privilegedGroups,
      ...modes.map((mode): ModeAuthorizer => {
        switch (mode) {
          case 'AlwaysAllow':
            return alwaysAllow;
          case 'AlwaysDeny':
            return alwaysDeny;
          case 'RBAC':
            return new RBACAuthorizer(rbac);
          case 'Webhook':
            if (!webhook) throw new Error("authorization-mode Webhook's authorization config file not passed");
            return webhook;
          case 'Node':
            if (!node) throw new Error('authorization-mode Node needs the node graph');
            return node;
          default:
            throw new Error(`authorization-mode ${JSON.stringify(mode)} is not implemented by wheelhouse yet`);
        }
      }),
    ];
  }

  /**
   * The first allow or deny wins; otherwise no opinion, with every reason and error the modes gave. Answers at once
   * while the modes do (RBAC, AlwaysAllow…), and with a promise from the first mode that answers with one on.
   */
  authorize(attrs: AuthorizationAttributes): AuthorizationResult | Promise<AuthorizationResult> {
    const seen: ChainState = { reasons: [], errors: [] };
    for (let i = 0; i < this.authorizers.length; i++) {
      const result = (this.authorizers[i] as ModeAuthorizer).authorize(attrs);
      if (result instanceof Promise) return this.authorizeFrom(attrs, i, result, seen);
      if (decided(result, seen)) return result;
    }
    return undecided(seen);
  }

  private async authorizeFrom(
    attrs: AuthorizationAttributes,
    index: number,
    pending: Promise<AuthorizationResult>,
    seen: ChainState,
  ): Promise<AuthorizationResult> {
    const first = await pending;
    if (decided(first, seen)) return first;
    for (let i = index + 1; i < this.authorizers.length; i++) {
      const result = await (this.authorizers[i] as ModeAuthorizer).authorize(attrs);
      if (decided(result, seen)) return result;
    }
    return undecided(seen);
  }

  rulesFor(user: UserInfo, namespace: string): RulesForUser {
    const out: RulesForUser = { resourceRules: [], nonResourceRules: [], incomplete: false, errors: [] };
    for (const authorizer of this.authorizers) {
      const rules = authorizer.rulesFor(user, namespace);
      out.resourceRules.push(...rules.resourceRules);
      out.nonResourceRules.push(...rules.nonResourceRules);
      out.incomplete ||= rules.incomplete;
      out.errors.push(...rules.errors);
    }
    return out;
  }
}

interface ChainState {
  reasons: string[];
  errors: string[];
}

/** Whether a mode's answer ends the chain; when it does not, its reason and error are kept. */
function decided(result: AuthorizationResult, seen: ChainState): boolean {
  if (result.decision !== 'no-opinion') return true;
  if (result.reason) seen.reasons.push(result.reason);
  if (result.error) seen.errors.push(result.error);
  return false;
}

/** No mode decided: upstream's union joins the reasons with newlines and aggregates the errors. */
function undecided(seen: ChainState): AuthorizationResult {
  const result: AuthorizationResult = { decision: 'no-opinion', reason: seen.reasons.join('\n') };
  if (seen.errors.length > 0) result.error = aggregateErrors(seen.errors);
  return result;
}

/** Go's utilerrors.NewAggregate text: one error as it is, several as "[a, b]". */
export function aggregateErrors(messages: string[]): string {
  return messages.length === 1 ? (messages[0] as string) : `[${messages.join(', ')}]`;
}
