/**
 * What a request's handler tells its audit event, as upstream's handlers tell the audit context: the object the
 * request carried, as decoded — defaults in, before admission — (audit.LogRequestObject), and the API object it
 * answered (audit.LogResponseObject, which upstream's WriteObjectNegotiated calls; what is written raw — /version,
 * OpenAPI documents, health checks, metrics, a proxied or streamed body — is no response object). The audit filter
 * puts a RequestAudit on the context of every request it audits; handlers call these functions whether or not
 * there is one.
 */
import { withSortedKeys } from '../../api/go-json.js';
import { goStructEncoder } from '../../api/protobuf/go-struct-json.js';
import type { RequestContext } from '../context.js';
import { deepClone, isObject, type KubeObject } from '../registry/object.js';
import { withoutManagedFields } from './event.js';
import { LEVEL_RANK, type Level } from './policy.js';

/** The decoded object's metadata, which completes the event's objectRef. */
export interface AuditedObjectMeta {
  namespace?: string;
  name?: string;
  uid?: string;
  resourceVersion?: string;
}

export class RequestAudit {
  /** The request's object as upstream logs it: set at level Request and above, once the body is decoded. */
  requestObject: unknown;
  objectMeta: AuditedObjectMeta | undefined;
  /** The API object answered (level RequestResponse). */
  responseObject: unknown;
  /** The answer is an API object written already encoded (stored JSON, a list in parts): the filter reads it back. */
  encodedResponse = false;
  /** The answer is a Status: its fields (upstream copies them into the event's responseStatus). */
  responseStatus: Record<string, unknown> | undefined;

  constructor(
    readonly level: Level,
    readonly omitManagedFields: boolean,
  ) {}
}

/** How a decoded object is written into the event. */
export interface RequestObjectForm {
  apiVersion: string;
  kind: string;
  /** A custom resource, which Go holds as a map: encoded with its keys sorted. */
  unstructured?: boolean;
  /** The Go type when it is not apiVersion's kind (the DeleteOptions of any resource). */
  typeName?: string;
  /** Decoding's defaulting, applied to a copy (the handler's object is left as it is). */
  defaults?: (obj: KubeObject) => void;
}

const META_FIELDS = ['namespace', 'name', 'uid', 'resourceVersion'] as const;

/**
 * Records the object a create, update or delete carried, as decoded from its body (upstream's LogRequestObject): at
 * every level its metadata completes objectRef; at level Request and above the event carries the object, encoded as
 * Go encodes the kind's struct, its defaults applied.
 */
export function logRequestObject(ctx: RequestContext, obj: Record<string, unknown>, form: RequestObjectForm): void {
  const audit = ctx.audit;
  if (!audit) return;
  const meta = isObject(obj.metadata) ? obj.metadata : undefined;
  if (meta) {
    const found: AuditedObjectMeta = {};
    for (const field of META_FIELDS) {
      const value = meta[field];
      if (typeof value === 'string' && value !== '') found[field] = value;
    }
    audit.objectMeta = found;
  }
  if (LEVEL_RANK[audit.level] < LEVEL_RANK.Request) return;
  let copy = deepClone(obj) as KubeObject;
  if (form.defaults) {
    if (!isObject(copy.metadata)) copy.metadata = {};
    form.defaults(copy);
  }
  if (audit.omitManagedFields) copy = withoutManagedFields(copy) as KubeObject;
  audit.requestObject = form.unstructured
    ? withSortedKeys({ ...copy, apiVersion: form.apiVersion, kind: form.kind })
    : goStructEncoder().encodeObject(copy as Record<string, unknown>, form.apiVersion, form.kind, form.typeName);
}

/** The Status fields upstream's LogResponseObject copies into responseStatus, in metav1.Status's order. */
function statusFields(obj: Record<string, unknown>): Record<string, unknown> {
  return {
    metadata: {},
    ...(obj.status ? { status: obj.status } : {}),
    ...(obj.message ? { message: obj.message } : {}),
    ...(obj.reason ? { reason: obj.reason } : {}),
    ...(obj.details ? { details: obj.details } : {}),
    ...(obj.code ? { code: obj.code } : {}),
  };
}

const isStatus = (obj: unknown): obj is Record<string, unknown> =>
  isObject(obj) && obj.kind === 'Status' && (obj.apiVersion === 'v1' || obj.apiVersion === undefined);

/** The API object a request answers, before it is written (upstream's LogResponseObject). */
export function logResponseObject(ctx: RequestContext, obj: unknown): void {
  const audit = ctx.audit;
  if (!audit) return;
  if (isStatus(obj)) audit.responseStatus = statusFields(obj);
  if (LEVEL_RANK[audit.level] >= LEVEL_RANK.RequestResponse) audit.responseObject = obj;
}

/** The request answers an API object whose bytes are written as they are: the audit filter reads them back. */
export function logEncodedResponseObject(ctx: RequestContext): void {
  if (ctx.audit && LEVEL_RANK[ctx.audit.level] >= LEVEL_RANK.RequestResponse) ctx.audit.encodedResponse = true;
}
