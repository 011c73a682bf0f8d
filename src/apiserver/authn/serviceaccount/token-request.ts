import { invalid, invalidStatus, path } from '../../../api/field-errors.js';
import { StatusError, statusErrors } from '../../../api/status-error.js';
import { goQuote } from '../../../api/validation/go-format.js';
import { logRequestObject } from '../../audit/request-audit.js';
import type { RequestContext } from '../../context.js';
import { contentTypeOf, decodeBody, readBody } from '../../handlers/body.js';
import type { CreateAdmission } from '../../handlers/rest.js';
import { addWarnings } from '../../registry/field-validation.js';
import { isObject, type KubeObject, nowTimestamp } from '../../registry/object.js';
import { writeJson } from '../../respond.js';
import type { ObjectGetter } from './authenticator.js';
import { type BoundObjects, serviceAccountClaims } from './claims.js';
import type { ServiceAccountTokenIssuer } from './issuer.js';

/** TokenRequest's defaults and limits (upstream's defaulting and ValidateTokenRequest). */
export const DEFAULT_TOKEN_EXPIRATION_SECONDS = 3600;
/**
 * The lifetime the ServiceAccount admission plugin asks for in projected volumes, and what such a pod-bound token
 * gets instead while --service-account-extend-token-expiration is on (upstream's WarnOnlyBoundTokenExpirationSeconds
 * and ExpirationExtensionSeconds): a year, with a warning after the hour asked for.
 */
export const WARN_ONLY_BOUND_TOKEN_EXPIRATION_SECONDS = 3607;
export const EXPIRATION_EXTENSION_SECONDS = 365 * 24 * 60 * 60;
const MIN_TOKEN_EXPIRATION_SECONDS = 600;
const MAX_TOKEN_EXPIRATION_SECONDS = 2 ** 32;

export interface TokenRequestOptions {
  issuer: ServiceAccountTokenIssuer;
  /** --api-audiences: the audiences of a request that names none. */
  audiences: string[];
  getObject: ObjectGetter;
  now?: () => number;
  /**
   * maxSeconds: --service-account-max-token-expiration (longer requests are shortened to it, with a warning);
   * extend: --service-account-extend-token-expiration (default true).
   */
  expiration?: { maxSeconds?: number; extend: boolean };
  /** The admission chain's phases for the TokenRequest (a CREATE of serviceaccounts/token). */
  admission?: CreateAdmission;
}

type Rec = Record<string, unknown>;

async function mustGet(
  getObject: ObjectGetter,
  resource: 'serviceaccounts' | 'pods' | 'secrets' | 'nodes',
  ns: string,
  name: string,
) {
  const obj = await getObject(resource, ns, name);
  if (!obj) throw statusErrors.notFound({ group: '', resource }, name);
  return obj;
}

/**
 * POST .../serviceaccounts/<name>/token (what `kubectl create token` sends): an authentication.k8s.io/v1
 * TokenRequest answered 201 with a signed token in status, as upstream's TokenREST does — audiences default to the
 * API audiences, expirationSeconds to 3600 (at least 600), and a boundObjectRef to a Pod, Secret or Node ties the
 * token's life to that object. As there, a body naming another namespace is refused before admission (400), and one
 * naming another service account, or a namespace admission changed, after it (422); the ServiceAccount is looked up
 * before the request is validated. Admission sees the TokenRequest as upstream's create handler and TokenREST show
 * it: the mutating phase first, the validating phase once it is valid and its audiences are filled in.
 */
