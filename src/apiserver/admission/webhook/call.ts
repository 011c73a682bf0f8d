/**
 * One call of one webhook, shared by both dispatchers: the dry-run check against the webhook's sideEffects, the
 * AdmissionReview sent over HTTPS, the answer verified, its warnings and audit annotations passed on through the
 * request's sink (annotations keyed `<webhook name>/<key>`, as upstream keys them), and a refusal turned into the
 * webhook's denial. Anything that keeps the webhook from answering usably is a WebhookCallError, which the
 * dispatcher weighs against the webhook's failurePolicy.
 */
import { goJsonSyntaxError } from '../../../api/go-json.js';
import type { APIRegistry } from '../../api-registry.js';
import { clientGoHttpFailure } from '../../go-net-errors.js';
import type { KubeObject } from '../../registry/object.js';
import { type AdmissionAttributes, admissionAnnotation, admissionWarning } from '../types.js';
import { LoopbackOnlyError, PostError, postReview, resolveTarget, TargetError } from './client.js';
import type { Webhook } from './configuration.js';
import { dryRunUnsupported, WebhookCallError, webhookDenial } from './errors.js';
import type { WebhookInvocation } from './matching.js';
import { type AdmissionResponse, admissionReview, reviewVersionFor, verifyAdmissionResponse } from './review.js';

const NO_SIDE_EFFECTS = ['None', 'NoneOnDryRun'];

/**
 * Calls the webhook for the invocation with the given objects (already in the invocation's version). Throws the
 * dry-run refusal, a WebhookCallError, or the webhook's denial.
 */
export async function callWebhook(
  registry: APIRegistry,
  webhook: Webhook,
  invocation: WebhookInvocation,
  attrs: AdmissionAttributes,
  objects: { object: KubeObject | undefined; oldObject: KubeObject | undefined },
  mutating: boolean,
): Promise<AdmissionResponse> {
  if (attrs.dryRun && !NO_SIDE_EFFECTS.includes(webhook.sideEffects)) throw dryRunUnsupported(webhook.name);
  const fail = (reason: string, code?: number) => new WebhookCallError(webhook.name, reason, code);
  const version = reviewVersionFor(webhook.admissionReviewVersions);
  if (!version) {
    throw fail('could not create admission objects: webhook does not accept known AdmissionReview versions', 400);
  }
  const review = admissionReview(version, attrs, invocation, objects);
  let target: Awaited<ReturnType<typeof resolveTarget>>;
  try {
    target = await resolveTarget(registry, webhook);
  } catch (err) {
    if (err instanceof LoopbackOnlyError) throw fail(`failed to call webhook: ${err.message}`);
    if (err instanceof TargetError && err.url !== undefined) {
      throw fail(`failed to call webhook: Post ${JSON.stringify(err.url)}: ${err.message}`);
    }
    if (err instanceof TargetError) throw fail(`could not get REST client: ${err.message}`, 500);
    throw err;
  }
  let reply: Awaited<ReturnType<typeof postReview>>;
  try {
    reply = await postReview(target, webhook.caBundle, review.body, webhook.timeoutSeconds);
  } catch (err) {
    if (err instanceof PostError) throw fail(`failed to call webhook: ${err.message}`);
    throw err;
  }
  if (reply.statusCode < 200 || reply.statusCode > 299) {
    throw fail(`failed to call webhook: ${clientGoHttpFailure(reply.statusCode, reply.body)}`, reply.statusCode);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(reply.body);
  } catch {
    // In Go's words, as upstream's decoder reports it.
    throw fail(`failed to call webhook: couldn't get version/kind; json parse error: ${goJsonSyntaxError(reply.body)}`);
  }
  const response = verifyAdmissionResponse(version, review.uid, mutating, parsed);
  if (typeof response === 'string') throw fail(`received invalid webhook response: ${response}`);
  for (const [key, value] of Object.entries(response.auditAnnotations)) {
    admissionAnnotation(attrs, `${webhook.name}/${key}`, value);
  }
  for (const warning of response.warnings) admissionWarning(attrs, warning);
  if (!response.allowed) throw webhookDenial(webhook.name, response.result);
  return response;
}
