/**
 * ValidatingAdmissionWebhook: the object as it will be stored is sent to every matching validating webhook at once;
 * the request goes on only if all of them allow it. The first refusal (in the webhooks' order) is the answer;
 * failures to call follow each webhook's failurePolicy.
 */
import type { APIRegistry } from '../../api-registry.js';
import { type AdmissionAttributes, type AdmissionPlugin, admissionAnnotation } from '../types.js';
import { callWebhook } from './call.js';
import { WebhookSource } from './configuration.js';
import { failedClosed, WebhookCallError } from './errors.js';
import { type MatchConditionEvaluator, matchConditionsAllow } from './match-conditions.js';
import { isExemptFromWebhooks, namespaceLabelsFrom, type WebhookInvocation, webhookInvocation } from './matching.js';
import { recordCall, webhookMetricsFor } from './metrics.js';
import { objectsFor } from './versions.js';

export const VALIDATING_ADMISSION_WEBHOOK = 'ValidatingAdmissionWebhook';

export function validatingAdmissionWebhook(
  registry: APIRegistry,
  matchConditions?: MatchConditionEvaluator,
): AdmissionPlugin {
  const source = new WebhookSource(registry, 'validatingwebhookconfigurations');
  const namespaceLabels = namespaceLabelsFrom(registry);
  const metrics = webhookMetricsFor(registry);
  return {
    name: VALIDATING_ADMISSION_WEBHOOK,
    metrics: metrics.registry,
    validate(attrs) {
      // Nothing to wait for when no configuration has anything to say: the case of most clusters, most requests.
      if (isExemptFromWebhooks(attrs) || source.webhooksNow()?.length === 0) return;
      return validateWith(attrs);
    },
  };

  async function validateWith(attrs: AdmissionAttributes): Promise<void> {
    const hooks = await source.webhooks();
    if (hooks.length === 0) return;
    const relevant: WebhookInvocation[] = [];
    for (const hook of hooks) {
      const invocation = await webhookInvocation(hook, attrs, registry, namespaceLabels);
      if (!invocation) continue;
      const excluded = () => metrics.matchConditionExclusion(hook.name, 'validating', attrs.operation);
      if (await matchConditionsAllow(registry, matchConditions, hook, invocation, attrs, excluded)) {
        relevant.push(invocation);
      }
    }
    if (relevant.length === 0) return;
    const outcomes = await Promise.allSettled(
      relevant.map(async (invocation) => {
        const started = performance.now();
        const hook = invocation.webhook;
        try {
          await callWebhook(registry, hook, invocation, attrs, objectsFor(registry, attrs, invocation), false);
          recordCall(metrics, hook, 'validating', attrs.operation, (performance.now() - started) / 1000, undefined);
        } catch (err) {
          recordCall(metrics, hook, 'validating', attrs.operation, (performance.now() - started) / 1000, err);
          throw err;
        }
      }),
    );
    let first: unknown;
    outcomes.forEach((outcome, i) => {
      if (outcome.status === 'fulfilled') return;
      const hook = (relevant[i] as WebhookInvocation).webhook;
      let err = outcome.reason;
      if (err instanceof WebhookCallError) {
        if (hook.failurePolicy === 'Ignore') {
          admissionAnnotation(
            attrs,
            // Upstream counts the webhooks called for this request here (the mutating ones count them all).
            `failed-open.validating.webhook.admission.k8s.io/round_0_index_${i}`,
            hook.name,
          );
          return;
        }
        err = failedClosed(err);
      }
      first ??= err;
    });
    if (first !== undefined) throw first;
  }
}
