/**
 * Errors that reach a client: each one is a metav1 Status with upstream's code, reason and message text, since
 * kubectl prints them as "Error from server (<Reason>): <message>" and clients branch on the reason.
 */
import { goQuote } from './validation/go-format.js';

export interface StatusCause {
  reason?: string;
  message?: string;
  field?: string;
}

export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: StatusCause[];
  retryAfterSeconds?: number;
}

export interface Status {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: Record<string, never>;
  status: 'Success' | 'Failure';
  message?: string;
  reason?: string;
  details?: StatusDetails;
  code: number;
}

/** A group and resource, printed as upstream prints qualified resources: `pods`, `deployments.apps`. */
export interface GroupResource {
  group: string;
  resource: string;
}

/** A group (empty for the core group) and kind, printed as schema.GroupKind prints: `Pod`, `Deployment.apps`. */
export interface GroupKind {
  group: string;
  kind: string;
}

export function qualifiedResource(gr: GroupResource): string {
  return gr.group ? `${gr.resource}.${gr.group}` : gr.resource;
}

export function qualifiedKind(gk: GroupKind): string {
  return gk.group ? `${gk.kind}.${gk.group}` : gk.kind;
}

/** Go's %q for the strings we print: a double-quoted string with JSON-style escapes. */
export function quote(s: string): string {
  return JSON.stringify(s);
}

export class StatusError extends Error {
  readonly status: Status;

  constructor(code: number, reason: string, message: string, details?: StatusDetails) {
    super(message);
    this.name = 'StatusError';
    this.status = {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message,
      // StatusReasonUnknown is the empty reason, which upstream's Status leaves out.
      ...(reason ? { reason } : {}),
      ...(details ? { details } : {}),
      code,
    };
  }

  get code(): number {
    return this.status.code;
  }

  get reason(): string {
    return this.status.reason ?? '';
  }
}

/**
 * A failure the apiserver answers as plain text, not as a Status: upstream's responsewriters.InternalError (Go's
 * http.Error). Its status is what the audit log and the metrics see.
 */
export class PlainTextStatusError extends StatusError {
  constructor(code: number, reason: string, message: string) {
    super(code, reason, message);
    this.name = 'PlainTextStatusError';
  }
}

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;' };

/**
 * Upstream's responsewriters.InternalError: a plain-text 500 reading `Internal Server Error: "<request URI>": <err>`
 * (the URI as Go's %q prints it), with `&`, `<` and `>` escaped.
 */
export function plainInternalError(requestURI: string, message: string): PlainTextStatusError {
  const text = `Internal Server Error: ${goQuote(requestURI)}: ${message}`;
  return new PlainTextStatusError(
    500,
    'InternalError',
    text.replace(/[&<>]/g, (c) => HTML_ESCAPES[c] ?? c),
  );
}

function resourceDetails(gr: GroupResource, name?: string): StatusDetails {
  return { ...(name ? { name } : {}), ...(gr.group ? { group: gr.group } : {}), kind: gr.resource };
}

