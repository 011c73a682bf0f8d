import { plainInternalError, StatusError } from '../../api/status-error.js';
import type { Filter, RequestContext, UserInfo } from '../context.js';
import { headerLines } from '../header-lines.js';
import type { RequestInfo } from '../request-info.js';
import { type Authorizer, forbiddenMessage } from './authorization.js';

const USER_HEADER = 'impersonate-user';
const UID_HEADER = 'impersonate-uid';
const GROUP_HEADER = 'impersonate-group';
const EXTRA_PREFIX = 'impersonate-extra-';
const SERVICE_ACCOUNT_PREFIX = 'system:serviceaccount:';

/** One thing a request asks to act as, with what the authorizer is asked about it. */
interface ImpersonationRequest {
  kind: 'User' | 'ServiceAccount' | 'Group' | 'UserExtra' | 'UID';
  apiVersion: string;
  namespace: string;
  name: string;
  /** The extra key, for UserExtra. */
  fieldPath: string;
}

/** The Impersonate-Extra-* headers: each header name (lower-cased, in the order first seen) with its lines. */
function extraHeaderLines(ctx: RequestContext): Map<string, string[]> {
  const raw = ctx.req.rawHeaders ?? [];
  const byName = new Map<string, string[]>();
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = (raw[i] as string).toLowerCase();
    if (!name.startsWith(EXTRA_PREFIX)) continue;
    const lines = byName.get(name);
    if (lines) lines.push(raw[i + 1] as string);
    else byName.set(name, [raw[i + 1] as string]);
  }
  return byName;
}

/** Go's %v of the requests, as upstream prints them in its error. */
function describe(requests: ImpersonationRequest[]): string {
  const one = (r: ImpersonationRequest) => `{${r.kind} ${r.namespace} ${r.name}  ${r.apiVersion} ${''} ${r.fieldPath}}`;
  return `[${requests.map(one).join(' ')}]`;
}

/** Whether the request has any Impersonate-* header (most have none: they go on without the rest of the filter). */
function asksToImpersonate(ctx: RequestContext): boolean {
  for (const header in ctx.req.headers) if (header.startsWith('impersonate-')) return true;
  return false;
}

/** What the request's Impersonate-* headers ask for, in upstream's order: user, groups, extras, uid. */
function impersonationRequests(ctx: RequestContext): ImpersonationRequest[] {
  const requests: ImpersonationRequest[] = [];
  const user = headerLines(ctx.req, USER_HEADER)[0] ?? '';
  const blank = { apiVersion: '', namespace: '', fieldPath: '' };
  if (user) {
    const sa = user.startsWith(SERVICE_ACCOUNT_PREFIX) ? user.slice(SERVICE_ACCOUNT_PREFIX.length).split(':') : [];
    if (sa.length === 2 && sa[0] && sa[1]) {
      requests.push({ ...blank, kind: 'ServiceAccount', namespace: sa[0], name: sa[1] });
    } else requests.push({ ...blank, kind: 'User', name: user });
  }
  let others = false;
  for (const group of headerLines(ctx.req, GROUP_HEADER)) {
    others = true;
    requests.push({ ...blank, kind: 'Group', name: group });
  }
  for (const [header, values] of extraHeaderLines(ctx)) {
    others = true;
    // Upstream lower-cases the header's key, then unescapes it: an escaped upper-case letter (%41) stays upper-case.
    let key = header.slice(EXTRA_PREFIX.length);
    try {
      key = decodeURIComponent(key);
    } catch {}
    // One request, and one authorization check, per value.
    for (const v of values) {
      requests.push({ ...blank, kind: 'UserExtra', apiVersion: 'authentication.k8s.io/v1', name: v, fieldPath: key });
    }
  }
  const uid = headerLines(ctx.req, UID_HEADER)[0] ?? '';
  if (uid) {
    others = true;
    requests.push({ ...blank, kind: 'UID', apiVersion: 'authentication.k8s.io/v1', name: uid });
  }
  if (others && !user) {
    // Upstream answers this with responsewriters.InternalError: plain text, not a Status.
    throw plainInternalError(ctx.req.url ?? '', `requested ${describe(requests)} without impersonating a user`);
  }
  return requests;
}

