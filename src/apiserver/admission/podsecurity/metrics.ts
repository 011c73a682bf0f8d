/**
 * PodSecurity's metrics, with upstream's names and labels: pod_security_evaluations_total (per decision, policy
 * level and version, mode, operation, resource kind, subresource), pod_security_exemptions_total and
 * pod_security_errors_total. Versions newer than this server's (v1.33) are labelled `future`, privileged and
 * `latest` policies `latest`, as upstream does.
 */
import { Counter, Registry } from 'prom-client';
import type { AdmissionAttributes } from '../types.js';
import type { LevelVersion } from './levels.js';

/** The Kubernetes minor version this server implements. */
const SERVER_MINOR = 33;

export type Mode = 'enforce' | 'audit' | 'warn';

export interface PodSecurityRecorder {
  evaluation(decision: 'allow' | 'deny', policy: LevelVersion, mode: Mode, attrs: AdmissionAttributes): void;
  exemption(attrs: AdmissionAttributes): void;
  error(fatal: boolean, attrs: AdmissionAttributes): void;
}

export const NO_METRICS: PodSecurityRecorder = { evaluation() {}, exemption() {}, error() {} };

function resourceLabel(attrs: AdmissionAttributes): string {
  if (attrs.resource.group !== '') return 'controller';
  if (attrs.resource.resource === 'pods') return 'pod';
  if (attrs.resource.resource === 'namespaces') return 'namespace';
  return 'controller';
}

function requestLabels(attrs: AdmissionAttributes) {
  return {
    request_operation: attrs.operation.toLowerCase(),
    resource: resourceLabel(attrs),
    subresource: attrs.subresource,
  };
}

function versionLabel(policy: LevelVersion): string {
  if (policy.version.latest || policy.level === 'privileged') return 'latest';
  return policy.version.minor > SERVER_MINOR ? 'future' : `v1.${policy.version.minor}`;
}

export class PodSecurityMetrics implements PodSecurityRecorder {
  readonly registry = new Registry();
  /**
   * Evaluations counted by label set until the next scrape adds them to the counter: there is one for nearly every
   * pod write, and prom-client would build and hash a label object for each.
   */
  private readonly evaluated = new Map<string, { labels: Record<string, string>; n: number }>();
  private readonly evaluations = new Counter({
    name: 'pod_security_evaluations_total',
    help: 'Number of policy evaluations that occurred, not counting ignored or exempt requests.',
    labelNames: ['decision', 'policy_level', 'policy_version', 'mode', 'request_operation', 'resource', 'subresource'],
    registers: [this.registry],
    collect: () => {
      for (const e of this.evaluated.values()) {
        if (e.n === 0) continue;
        this.evaluations.inc(e.labels, e.n);
        e.n = 0;
      }
    },
  });
  private readonly exemptions = new Counter({
    name: 'pod_security_exemptions_total',
    help: 'Number of exempt requests, not counting ignored or out of scope requests.',
    labelNames: ['request_operation', 'resource', 'subresource'],
    registers: [this.registry],
  });
  private readonly errors = new Counter({
    name: 'pod_security_errors_total',
    help: 'Number of errors preventing normal evaluation. Non-fatal errors may result in the latest restricted profile being used for evaluation.',
    labelNames: ['fatal', 'request_operation', 'resource', 'subresource'],
    registers: [this.registry],
  });

  /** The label set of the last evaluation counted, for a run of like requests (the pods of one namespace). */
  private last:
    | {
        decision: string;
        policy: LevelVersion;
        mode: Mode;
        operation: string;
        group: string;
        resource: string;
        subresource: string;
        entry: { n: number };
      }
    | undefined;

  evaluation(decision: 'allow' | 'deny', policy: LevelVersion, mode: Mode, attrs: AdmissionAttributes): void {
    const last = this.last;
    const { group, resource } = attrs.resource;
    if (
      last !== undefined &&
      last.policy === policy &&
      last.decision === decision &&
      last.mode === mode &&
      last.operation === attrs.operation &&
      last.group === group &&
      last.resource === resource &&
      last.subresource === attrs.subresource
    ) {
      last.entry.n++;
      return;
    }
    const version = versionLabel(policy);
    const key = `${decision} ${policy.level} ${version} ${mode} ${attrs.operation} ${attrs.resource.group}/${attrs.resource.resource}/${attrs.subresource}`;
    let entry = this.evaluated.get(key);
    if (entry) entry.n++;
    else {
      const labels = { decision, policy_level: policy.level, policy_version: version, mode, ...requestLabels(attrs) };
      entry = { labels, n: 1 };
      this.evaluated.set(key, entry);
    }
    // The policy object stands for its level and version while the namespace's labels do not change.
    this.last = {
      decision,
      policy,
      mode,
      operation: attrs.operation,
      group,
      resource,
      subresource: attrs.subresource,
      entry,
    };
  }

  exemption(attrs: AdmissionAttributes): void {
    this.exemptions.inc(requestLabels(attrs));
  }

  error(fatal: boolean, attrs: AdmissionAttributes): void {
    this.errors.inc({ fatal: String(fatal), ...requestLabels(attrs) });
  }
}
