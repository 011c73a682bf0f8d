import type { RequestContext, UserInfo } from '../context.js';

/** What an authorizer decides about: who asks to do what, as upstream's authorizer.Attributes. */
export interface AuthorizationAttributes {
  user: UserInfo;
  /** A Kubernetes verb for resource requests (get, list, create, …); the lower-case HTTP method otherwise. */
  verb: string;
  isResourceRequest: boolean;
  /** The request path, for non-resource requests. */
  path: string;
  apiGroup: string;
  apiVersion: string;
  namespace: string;
  resource: string;
  subresource: string;
  name: string;
  /** The request's fieldSelector, for list and watch (the Node authorizer reads spec.nodeName and metadata.name). */
  fieldSelector?: string;
}

export type Decision = 'allow' | 'deny' | 'no-opinion';

/** A decision and why it was made (upstream's reason text: empty when there is nothing to say). */
export interface AuthorizationResult {
  decision: Decision;
  reason: string;
  /**
   * An evaluation failure (e.g. a webhook that could not be reached), as upstream's authorizers return an error
   * beside their decision: a request that no mode allows is then answered 500 rather than 403.
   */
  error?: string;
}

/** One rule of what a user may do, as a SelfSubjectRulesReview lists it. */
export interface ResourceRule {
  verbs: string[];
  apiGroups: string[];
  resources: string[];
  resourceNames?: string[];
}

export interface NonResourceRule {
  verbs: string[];
  nonResourceURLs: string[];
}

/** Every rule a user has in a namespace; incomplete when some could not be worked out (e.g. a missing role). */
export interface RulesForUser {
  resourceRules: ResourceRule[];
  nonResourceRules: NonResourceRule[];
  incomplete: boolean;
  errors: string[];
}

/**
 * One authorization mode (AlwaysAllow, AlwaysDeny, RBAC, Webhook, …): decides a request, and lists what a user may
 * do for SelfSubjectRulesReview. Modes that decide in memory answer at once; a mode that must ask elsewhere (the
 * Webhook) answers with a promise, so callers await only when they are given one.
 */
export interface ModeAuthorizer {
  authorize(attrs: AuthorizationAttributes): AuthorizationResult | Promise<AuthorizationResult>;
  rulesFor(user: UserInfo, namespace: string): RulesForUser;
}

/** The attributes of an HTTP request that authentication has passed. */
export function attributesOf(ctx: RequestContext): AuthorizationAttributes {
  const info = ctx.info;
  return {
    user: ctx.user ?? { name: 'system:anonymous', groups: ['system:unauthenticated'] },
    verb: info.verb,
    isResourceRequest: info.isResourceRequest,
    path: ctx.url.pathname,
    apiGroup: info.apiGroup,
    apiVersion: info.apiVersion,
    namespace: info.namespace,
    resource: info.resource,
    subresource: info.subresource,
    name: info.name,
    ...fieldSelectorOf(ctx),
  };
}

function fieldSelectorOf(ctx: RequestContext): { fieldSelector?: string } {
  const selector = ctx.url.searchParams.get('fieldSelector');
  return selector ? { fieldSelector: selector } : {};
}
