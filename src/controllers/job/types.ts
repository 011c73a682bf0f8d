/**
 * The shapes the Job controller reads: batch/v1 Jobs and core/v1 Pods as plain JSON, the label, annotation and
 * finalizer keys upstream puts on Job pods, and the small predicates over them (upstream's job util package).
 */
import type { KubeObject } from '../../client/types.js';

// biome-ignore lint/suspicious/noExplicitAny: Jobs and pods are plain JSON objects
export type Job = KubeObject & { spec?: any; status?: any };
// biome-ignore lint/suspicious/noExplicitAny: Jobs and pods are plain JSON objects
export type Pod = KubeObject & { spec?: any; status?: any };

export interface JobCondition {
  type: string;
  status: string;
  lastProbeTime?: string;
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

export const JOB_TRACKING_FINALIZER = 'batch.kubernetes.io/job-tracking';
export const JOB_COMPLETION_INDEX_ANNOTATION = 'batch.kubernetes.io/job-completion-index';
export const JOB_INDEX_FAILURE_COUNT_ANNOTATION = 'batch.kubernetes.io/job-index-failure-count';
export const JOB_INDEX_IGNORED_FAILURE_COUNT_ANNOTATION = 'batch.kubernetes.io/job-index-ignored-failure-count';
export const COMPLETION_INDEX_ENV = 'JOB_COMPLETION_INDEX';
/** The value of spec.managedBy that means this controller. */
export const JOB_CONTROLLER_NAME = 'kubernetes.io/job-controller';

export const JOB_KIND = { apiVersion: 'batch/v1', kind: 'Job' } as const;

/** RFC 3339 with second precision, as metav1.Time is written. */
export function rfc3339(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

export function conditions(job: Job): JobCondition[] {
  return Array.isArray(job.status?.conditions) ? job.status.conditions : [];
}

export function findCondition(list: readonly JobCondition[], type: string): JobCondition | undefined {
  return list.find((c) => c?.type === type);
}

/** Complete or Failed is True (upstream's IsJobFinished). */
export function isJobFinished(job: Job): boolean {
  return conditions(job).some((c) => (c.type === 'Complete' || c.type === 'Failed') && c.status === 'True');
}

export function isIndexedJob(job: Job): boolean {
  return job.spec?.completionMode === 'Indexed';
}

export function hasBackoffLimitPerIndex(job: Job): boolean {
  return typeof job.spec?.backoffLimitPerIndex === 'number';
}

export function isSuspended(job: Job): boolean {
  return job.spec?.suspend === true;
}

/** The managedBy value when another controller manages this Job; undefined when we do. */
export function managedByExternalController(job: Job): string | undefined {
  const managedBy = job.spec?.managedBy;
  return typeof managedBy === 'string' && managedBy !== JOB_CONTROLLER_NAME ? managedBy : undefined;
}

/** Replacement pods wait for the old pod to be Failed, not only terminating (podReplacementPolicy Failed). */
export function onlyReplaceFailedPods(job: Job): boolean {
  return job.spec?.podReplacementPolicy === 'Failed' || job.spec?.podFailurePolicy != null;
}

export function hasTrackingFinalizer(pod: Pod): boolean {
  return (pod.metadata.finalizers ?? []).includes(JOB_TRACKING_FINALIZER);
}

/**
 * A pod that counts as failed: phase Failed, or — unless replacements wait for Failed — deleted before it
 * succeeded (an orphan may never reach a terminal phase).
 */
export function isPodFailed(pod: Pod, job: Job): boolean {
  const phase = pod.status?.phase;
  if (phase === 'Failed') return true;
  if (onlyReplaceFailedPods(job)) return false;
  return !!pod.metadata.deletionTimestamp && phase !== 'Succeeded';
}

/** The completion index annotation as a non-negative integer; -1 when missing or not a number. */
export function getCompletionIndex(pod: Pod): number {
  const value = pod.metadata.annotations?.[JOB_COMPLETION_INDEX_ANNOTATION];
  if (value === undefined || !/^[+-]?\d+$/.test(value)) return -1;
  const n = Number(value);
  return n >= 0 && Number.isSafeInteger(n) ? n : -1;
}

/** An annotation as a non-negative int32, 0 when missing or invalid. */
export function int32Annotation(pod: Pod, key: string): number {
  const value = pod.metadata.annotations?.[key];
  if (value === undefined || !/^[+-]?\d+$/.test(value)) return 0;
  const n = Number(value);
  return n >= 0 && n <= 2147483647 ? n : 0;
}

export function isPodReady(pod: Pod): boolean {
  const list = Array.isArray(pod.status?.conditions) ? pod.status.conditions : [];
  return list.some((c: JobCondition) => c?.type === 'Ready' && c.status === 'True');
}
