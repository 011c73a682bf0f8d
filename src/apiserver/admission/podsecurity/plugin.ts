/**
 * The PodSecurity admission plugin (upstream's plugin/pkg/admission/security/podsecurity over
 * k8s.io/pod-security-admission): a validating step for creates and updates of pods, namespaces and workloads
 * with pod templates. Warnings go to the response's Warning headers, audit annotations to the request's audit
 * event under `pod-security.kubernetes.io/`, and a refusal is thrown as the Status the evaluation built.
 */
import type { Registry } from 'prom-client';
import type { APIRegistry } from '../../api-registry.js';
import { type AdmissionAttributes, type AdmissionPlugin, admissionAnnotation, admissionWarning } from '../types.js';
import { podSecuritySettings } from './configuration.js';
import type { Decision, PodSecurityState } from './decision.js';
import { Evaluator } from './evaluator.js';
import { LABEL_PREFIX } from './levels.js';
import { NO_METRICS, PodSecurityMetrics, type PodSecurityRecorder } from './metrics.js';
import { validateNamespace } from './namespaces.js';
import { hasPodTemplate, validatePod, validatePodController } from './pods.js';
import { type PodSecuritySources, registrySources } from './sources.js';

export const POD_SECURITY = 'PodSecurity';

export interface PodSecurityPluginOptions {
  /** The plugin's configuration from the AdmissionConfiguration file (undefined: the defaults). */
  configuration?: unknown;
  /** Where namespaces and pods are read. */
  sources: PodSecuritySources;
  evaluator?: Evaluator;
  maxPodsToCheck?: number;
  podCheckTimeoutMs?: number;
  now?: () => number;
  /** Where evaluations, exemptions and errors are counted (default: nowhere). */
  metrics?: PodSecurityRecorder;
}

/** The evaluation of one request, without applying it (what tests look at). */
export function decide(state: PodSecurityState, attrs: AdmissionAttributes): Decision | Promise<Decision> | undefined {
  const { group, resource } = attrs.resource;
  if (group === '' && resource === 'namespaces') return validateNamespace(state, attrs);
  if (group === '' && resource === 'pods') return validatePod(state, attrs);
  if (hasPodTemplate(group, resource)) return validatePodController(state, attrs);
  return undefined;
}

/** Gives the request a decision's warnings and audit annotations, and throws its refusal. */
function apply(attrs: AdmissionAttributes, decision: Decision): void {
  for (const w of decision.warnings) admissionWarning(attrs, w);
  for (const key in decision.annotations) {
    admissionAnnotation(attrs, LABEL_PREFIX + key, decision.annotations[key] as string);
  }
  if (decision.error) throw decision.error;
}

/** Builds the plugin; throws with upstream's message when the configuration is invalid. */
export function podSecurity(opts: PodSecurityPluginOptions): AdmissionPlugin {
  const state: PodSecurityState = {
    settings: podSecuritySettings(opts.configuration),
    evaluator: opts.evaluator ?? new Evaluator(),
    sources: opts.sources,
    maxPodsToCheck: opts.maxPodsToCheck ?? 3000,
    podCheckTimeoutMs: opts.podCheckTimeoutMs ?? 1000,
    now: opts.now ?? Date.now,
    metrics: opts.metrics ?? NO_METRICS,
  };
  return {
    name: POD_SECURITY,
    handles: (op) => op === 'CREATE' || op === 'UPDATE',
    validate(attrs) {
      const decision = decide(state, attrs);
      if (decision instanceof Promise) return decision.then((d) => apply(attrs, d));
      if (decision) apply(attrs, decision);
    },
  };
}

/**
 * The plugin over the server's own registry (namespaces and pods from the watch caches), with its metrics (served
 * on the apiserver's /metrics).
 */
export function podSecurityForRegistry(
  registry: APIRegistry,
  configuration: unknown,
): AdmissionPlugin & { metrics: Registry } {
  const metrics = new PodSecurityMetrics();
  return { ...podSecurity({ configuration, sources: registrySources(registry), metrics }), metrics: metrics.registry };
}
