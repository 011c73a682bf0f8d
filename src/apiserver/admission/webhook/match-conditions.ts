/**
 * A webhook's matchConditions, judged as upstream's matcher judges them: any condition false skips the webhook;
 * all true calls it; an evaluation error (with none false) fails the request when the webhook's failurePolicy is
 * Fail (`<resource> "<name>" is forbidden: <error>`) and skips the webhook when it is Ignore. The expressions
 * themselves are evaluated by a MatchConditionEvaluator (the CEL one is match-conditions-cel.ts).
 */
import { statusErrors } from '../../../api/status-error.js';
import type { APIRegistry } from '../../api-registry.js';
import type { KubeObject } from '../../registry/object.js';
import type { AdmissionAttributes } from '../types.js';
import type { Webhook } from './configuration.js';
import type { WebhookInvocation } from './matching.js';
import { admissionReview } from './review.js';
import { objectsFor } from './versions.js';

/** What the expressions see. */
export interface MatchActivation {
  object: KubeObject | undefined;
  oldObject: KubeObject | undefined;
  /** The AdmissionRequest the webhook would be sent. */
  request: Record<string, unknown>;
  attrs: AdmissionAttributes;
}

export interface MatchConditionEvaluator {
  /** Each condition's result in order: true, false, or the evaluation's error. */
  evaluate(webhook: Webhook, activation: MatchActivation): Promise<Array<boolean | Error>>;
}

/** Upstream's aggregate of several errors: one alone as it is, several in brackets. */
function aggregate(errors: readonly Error[]): string {
  return errors.length === 1 ? (errors[0] as Error).message : `[${errors.map((e) => e.message).join(', ')}]`;
}

/**
 * Whether the webhook is to be called (onExcluded is told when a condition was false); throws the Forbidden error of
 * a failing condition under failurePolicy Fail.
 */
export async function matchConditionsAllow(
  registry: APIRegistry,
  evaluator: MatchConditionEvaluator | undefined,
  webhook: Webhook,
  invocation: WebhookInvocation,
  attrs: AdmissionAttributes,
  onExcluded?: () => void,
): Promise<boolean> {
  if (webhook.matchConditions.length === 0) return true;
  let results: Array<boolean | Error>;
  if (!evaluator) {
    results = [new Error('matchConditions cannot be evaluated: this server has no CEL evaluator for webhooks')];
  } else {
    const objects = objectsFor(registry, attrs, invocation);
    const request = admissionReview('v1', attrs, invocation, objects).body.request as Record<string, unknown>;
    try {
      results = await evaluator.evaluate(webhook, { ...objects, request, attrs });
    } catch (err) {
      results = [err instanceof Error ? err : new Error(String(err))];
    }
  }
  if (results.some((r) => r === false)) {
    onExcluded?.();
    return false;
  }
  const errors = results.filter((r): r is Error => r instanceof Error);
  if (errors.length === 0) return true;
  if (webhook.failurePolicy === 'Ignore') return false;
  throw statusErrors.forbidden(
    { group: attrs.resource.group, resource: attrs.resource.resource },
    attrs.name,
    aggregate(errors),
  );
}