export async function serveTokenRequest(ctx: RequestContext, opts: TokenRequestOptions): Promise<void> {
  const info = ctx.info;
  if (info.verb !== 'create') {
    throw statusErrors.methodNotSupported({ group: '', resource: 'serviceaccounts/token' }, info.verb);
  }
  const body = decodeBody(await readBody(ctx), contentTypeOf(ctx));
  if (!isObject(body)) throw statusErrors.badRequest('the body of the request must be a JSON or YAML object');
  const ns = info.namespace;
  const given: KubeObject = {
    apiVersion: 'authentication.k8s.io/v1',
    kind: 'TokenRequest',
    metadata: isObject(body.metadata) ? { ...body.metadata } : {},
    spec: isObject(body.spec) ? { ...body.spec } : {},
    status: {},
  };
  // As upstream's create handler, before admission: the object's namespace is the request's, or it is refused.
  const givenNamespace = given.metadata.namespace;
  if (typeof givenNamespace === 'string' && givenNamespace !== '' && givenNamespace !== ns) {
    throw statusErrors.badRequest(
      'the namespace of the provided object does not match the namespace sent on the request',
    );
  }
  given.metadata.namespace = ns;
  (given.spec as Rec).expirationSeconds ??= DEFAULT_TOKEN_EXPIRATION_SECONDS;
  logRequestObject(ctx, given, { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest' });
  const request = opts.admission ? await opts.admission.admit(given) : given;
  const metadata: Rec = isObject(request.metadata) ? request.metadata : {};
  const spec: Rec = isObject(request.spec) ? request.spec : {};
  const expirationSeconds = spec.expirationSeconds;
  if (typeof expirationSeconds !== 'number' || !Number.isInteger(expirationSeconds)) {
    throw statusErrors.badRequest('spec.expirationSeconds must be an integer');
  }
  // Upstream's TokenREST: a name or namespace the body gives must be the service account's.
  const gk = { group: 'authentication.k8s.io', kind: 'TokenRequest' };
  const mismatch = (field: 'name' | 'namespace', want: string) => {
    const value = metadata[field];
    if (typeof value !== 'string' || value === '' || value === want) return;
    const s = invalidStatus(gk, info.name, [
      invalid(path('metadata', field), value, `must match the service account ${field} if specified`),
    ]);
    throw new StatusError(422, 'Invalid', s.message, s.details);
  };
  mismatch('name', info.name);
  mismatch('namespace', ns);
  const sa = await mustGet(opts.getObject, 'serviceaccounts', ns, info.name);
  if (!Array.isArray(spec.audiences) || spec.audiences.length === 0) spec.audiences = opts.audiences;
  metadata.name ||= info.name;
  metadata.namespace ||= ns;
  const errors = [];
  if (expirationSeconds < MIN_TOKEN_EXPIRATION_SECONDS) {
    errors.push(
      invalid(path('spec', 'expirationSeconds'), expirationSeconds, 'may not specify a duration less than 10 minutes'),
    );
  }
  if (expirationSeconds > MAX_TOKEN_EXPIRATION_SECONDS) {
    errors.push(
      invalid(
        path('spec', 'expirationSeconds'),
        expirationSeconds,
        'may not specify a duration larger than 2^32 seconds',
      ),
    );
  }
  if (errors.length > 0) {
    // Upstream names no object in this Invalid (its message reads `TokenRequest.authentication.k8s.io "" is invalid`).
    const s = invalidStatus(gk, '', errors);
    throw new StatusError(422, 'Invalid', s.message, s.details);
  }
  await opts.admission?.validate(structuredClone(request));
  const bound: BoundObjects = {};
  const ref = isObject(spec.boundObjectRef) ? spec.boundObjectRef : undefined;
  if (ref) {
    const apiVersion = typeof ref.apiVersion === 'string' ? ref.apiVersion : '';
    const kind = typeof ref.kind === 'string' ? ref.kind : '';
    const name = typeof ref.name === 'string' ? ref.name : '';
    const slash = apiVersion.indexOf('/');
    const group = slash >= 0 ? apiVersion.slice(0, slash) : '';
    const version = slash >= 0 ? apiVersion.slice(slash + 1) : apiVersion;
    let target: KubeObject;
    if (group === '' && kind === 'Pod') {
      target = await mustGet(opts.getObject, 'pods', ns, name);
      const podSa = (isObject(target.spec) ? target.spec.serviceAccountName : undefined) ?? '';
      if (podSa !== info.name) {
        throw statusErrors.badRequest(
          `cannot bind token for serviceaccount ${goQuote(info.name)} to pod running with different serviceaccount name.`,
        );
      }
      bound.pod = target;
      const nodeName = isObject(target.spec) ? target.spec.nodeName : undefined;
      if (typeof nodeName === 'string' && nodeName) {
        const node = await opts.getObject('nodes', '', nodeName);
        if (node) bound.node = node;
      }
    } else if (group === '' && kind === 'Secret') {
      target = await mustGet(opts.getObject, 'secrets', ns, name);
      bound.secret = target;
    } else if (group === '' && kind === 'Node') {
      target = await mustGet(opts.getObject, 'nodes', '', name);
      bound.node = target;
    } else {
      throw statusErrors.badRequest(`cannot bind token to object of type ${group}/${version}, Kind=${kind}`);
    }
    if (typeof ref.uid === 'string' && ref.uid && ref.uid !== target.metadata.uid) {
      throw statusErrors.conflict(
        { group, resource: kind },
        name,
        `the UID in the bound object reference (${ref.uid}) does not match the UID in record. The object might have been deleted and then recreated`,
      );
    }
  }
  const audiences = spec.audiences as string[];
  let granted = expirationSeconds;
  const max = opts.expiration?.maxSeconds ?? 0;
  if (max > 0 && granted > max) {
    addWarnings(ctx.res, [`requested expiration of ${granted} seconds shortened to ${max} seconds`]);
    granted = max;
  }
  // A projected token of a pod for the API itself lives a year, warning after the hour it asked for, so that
  // clients that never re-read their token keep working (upstream's safe transition to bound tokens).
  let lifetime = granted;
  let warnAfter = 0;
  const forTheAPI = audiences.every((a) => opts.audiences.includes(a));
  if (
    (opts.expiration?.extend ?? true) &&
    bound.pod &&
    granted === WARN_ONLY_BOUND_TOKEN_EXPIRATION_SECONDS &&
    forTheAPI
  ) {
    warnAfter = granted;
    lifetime = EXPIRATION_EXTENSION_SECONDS;
  }
  const now = (opts.now ?? Date.now)();
  const claims = serviceAccountClaims(sa, bound, lifetime, audiences, now, warnAfter);
  const token = await opts.issuer.sign(claims);
  writeJson(ctx, 201, {
    kind: 'TokenRequest',
    apiVersion: 'authentication.k8s.io/v1',
    metadata: { name: info.name, namespace: ns, creationTimestamp: nowTimestamp(now) },
    spec: { audiences, expirationSeconds: granted, boundObjectRef: ref ?? null },
    status: { token, expirationTimestamp: nowTimestamp(now + granted * 1000) },
  });
}
