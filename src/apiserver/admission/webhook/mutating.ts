/**
 * MutatingAdmissionWebhook: the request's object is sent to each matching mutating webhook in turn (configurations
 * by name, webhooks in order), and each JSONPatch answer is applied before the next webhook is asked. A webhook
 * with reinvocationPolicy IfNeeded is called once more when the object changed after it was called (by a later
 * webhook, or by a built-in plugin in the chain's second round). Failures to call follow each webhook's
 * failurePolicy; with Ignore the request goes on and the audit event says the webhook failed open. Each call is
 * recorded on the audit event (whether it mutated the object), and so is each patch applied — the latter only on
 * events of level Request and above, as upstream's dispatcher records it.
 */
import { goJsonMarshal, goJsonSyntaxError } from '../../../api/go-json.js';
import { applyJsonPatchOperations } from '../../../api/patch/json-patch.js';
import { decodePatchOperations } from '../../../api/patch/json-patch-decode.js';
import type { JsonObject } from '../../../api/patch/json-value.js';
import { statusErrors } from '../../../api/status-error.js';
import type { APIRegistry } from '../../api-registry.js';
import { deepClone, jsonEqual, type KubeObject } from '../../registry/object.js';
import { type AdmissionAttributes, type AdmissionPlugin, admissionAnnotation } from '../types.js';
import { callWebhook } from './call.js';
import { WebhookSource } from './configuration.js';
import { failedClosed, WebhookCallError } from './errors.js';
import { type MatchConditionEvaluator, matchConditionsAllow } from './match-conditions.js';
import { isExemptFromWebhooks, namespaceLabelsFrom, webhookInvocation } from './matching.js';
import { recordCall, webhookMetricsFor } from './metrics.js';
import { backToRequestVersion, invocationDefinition, objectsFor } from './versions.js';

export const MUTATING_ADMISSION_WEBHOOK = 'MutatingAdmissionWebhook';

/** What the plugin remembers between the chain's two rounds (upstream's webhookReinvokeContext). */
interface ReinvokeState {
  lastOutput: KubeObject | undefined;
  /** IfNeeded webhooks called since the object last changed. */
  previouslyInvoked: Set<string>;
  /** Webhooks to call again in the second round. */
  reinvoke: Set<string>;
}

function requireReinvokingPreviouslyInvoked(state: ReinvokeState): void {
  for (const uid of state.previouslyInvoked) state.reinvoke.add(uid);
  state.previouslyInvoked.clear();
}

function stateOf(attrs: AdmissionAttributes): ReinvokeState {
  const values = attrs.reinvocation?.values;
  const existing = values?.get(MUTATING_ADMISSION_WEBHOOK) as ReinvokeState | undefined;
  if (existing) return existing;
  const fresh: ReinvokeState = { lastOutput: undefined, previouslyInvoked: new Set(), reinvoke: new Set() };
  values?.set(MUTATING_ADMISSION_WEBHOOK, fresh);
  return fresh;
}

/** The audit annotation keys of one webhook call: `<prefix>round_<round>_index_<index>`, as upstream's. */
const MUTATION_ANNOTATION_PREFIX = 'mutation.webhook.admission.k8s.io/';
const PATCH_ANNOTATION_PREFIX = 'patch.webhook.admission.k8s.io/';
const FAILED_OPEN_ANNOTATION_PREFIX = `failed-open.${MUTATION_ANNOTATION_PREFIX}`;

/**
 * The value of the patch annotation: the configuration, the webhook, the JSON patch it answered and its type. The
 * patch is re-encoded as upstream's is (each operation a JSON object whose keys come out sorted).
 */
export function patchAnnotationValue(configuration: string, webhook: string, patch: unknown[]): string {
  const operations = patch.map((op) => {
    if (op === null || typeof op !== 'object' || Array.isArray(op)) return op;
    const fields = op as Record<string, unknown>;
    const sorted: Record<string, unknown> = {};
    for (const key of Object.keys(fields).sort()) sorted[key] = fields[key];
    return sorted;
  });
  return goJsonMarshal({ configuration, webhook, patch: operations, patchType: 'JSONPatch' });
}

/**
 * Applies a webhook's patch to the invocation's object; returns the patch and the patched object, or undefined when
 * the patch is empty. As upstream's dispatcher: a patch that does not decode (jsonpatch.DecodePatch: not JSON, not
 * a list of objects) or does not apply is an internal error, whatever the webhook's failurePolicy; only a patch
 * type other than JSONPatch is a failure to call the webhook.
 */