export const statusErrors = {
  notFound: (gr: GroupResource, name: string) =>
    new StatusError(404, 'NotFound', `${qualifiedResource(gr)} ${quote(name)} not found`, resourceDetails(gr, name)),
  alreadyExists: (gr: GroupResource, name: string) =>
    new StatusError(
      409,
      'AlreadyExists',
      `${qualifiedResource(gr)} ${quote(name)} already exists`,
      resourceDetails(gr, name),
    ),
  conflict: (gr: GroupResource, name: string, why: string) =>
    new StatusError(
      409,
      'Conflict',
      `Operation cannot be fulfilled on ${qualifiedResource(gr)} ${quote(name)}: ${why}`,
      resourceDetails(gr, name),
    ),
  /** The optimistic-concurrency failure of an update with a stale resourceVersion. */
  modified: (gr: GroupResource, name: string) =>
    statusErrors.conflict(
      gr,
      name,
      'the object has been modified; please apply your changes to the latest version and try again',
    ),
  /** A uid precondition (a DeleteOptions', or the uid a write names) that the stored object does not meet. */
  uidPreconditionFailed: (gr: GroupResource, name: string, wanted: string, actual: string | undefined) =>
    statusErrors.conflict(
      gr,
      name,
      `Precondition failed: UID in precondition: ${wanted}, UID in object meta: ${actual ?? ''}`,
    ),
  forbidden: (gr: GroupResource, name: string, why: string, causes?: StatusCause[]) =>
    new StatusError(403, 'Forbidden', `${qualifiedResource(gr)}${name ? ` ${quote(name)}` : ''} is forbidden: ${why}`, {
      ...resourceDetails(gr, name),
      ...(causes ? { causes } : {}),
    }),
  /** `message` is the aggregate of the field errors, as upstream formats it. */
  invalid: (gk: GroupKind, name: string, causes: StatusCause[], message: string) =>
    new StatusError(422, 'Invalid', `${qualifiedKind(gk)} ${quote(name)} is invalid: ${message}`, {
      ...(name ? { name } : {}),
      ...(gk.group ? { group: gk.group } : {}),
      kind: gk.kind,
      causes,
    }),
  badRequest: (message: string) => new StatusError(400, 'BadRequest', message),
  unauthorized: (message = 'Unauthorized') => new StatusError(401, 'Unauthorized', message),
  methodNotSupported: (gr: GroupResource, action: string) =>
    new StatusError(
      405,
      'MethodNotAllowed',
      `${action} is not supported on resources of kind ${quote(qualifiedResource(gr))}`,
      resourceDetails(gr),
    ),
  notAcceptable: (accepted: string[]) =>
    new StatusError(406, 'NotAcceptable', `only the following media types are accepted: ${accepted.join(', ')}`),
  unsupportedMediaType: (accepted: string[]) =>
    new StatusError(
      415,
      'UnsupportedMediaType',
      `the body of the request was in an unknown format - accepted media types include: ${accepted.join(', ')}`,
    ),
  requestEntityTooLarge: (message: string) =>
    new StatusError(413, 'RequestEntityTooLarge', `Request entity too large: ${message}`),
  gone: (message: string) => new StatusError(410, 'Gone', message),
  /** A resourceVersion older than the history kept (watch, list with continue). */
  resourceExpired: (message: string) => new StatusError(410, 'Expired', message),
  tooManyRequests: (message: string, retryAfterSeconds: number) =>
    new StatusError(429, 'TooManyRequests', message, { retryAfterSeconds }),
  internal: (err: unknown) => {
    const text = err instanceof Error ? err.message : String(err);
    return new StatusError(500, 'InternalError', `Internal error occurred: ${text}`, { causes: [{ message: text }] });
  },
  serverTimeout: (gr: GroupResource, operation: string, retryAfterSeconds: number) =>
    new StatusError(
      500,
      'ServerTimeout',
      `The ${operation} operation against ${qualifiedResource(gr)} could not be completed at this time, please try again.`,
      { ...resourceDetails(gr, operation), retryAfterSeconds },
    ),
  serviceUnavailable: (message: string) => new StatusError(503, 'ServiceUnavailable', message),
  timeout: (message: string, retryAfterSeconds: number) =>
    new StatusError(504, 'Timeout', `Timeout: ${message}`, { retryAfterSeconds }),
  /** What the apiserver answers for a path under an API group version it serves but holds nothing at. */
  pathNotFound: () => new StatusError(404, 'NotFound', 'the server could not find the requested resource', {}),
  /**
   * What the apiserver answers under an API group it does not serve at all (metrics.k8s.io without a metrics
   * server): the end of upstream's handler chain, Go's http.NotFound, plain text. A client then words the error
   * itself, naming the resource (`the server could not find the requested resource (get pods.metrics.k8s.io)`).
   */
  noHandler: () => new PlainTextStatusError(404, 'NotFound', '404 page not found'),
};

/** The Status for any error: a StatusError as it is, anything else as an InternalError. */
export function toStatus(err: unknown): Status {
  return err instanceof StatusError ? err.status : statusErrors.internal(err).status;
}

export function successStatus(details?: StatusDetails): Status {
  return {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Success',
    ...(details ? { details } : {}),
    code: 200,
  };
}
