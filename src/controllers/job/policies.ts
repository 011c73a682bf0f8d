/**
 * spec.podFailurePolicy and spec.successPolicy (upstream's pod_failure_policy.go and success_policy.go): which rule
 * a failed pod matches and what it means for the Job, and whether the succeeded indexes meet a success rule.
 */
import { OrderedIntervals } from './indexes.js';
import type { Job, Pod } from './types.js';

export type PodFailurePolicyAction = 'FailJob' | 'FailIndex' | 'Ignore' | 'Count';

export interface PodFailurePolicyMatch {
  /** Set when a FailJob rule matched: the message of the Job's failure. */
  failJobMessage?: string;
  /** Whether the failure counts against backoffLimit (false for Ignore). */
  countFailed: boolean;
  action?: PodFailurePolicyAction;
}

interface ContainerStatus {
  name: string;
  state?: { terminated?: { exitCode?: number } };
}

function matchingContainer(statuses: unknown, requirement: Record<string, unknown>): ContainerStatus | undefined {
  const list: ContainerStatus[] = Array.isArray(statuses) ? statuses : [];
  const values: number[] = Array.isArray(requirement.values) ? (requirement.values as number[]) : [];
  for (const status of list) {
    const terminated = status?.state?.terminated;
    if (!terminated) continue;
    if (typeof requirement.containerName === 'string' && requirement.containerName !== status.name) continue;
    const code = Number(terminated.exitCode ?? 0);
    if (code === 0) continue;
    const listed = values.includes(code);
    if ((requirement.operator === 'In' && listed) || (requirement.operator === 'NotIn' && !listed)) return status;
  }
  return undefined;
}

/** Matches a failed pod against the rules in order; the first matching rule decides. */
export function matchPodFailurePolicy(job: Job, pod: Pod): PodFailurePolicyMatch {
  const policy = job.spec?.podFailurePolicy;
  if (!policy) return { countFailed: true };
  const rules: Record<string, unknown>[] = Array.isArray(policy.rules) ? policy.rules : [];
  const ns = pod.metadata.namespace ?? '';
  const name = pod.metadata.name ?? '';
  for (const [index, rule] of rules.entries()) {
    const action = rule.action as PodFailurePolicyAction;
    let failJobMessage: string | undefined;
    if (rule.onExitCodes) {
      const requirement = rule.onExitCodes as Record<string, unknown>;
      const status =
        matchingContainer(pod.status?.containerStatuses, requirement) ??
        matchingContainer(pod.status?.initContainerStatuses, requirement);
      if (!status) continue;
      failJobMessage = `Container ${status.name} for pod ${ns}/${name} failed with exit code ${status.state?.terminated?.exitCode} matching ${action} rule at index ${index}`;
    } else if (Array.isArray(rule.onPodConditions)) {
      const patterns = rule.onPodConditions as { type: string; status?: string }[];
      const podConditions: { type: string; status: string }[] = Array.isArray(pod.status?.conditions)
        ? pod.status.conditions
        : [];
      const condition = podConditions.find((c) =>
        patterns.some((p) => p.type === c.type && (p.status ?? 'True') === c.status),
      );
      if (!condition) continue;
      failJobMessage = `Pod ${ns}/${name} has condition ${condition.type} matching ${action} rule at index ${index}`;
    } else {
      continue;
    }
    switch (action) {
      case 'Ignore':
        return { countFailed: false, action };
      case 'Count':
      case 'FailIndex':
        return { countFailed: true, action };
      case 'FailJob':
        return { failJobMessage, countFailed: true, action };
    }
  }
  return { countFailed: true };
}

/** The message of a FailJob rule matched by one of the failed pods, if any. */
export function getFailJobMessage(job: Job, pods: readonly Pod[], isFailed: (pod: Pod) => boolean): string | undefined {
  if (!job.spec?.podFailurePolicy) return undefined;
  for (const pod of pods) {
    if (!isFailed(pod)) continue;
    const { failJobMessage } = matchPodFailurePolicy(job, pod);
    if (failJobMessage !== undefined) return failJobMessage;
  }
  return undefined;
}

/** `Matched rules at index <i>` when a success rule is met by the succeeded indexes; undefined otherwise. */
export function matchSuccessPolicy(job: Job, succeeded: OrderedIntervals): string | undefined {
  const rules: Record<string, unknown>[] = Array.isArray(job.spec?.successPolicy?.rules)
    ? job.spec.successPolicy.rules
    : [];
  if (rules.length === 0 || succeeded.total() === 0) return undefined;
  const completions = Number(job.spec?.completions ?? 0);
  for (const [index, rule] of rules.entries()) {
    const count = typeof rule.succeededCount === 'number' ? rule.succeededCount : undefined;
    if (typeof rule.succeededIndexes === 'string') {
      const required = OrderedIntervals.parse(rule.succeededIndexes, completions);
      if (required.total() === 0) continue;
      const contains = succeeded.overlapCount(required);
      if (contains === required.total() || (count !== undefined && contains >= count)) {
        return `Matched rules at index ${index}`;
      }
    } else if (count !== undefined && succeeded.total() >= count) {
      return `Matched rules at index ${index}`;
    }
  }
  return undefined;
}
