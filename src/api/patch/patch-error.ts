/**
 * The one error the patch code throws. `kind` says which answer kube-apiserver v1.33 gives for the failure, and
 * `status()` spells that answer out as the fields of a v1 Status, so the apiserver can copy them onto the response.
 *
 * What upstream does, per patch type (k8s.io/apiserver endpoints/handlers/patch.go). "Strict decode" is the first
 * decode the apiserver runs unless fieldValidation=Ignore (an absent fieldValidation means Warn, so it runs):
 *
 * - JSON patch (application/json-patch+json, evanphx/json-patch v4):
 *   - body of the wrong shape: 400 BadRequest. After the strict decode:
 *     `error decoding patch: json: cannot unmarshal object into Go value of type []handlers.jsonPatchOp`
 *     (also for an op/path/from that is not a string: `… into Go struct field jsonPatchOp.path of type string`);
 *     with Ignore: `json: cannot unmarshal object into Go value of type jsonpatch.Patch`. A body that is not JSON at
 *     all gets 400 with the JSON parser's message; that happens before this module is called.
 *   - more than 10000 operations: 413 RequestEntityTooLarge,
 *     `Request entity too large: The allowed maximum operations in a JSON patch is 10000, got N`.
 *   - any failure while applying (missing path, bad index, failed `test`, unknown op, copy size limit):
 *     422 Invalid with the fixed message `the server rejected our request due to an error in our request` and an
 *     empty `details` object; the library's own message is not sent to the client (kept here in `message`).
 * - JSON merge patch (application/merge-patch+json): a body that is neither an object nor null: 400 BadRequest
 *   `error decoding patch: json: cannot unmarshal array into Go value of type map[string]interface {}` after the
 *   strict decode; `null` (and, with Ignore, a scalar): 400 BadRequest `Invalid JSON Patch`. (With Ignore an array
 *   replaces the whole object, and decoding that result fails in the apiserver with 422 Invalid.)
 * - Strategic merge patch (application/strategic-merge-patch+json):
 *   - a body that is not a JSON object: 400 BadRequest with the decoder's message
 *     (`json: cannot unmarshal array into Go value of type map[string]interface {}`), whatever fieldValidation.
 *   - malformed directives `$deleteFromPrimitiveList/…`, `$setElementOrder/…`, `$retainKeys`: 400 BadRequest with
 *     `invalid patch format of primitive list` / `invalid patch format of setElementOrder list` /
 *     `invalid patch format of retainKeys`.
 *   - lists of lists: 422 Invalid, same fixed message as above.
 *   - everything else (unknown `$patch` value, list element without its merge key, element types that differ, …):
 *     the library returns a plain Go error, which the apiserver turns into 500 with an empty reason
 *     (StatusReasonUnknown) and the error text as message.
 */
export type PatchErrorKind = 'BadRequest' | 'Invalid' | 'RequestEntityTooLarge' | 'Unknown';

export interface PatchErrorStatus {
  readonly code: number;
  /** The v1 Status `reason`; '' is upstream's StatusReasonUnknown. */
  readonly reason: string;
  readonly message: string;
  /** Present (and empty) when upstream sends `"details": {}`. */
  readonly details?: Record<string, never>;
}

/** The fixed message of NewGenericServerResponse for code 422. */
export const UNPROCESSABLE_PATCH_MESSAGE = 'the server rejected our request due to an error in our request';

export class PatchError extends Error {
  override readonly name = 'PatchError';

  constructor(
    readonly kind: PatchErrorKind,
    message: string,
  ) {
    super(message);
  }

  /** The Status fields kube-apiserver answers with for this failure. */
  status(): PatchErrorStatus {
    switch (this.kind) {
      case 'BadRequest':
        return { code: 400, reason: 'BadRequest', message: this.message };
      case 'Invalid':
        return { code: 422, reason: 'Invalid', message: UNPROCESSABLE_PATCH_MESSAGE, details: {} };
      case 'RequestEntityTooLarge':
        return { code: 413, reason: 'RequestEntityTooLarge', message: `Request entity too large: ${this.message}` };
      case 'Unknown':
        return { code: 500, reason: '', message: this.message };
    }
  }
}
