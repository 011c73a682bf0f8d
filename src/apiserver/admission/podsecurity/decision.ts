/**
 * What one PodSecurity evaluation answers (upstream's AdmissionResponse as its library builds it): allowed or an
 * error, warnings for the client, and audit annotations (keys without the `pod-security.kubernetes.io/` prefix,
 * which the plugin adds). The plugin state every part shares lives here too.
 */
import type { StatusError } from '../../../api/status-error.js';
import type { PodSecuritySettings } from './configuration.js';
import type { Evaluator } from './evaluator.js';
import type { PodSecurityRecorder } from './metrics.js';
import type { PodSecuritySources } from './sources.js';

export interface Decision {
  /** Set when the request is refused. */
  error?: StatusError;
  warnings: string[];
  annotations: Record<string, string>;
}

export function allow(annotations: Record<string, string> = {}, warnings: string[] = []): Decision {
  return { warnings, annotations };
}

export function refuse(error: StatusError, annotations: Record<string, string> = {}): Decision {
  return { error, warnings: [], annotations };
}

/** The audit annotation keys upstream sets (under the `pod-security.kubernetes.io/` prefix). */
export const ENFORCE_POLICY_ANNOTATION = 'enforce-policy';
export const AUDIT_VIOLATIONS_ANNOTATION = 'audit-violations';
export const EXEMPT_ANNOTATION = 'exempt';
export const ERROR_ANNOTATION = 'error';

export interface PodSecurityState {
  settings: PodSecuritySettings;
  evaluator: Evaluator;
  sources: PodSecuritySources;
  /** At most this many existing pods are checked when a namespace's enforce level is raised (upstream: 3000). */
  maxPodsToCheck: number;
  /** …and for at most this long, in milliseconds (upstream: 1 s). */
  podCheckTimeoutMs: number;
  /** The clock the time limit reads (milliseconds). */
  now: () => number;
  metrics: PodSecurityRecorder;
}

export function exemptNamespace(state: PodSecurityState, namespace: string): boolean {
  return namespace !== '' && state.settings.exemptNamespaces.has(namespace);
}

export function exemptUser(state: PodSecurityState, username: string | undefined): boolean {
  return !!username && state.settings.exemptUsernames.has(username);
}

export function exemptRuntimeClass(state: PodSecurityState, runtimeClassName: unknown): boolean {
  return (
    typeof runtimeClassName === 'string' &&
    runtimeClassName !== '' &&
    state.settings.exemptRuntimeClasses.has(runtimeClassName)
  );
}
