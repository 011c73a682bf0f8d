/**
 * authorization.k8s.io/v1 reviews, answered from the apiserver's authorizer and stored nowhere (create only):
 * SubjectAccessReview (may a given user do this?), SelfSubjectAccessReview and LocalSubjectAccessReview (the same
 * for oneself, or within one namespace), and SelfSubjectRulesReview (everything one may do in a namespace). They are
 * what `kubectl auth can-i` (and `--list`) sends.
 */
import { type FieldError, invalid, invalidStatus, path, required } from '../../api/field-errors.js';
import { StatusError, statusErrors } from '../../api/status-error.js';
import { GoValue, goQuote } from '../../api/validation/go-format.js';
import type { APIRegistry } from '../api-registry.js';
import { logRequestObject } from '../audit/request-audit.js';
import type { RequestContext, UserInfo } from '../context.js';
import { contentTypeOf, decodeBody, readBody } from '../handlers/body.js';
import { writeJson } from '../respond.js';
import type { AuthorizationAttributes, ModeAuthorizer } from './attributes.js';

const GROUP = 'authorization.k8s.io';
const VERSION = 'v1';

type Rec = Record<string, unknown>;
const rec = (v: unknown): Rec => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Rec) : {});
const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string') : []);

interface Review {
  resource: string;
  kind: string;
  namespaced: boolean;
}

const REVIEWS: Review[] = [
  { resource: 'subjectaccessreviews', kind: 'SubjectAccessReview', namespaced: false },
  { resource: 'selfsubjectaccessreviews', kind: 'SelfSubjectAccessReview', namespaced: false },
  { resource: 'localsubjectaccessreviews', kind: 'LocalSubjectAccessReview', namespaced: true },
  { resource: 'selfsubjectrulesreviews', kind: 'SelfSubjectRulesReview', namespaced: false },
];

/** Serves the four reviews from this registry, asking authorizer. */
export function addAccessReviews(registry: APIRegistry, authorizer: () => ModeAuthorizer): void {
  for (const review of REVIEWS) {
    registry.addVirtual({
      group: GROUP,
      version: VERSION,
      resource: review.resource,
      serve: (ctx) => serveReview(ctx, review, authorizer()),
    });
  }
}

function invalidReview(kind: string, errors: FieldError[]): StatusError {
  const s = invalidStatus({ group: GROUP, kind }, '', errors);
  return new StatusError(422, 'Invalid', s.message, s.details);
}

async function serveReview(ctx: RequestContext, review: Review, authorizer: ModeAuthorizer): Promise<void> {
  const info = ctx.info;
  const gr = { group: GROUP, resource: review.resource };
  if (info.namespace && !review.namespaced) throw statusErrors.pathNotFound();
  if (info.verb !== 'create' || info.name || info.subresource) {
    throw statusErrors.methodNotSupported(gr, info.verb || ctx.method.toLowerCase());
  }
  const body = rec(decodeBody(await readBody(ctx), contentTypeOf(ctx)));
  logRequestObject(ctx, body, { apiVersion: `${GROUP}/${VERSION}`, kind: review.kind });
  const metadata: Rec = { creationTimestamp: null, ...rec(body.metadata) };
  const spec = rec(body.spec);
  const user = ctx.user ?? { name: 'system:anonymous', groups: ['system:unauthenticated'] };
  let status: Rec;
  if (review.kind === 'SelfSubjectRulesReview') {
    const namespace = str(spec.namespace);
    if (!namespace) throw statusErrors.badRequest('no namespace on request');
    const rules = authorizer.rulesFor(user, namespace);
    status = {
      resourceRules: rules.resourceRules,
      nonResourceRules: rules.nonResourceRules,
      incomplete: rules.incomplete,
      ...(rules.errors.length > 0 ? { evaluationError: rules.errors.join(', ') } : {}),
    };
  } else {
    const errors = validateSpec(spec, review.kind);
    if (errors.length > 0) throw invalidReview(review.kind, errors);
    if (review.kind === 'LocalSubjectAccessReview') {
      if (!info.namespace) throw statusErrors.badRequest(`namespace is required on this type: ${info.namespace}`);
      if (str(metadata.namespace) && str(metadata.namespace) !== info.namespace) {
        throw statusErrors.badRequest(
          'the namespace of the provided object does not match the namespace sent on the request',
        );
      }
      if (str(rec(spec.resourceAttributes).namespace) !== info.namespace) {
        throw statusErrors.badRequest(`spec.resourceAttributes.namespace must match namespace: ${info.namespace}`);
      }
      metadata.namespace = info.namespace;
    }
    const subject: UserInfo =
      review.kind === 'SelfSubjectAccessReview'
        ? user
        : {
            name: str(spec.user),
            groups: strings(spec.groups),
            ...(str(spec.uid) ? { uid: str(spec.uid) } : {}),
          };
    const result = await authorizer.authorize(attributesFromSpec(subject, spec));
    status = {
      allowed: result.decision === 'allow',
      ...(result.decision === 'deny' ? { denied: true } : {}),
      ...(result.reason ? { reason: result.reason } : {}),
      ...(result.error ? { evaluationError: result.error } : {}),
    };
  }
  writeJson(ctx, 201, { kind: review.kind, apiVersion: `${GROUP}/${VERSION}`, metadata, spec, status });
}

