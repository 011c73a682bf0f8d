/**
 * The admission webhook metrics kube-apiserver publishes, with upstream's names, labels and buckets:
 * apiserver_admission_webhook_admission_duration_seconds, apiserver_admission_webhook_request_total,
 * apiserver_admission_webhook_rejection_count, apiserver_admission_webhook_fail_open_count and
 * apiserver_admission_match_condition_exclusions_total. One set per control plane (keyed by its registry of
 * resources), so several control planes in one process keep their own figures; /metrics merges it in.
 */
import { Counter, Histogram, Registry } from 'prom-client';
import type { APIRegistry } from '../../api-registry.js';
import type { Webhook } from './configuration.js';
import { WebhookCallError, WebhookRejection } from './errors.js';

/** `admit` for mutating webhooks, `validating` for validating ones, as upstream labels them. */
export type StepType = 'admit' | 'validating';

/** Why a webhook's call rejected the request (upstream's WebhookRejectionErrorType). */
export type RejectionErrorType = 'calling_webhook_error' | 'apiserver_internal_error' | 'no_error';

export class WebhookMetrics {
  readonly registry = new Registry();
  private readonly latency = new Histogram({
    name: 'apiserver_admission_webhook_admission_duration_seconds',
    help: 'Time spent calling each admission webhook, in seconds, by webhook name, admission type, operation and whether the call rejected the request.',
    labelNames: ['name', 'type', 'operation', 'rejected'],
    buckets: [0.005, 0.025, 0.1, 0.5, 1.0, 2.5, 10, 25],
    registers: [this.registry],
  });
  private readonly requests = new Counter({
    name: 'apiserver_admission_webhook_request_total',
    help: 'Calls of admission webhooks by webhook name, admission type, operation, HTTP status code (600 at most) and whether the request was rejected.',
    labelNames: ['name', 'type', 'operation', 'code', 'rejected'],
    registers: [this.registry],
  });
  private readonly rejections = new Counter({
    name: 'apiserver_admission_webhook_rejection_count',
    help: 'Requests rejected through admission webhooks by webhook name, admission type, operation, error type (calling_webhook_error, apiserver_internal_error or no_error) and the rejection code (600 at most).',
    labelNames: ['name', 'type', 'operation', 'error_type', 'rejection_code'],
    registers: [this.registry],
  });
  private readonly failOpen = new Counter({
    name: 'apiserver_admission_webhook_fail_open_count',
    help: 'Admission webhook calls that failed and were ignored (failurePolicy Ignore), by webhook name and admission type.',
    labelNames: ['name', 'type'],
    registers: [this.registry],
  });
  private readonly exclusions = new Counter({
    name: 'apiserver_admission_match_condition_exclusions_total',
    help: 'Requests not sent to an admission webhook or policy because a match condition was false, by name, kind, admission type and operation.',
    labelNames: ['name', 'kind', 'type', 'operation'],
    registers: [this.registry],
  });

  /** One call: its latency and outcome (code 200 for an answer that allowed the request). */
  observe(name: string, type: StepType, operation: string, seconds: number, rejected: boolean, code: number): void {
    const r = String(rejected);
    this.latency.observe({ name, type, operation, rejected: r }, seconds);
    this.requests.inc({ name, type, operation, code: String(Math.min(code, 600)), rejected: r });
  }

  rejection(name: string, type: StepType, operation: string, errorType: RejectionErrorType, code: number): void {
    const rejection_code = String(Math.min(code, 600));
    this.rejections.inc({ name, type, operation, error_type: errorType, rejection_code });
  }

  failedOpen(name: string, type: StepType): void {
    this.failOpen.inc({ name, type });
  }

  matchConditionExclusion(name: string, type: StepType, operation: string): void {
    this.exclusions.inc({ name, kind: 'webhook', type, operation });
  }
}

const byControlPlane = new WeakMap<APIRegistry, WebhookMetrics>();

/** The webhook metrics of the control plane that serves `registry`. */
export function webhookMetricsFor(registry: APIRegistry): WebhookMetrics {
  let m = byControlPlane.get(registry);
  if (!m) {
    m = new WebhookMetrics();
    byControlPlane.set(registry, m);
  }
  return m;
}

/** Records one call's outcome as upstream's dispatchers do (error undefined: the webhook allowed the request). */
export function recordCall(
  metrics: WebhookMetrics,
  hook: Webhook,
  type: StepType,
  operation: string,
  seconds: number,
  error: unknown,
): void {
  const name = hook.name;
  if (error === undefined) {
    metrics.observe(name, type, operation, seconds, false, 200);
  } else if (error instanceof WebhookCallError) {
    const rejected = hook.failurePolicy !== 'Ignore';
    if (rejected) metrics.rejection(name, type, operation, 'calling_webhook_error', error.code);
    else metrics.failedOpen(name, type);
    metrics.observe(name, type, operation, seconds, rejected, error.code);
  } else if (error instanceof WebhookRejection) {
    metrics.rejection(name, type, operation, 'no_error', error.code);
    metrics.observe(name, type, operation, seconds, true, error.code);
  } else {
    metrics.rejection(name, type, operation, 'apiserver_internal_error', 0);
    metrics.observe(name, type, operation, seconds, true, 0);
  }
}
