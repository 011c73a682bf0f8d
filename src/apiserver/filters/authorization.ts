import { qualifiedResource, StatusError } from '../../api/status-error.js';
import type { Filter, RequestContext } from '../context.js';

/**
 * The audit annotations upstream's authorization filter adds to each request's event: the decision and the
 * authorizers' reason, empty when they gave none (system:masters, or no rule matched); a request that failed to be
 * authorized gets the reason "internal error" alone.
 */
const DECISION_ANNOTATION = 'authorization.k8s.io/decision';
const REASON_ANNOTATION = 'authorization.k8s.io/reason';
const REASON_ERROR = 'internal error';

export type Decision = 'allow' | 'deny' | 'no-opinion';

/** A decision with upstream's reason text (added to the Forbidden message when not empty). */
export interface DecisionWithReason {
  decision: Decision;
  reason: string;
}

/** Decides one request; the first authorizer with an opinion wins (ARCHITECTURE.md "Filters"). */
export type Authorizer = (
  ctx: RequestContext,
) => Decision | DecisionWithReason | Promise<Decision | DecisionWithReason>;

/** The message upstream gives when no authorizer allows a request. */
export function forbiddenMessage(ctx: RequestContext): string {
  const user = ctx.user?.name ?? 'system:anonymous';
  const info = ctx.info;
  if (!info.isResourceRequest) return `forbidden: User "${user}" cannot ${info.verb} path "${ctx.url.pathname}"`;
  const resource = info.subresource ? `${info.resource}/${info.subresource}` : info.resource;
  // The group-qualified resource (deployments.apps), as upstream's NewForbidden names it.
  const qualified = qualifiedResource({ group: info.apiGroup, resource: info.resource });
  const what = `${qualified}${info.name ? ` "${info.name}"` : ''} is forbidden`;
  // A named namespace is its own namespace (request-info.ts); listing or creating namespaces is at the cluster scope.
  const scope = info.namespace ? ` in the namespace "${info.namespace}"` : ' at the cluster scope';
  return `${what}: User "${user}" cannot ${info.verb} resource "${resource}" in API group "${info.apiGroup}"${scope}`;
}

export function withAuthorization(authorizers: Authorizer[]): Filter {
  return (next) => async (ctx) => {
    const reasons: string[] = [];
    for (const authz of authorizers) {
      let answer: Decision | DecisionWithReason;
      try {
        answer = await authz(ctx);
      } catch (err) {
        ctx.auditAnnotations[REASON_ANNOTATION] = REASON_ERROR;
        throw err;
      }
      const { decision, reason } = typeof answer === 'string' ? { decision: answer, reason: '' } : answer;
      if (decision === 'allow') {
        ctx.auditAnnotations[DECISION_ANNOTATION] = 'allow';
        ctx.auditAnnotations[REASON_ANNOTATION] = reason;
        return next(ctx);
      }
      if (reason) reasons.push(reason);
      if (decision === 'deny') break;
    }
    const info = ctx.info;
    const reason = reasons.join('\n');
    const message = reason ? `${forbiddenMessage(ctx)}: ${reason}` : forbiddenMessage(ctx);
    ctx.auditAnnotations[DECISION_ANNOTATION] = 'forbid';
    ctx.auditAnnotations[REASON_ANNOTATION] = reason;
    throw new StatusError(403, 'Forbidden', message, {
      ...(info.name ? { name: info.name } : {}),
      ...(info.apiGroup ? { group: info.apiGroup } : {}),
      ...(info.resource ? { kind: info.resource } : {}),
    });
  };
}