/** The attributes as upstream's error prints them: Go's %#v of the internal struct. */
function goNonResource(attrs: unknown): GoValue {
  const a = (attrs ?? {}) as Rec;
  const text = (v: unknown) => goQuote(typeof v === 'string' ? v : '');
  return new GoValue(`authorization.NonResourceAttributes{Path:${text(a.path)}, Verb:${text(a.verb)}}`);
}

function validateSpec(spec: Rec, kind: string): FieldError[] {
  const errs: FieldError[] = [];
  const at = path('spec');
  const hasResource = spec.resourceAttributes !== undefined && spec.resourceAttributes !== null;
  const hasNonResource = spec.nonResourceAttributes !== undefined && spec.nonResourceAttributes !== null;
  if (kind === 'LocalSubjectAccessReview') {
    if (!hasResource) errs.push(required(at.child('resourceAttributes'), 'disallowed on this kind of request'));
    if (hasNonResource) {
      errs.push(
        invalid(
          at.child('nonResourceAttributes'),
          goNonResource(spec.nonResourceAttributes),
          'disallowed on this kind of request',
        ),
      );
    }
  } else {
    if (hasResource && hasNonResource) {
      errs.push(
        invalid(
          at.child('nonResourceAttributes'),
          goNonResource(spec.nonResourceAttributes),
          'cannot be specified in combination with resourceAttributes',
        ),
      );
    }
    if (!hasResource && !hasNonResource) {
      errs.push(
        invalid(
          at.child('resourceAttributes'),
          null,
          'exactly one of nonResourceAttributes or resourceAttributes must be specified',
        ),
      );
    }
  }
  if (kind !== 'SelfSubjectAccessReview' && !str(spec.user) && strings(spec.groups).length === 0) {
    errs.push(invalid(at.child('user'), str(spec.user), 'at least one of user or group must be specified'));
  }
  return errs;
}

function attributesFromSpec(user: UserInfo, spec: Rec): AuthorizationAttributes {
  const ra = spec.resourceAttributes;
  if (ra && typeof ra === 'object') {
    const r = rec(ra);
    return {
      user,
      verb: str(r.verb),
      isResourceRequest: true,
      path: '',
      apiGroup: str(r.group),
      apiVersion: str(r.version),
      namespace: str(r.namespace),
      resource: str(r.resource),
      subresource: str(r.subresource),
      name: str(r.name),
    };
  }
  const n = rec(spec.nonResourceAttributes);
  return {
    user,
    verb: str(n.verb),
    isResourceRequest: false,
    path: str(n.path),
    apiGroup: '',
    apiVersion: '',
    namespace: '',
    resource: '',
    subresource: '',
    name: '',
  };
}