/** The authorization question for one impersonation request: may the requester impersonate this? */
function attributesOf(
  r: ImpersonationRequest,
): Pick<RequestInfo, 'apiGroup' | 'resource' | 'subresource' | 'namespace' | 'name'> {
  switch (r.kind) {
    case 'ServiceAccount':
      return { apiGroup: '', resource: 'serviceaccounts', subresource: '', namespace: r.namespace, name: r.name };
    case 'User':
      return { apiGroup: '', resource: 'users', subresource: '', namespace: '', name: r.name };
    case 'Group':
      return { apiGroup: '', resource: 'groups', subresource: '', namespace: '', name: r.name };
    case 'UserExtra':
      return {
        apiGroup: 'authentication.k8s.io',
        resource: 'userextras',
        subresource: r.fieldPath,
        namespace: '',
        name: r.name,
      };
    case 'UID':
      return { apiGroup: 'authentication.k8s.io', resource: 'uids', subresource: '', namespace: '', name: r.name };
  }
}

/**
 * Impersonation (`kubectl --as`, `--as-group`, `--as-uid`): each Impersonate-User, -Group, -Uid and -Extra-*
 * header is authorized as the `impersonate` verb on users, groups, serviceaccounts, uids or userextras; any refusal
 * answers 403 with upstream's message. Allowed, the request goes on as the impersonated user (a ServiceAccount gets
 * its groups when none are given; system:authenticated is added unless system:unauthenticated was asked for).
 */
export function withImpersonation(authorizers: Authorizer[]): Filter {
  return (next) => async (ctx) => {
    if (!asksToImpersonate(ctx)) return next(ctx);
    const requests = impersonationRequests(ctx);
    if (requests.length === 0) return next(ctx);
    const groupsSpecified = requests.some((r) => r.kind === 'Group');
    let name = '';
    let uid = '';
    let groups: string[] = [];
    const extra: Record<string, string[]> = {};
    for (const r of requests) {
      const attrs = attributesOf(r);
      const asked: RequestContext = {
        ...ctx,
        info: { ...ctx.info, ...attrs, isResourceRequest: true, verb: 'impersonate', apiVersion: '' },
      };
      let allowed = false;
      const reasons: string[] = [];
      for (const authz of authorizers) {
        // An authorizer answers a decision, or a decision with upstream's reason text.
        const answer: unknown = await authz(asked);
        const { decision, reason } =
          typeof answer === 'string'
            ? { decision: answer, reason: '' }
            : (answer as { decision: string; reason?: string });
        if (reason) reasons.push(reason);
        if (decision === 'allow') allowed = true;
        if (decision !== 'no-opinion') break;
      }
      if (!allowed) {
        const reason = reasons.join('\n');
        throw new StatusError(
          403,
          'Forbidden',
          reason ? `${forbiddenMessage(asked)}: ${reason}` : forbiddenMessage(asked),
          {
            ...(attrs.name ? { name: attrs.name } : {}),
            ...(attrs.apiGroup ? { group: attrs.apiGroup } : {}),
            kind: attrs.resource,
          },
        );
      }
      switch (r.kind) {
        case 'ServiceAccount':
          name = `${SERVICE_ACCOUNT_PREFIX}${r.namespace}:${r.name}`;
          if (!groupsSpecified) groups = ['system:serviceaccounts', `system:serviceaccounts:${r.namespace}`];
          break;
        case 'User':
          name = r.name;
          break;
        case 'Group':
          groups.push(r.name);
          break;
        case 'UserExtra':
          extra[r.fieldPath] = [...(extra[r.fieldPath] ?? []), r.name];
          break;
        case 'UID':
          uid = r.name;
          break;
      }
    }
    if (name !== 'system:anonymous') {
      if (!groups.includes('system:authenticated') && !groups.includes('system:unauthenticated'))
        groups.push('system:authenticated');
    } else if (!groups.includes('system:unauthenticated')) groups.push('system:unauthenticated');
    const user: UserInfo = {
      name,
      ...(uid ? { uid } : {}),
      groups,
      ...(Object.keys(extra).length > 0 ? { extra } : {}),
    };
    ctx.user = user;
    return next(ctx);
  };
}