function applyPatch(
  webhookName: string,
  patchText: string,
  patchType: string | undefined,
  object: KubeObject | undefined,
): { patch: unknown[]; patched: KubeObject } | undefined {
  let patch: unknown;
  let operations: JsonObject[];
  try {
    patch = JSON.parse(patchText);
    operations = decodePatchOperations(patch);
  } catch (err) {
    throw statusErrors.internal(err instanceof SyntaxError ? goJsonSyntaxError(patchText) : err);
  }
  if (operations.length === 0) return undefined;
  if (!object) {
    throw statusErrors.internal(
      `admission webhook ${JSON.stringify(webhookName)} attempted to modify the object, which is not supported for this operation`,
    );
  }
  if (patchType !== 'JSONPatch') {
    throw new WebhookCallError(webhookName, `unsupported patch type ${JSON.stringify(patchType ?? '')}`, 400);
  }
  try {
    return { patch: patch as unknown[], patched: applyJsonPatchOperations(object, operations) as KubeObject };
  } catch (err) {
    throw statusErrors.internal(err);
  }
}

export function mutatingAdmissionWebhook(
  registry: APIRegistry,
  matchConditions?: MatchConditionEvaluator,
): AdmissionPlugin {
  const source = new WebhookSource(registry, 'mutatingwebhookconfigurations');
  const namespaceLabels = namespaceLabelsFrom(registry);
  const metrics = webhookMetricsFor(registry);
  return {
    name: MUTATING_ADMISSION_WEBHOOK,
    metrics: metrics.registry,
    admit(attrs) {
      // Nothing to wait for when no configuration has anything to say: the case of most clusters, most requests.
      if (isExemptFromWebhooks(attrs) || source.webhooksNow()?.length === 0) return;
      return admitWith(attrs);
    },
  };

  async function admitWith(attrs: AdmissionAttributes): Promise<void> {
    const hooks = await source.webhooks();
    if (hooks.length === 0) return;
    const reinvoking = attrs.reinvocation?.isReinvoke === true;
    const round = reinvoking ? 1 : 0;
    const state = stateOf(attrs);
    if (reinvoking && state.lastOutput !== undefined && !jsonEqual(state.lastOutput, attrs.object)) {
      // A built-in plugin changed the object in this round: every IfNeeded webhook called so far runs again.
      requireReinvokingPreviouslyInvoked(state);
    }
    try {
      for (const hook of hooks) {
        const invocation = await webhookInvocation(hook, attrs, registry, namespaceLabels);
        if (!invocation) continue;
        const excluded = () => metrics.matchConditionExclusion(hook.name, 'admit', attrs.operation);
        if (!(await matchConditionsAllow(registry, matchConditions, hook, invocation, attrs, excluded))) continue;
        // A webhook is never called for the first time in the second round.
        if (reinvoking && !state.reinvoke.has(hook.uid)) continue;
        let changed = false;
        let error: unknown;
        const started = performance.now();
        try {
          const objects = objectsFor(registry, attrs, invocation);
          const response = await callWebhook(registry, hook, invocation, attrs, objects, true);
          if (response.patch !== undefined) {
            const applied = applyPatch(hook.name, response.patch, response.patchType, objects.object);
            if (applied) {
              const { patch, patched } = applied;
              admissionAnnotation(
                attrs,
                `${PATCH_ANNOTATION_PREFIX}round_${round}_index_${hook.index}`,
                patchAnnotationValue(hook.configurationName, hook.name, patch),
                'Request',
              );
              invocationDefinition(registry, attrs, invocation)?.strategy.default?.(patched);
              changed = !jsonEqual(patched, objects.object);
              if (changed) attrs.object = backToRequestVersion(registry, attrs, invocation, patched);
            }
          }
        } catch (err) {
          error = err;
        }
        recordCall(metrics, hook, 'admit', attrs.operation, (performance.now() - started) / 1000, error);
        admissionAnnotation(
          attrs,
          `${MUTATION_ANNOTATION_PREFIX}round_${round}_index_${hook.index}`,
          JSON.stringify({ configuration: hook.configurationName, webhook: hook.name, mutated: changed }),
        );
        if (changed) {
          requireReinvokingPreviouslyInvoked(state);
          if (attrs.reinvocation) attrs.reinvocation.shouldReinvoke = true;
        }
        if (hook.reinvocationPolicy === 'IfNeeded') state.previouslyInvoked.add(hook.uid);
        if (error === undefined) continue;
        if (error instanceof WebhookCallError) {
          if (hook.failurePolicy === 'Ignore') {
            admissionAnnotation(attrs, `${FAILED_OPEN_ANNOTATION_PREFIX}round_${round}_index_${hook.index}`, hook.name);
            continue;
          }
          throw failedClosed(error);
        }
        throw error;
      }
    } finally {
      state.lastOutput = attrs.object ? deepClone(attrs.object) : undefined;
    }
  }
}
