/**
 * The errors of admission webhooks, worded as upstream's: a failure to call a webhook (subject to its
 * failurePolicy; with Fail it becomes `Internal error occurred: failed calling webhook "<name>": …`), a webhook's
 * refusal (`admission webhook "<name>" denied the request: <message>`, with the code and reason the webhook gave),
 * and the refusal of a dry-run request by a webhook with side effects.
 */
import { type Status, StatusError, statusErrors } from '../../../api/status-error.js';

/** Upstream's ErrCallingWebhook: the webhook could not be asked, or its answer could not be used. */
export class WebhookCallError extends Error {
  constructor(
    readonly webhookName: string,
    readonly reason: string,
    /** The status code of the failure as upstream records it in metrics (503 when the call itself failed). */
    readonly code = 503,
  ) {
    super(`failed calling webhook ${JSON.stringify(webhookName)}: ${reason}`);
    this.name = 'WebhookCallError';
  }
}

/** What a failing-closed webhook call answers the client: a 500 InternalError naming the webhook. */
export function failedClosed(err: WebhookCallError): StatusError {
  return statusErrors.internal(err);
}

/** A webhook's refusal of a request. */
export class WebhookRejection extends StatusError {}

/**
 * Upstream's ToStatusErr: the webhook's Status, its message prefixed with who denied the request; a code below 400
 * becomes 400 and the status Failure.
 */
export function webhookDenial(webhookName: string, result: unknown): StatusError {
  const status = (result !== null && typeof result === 'object' ? result : {}) as Partial<Status>;
  const deniedBy = `admission webhook ${JSON.stringify(webhookName)} denied the request`;
  const message = typeof status.message === 'string' ? status.message : '';
  const reason = typeof status.reason === 'string' ? status.reason : '';
  const text = message
    ? `${deniedBy}: ${message}`
    : reason
      ? `${deniedBy}: ${reason}`
      : `${deniedBy} without explanation`;
  const code = typeof status.code === 'number' && status.code >= 400 ? status.code : 400;
  const details = status.details && typeof status.details === 'object' ? status.details : undefined;
  const err = new WebhookRejection(code, reason, text, details);
  // An empty reason is left out, as Go's omitempty leaves it out (kubectl then prints `Error from server: …`).
  if (!reason) delete err.status.reason;
  return err;
}

/** Upstream's NewDryRunUnsupportedErr: a dry-run request matched a webhook that may have side effects. */
export function dryRunUnsupported(webhookName: string): StatusError {
  return statusErrors.badRequest(`admission webhook ${JSON.stringify(webhookName)} does not support dry run`);
}
