/**
 * The Jobs a CronJob makes and keeps (upstream's getJobFromTemplate2, getJobName, IsJobFinished and
 * byJobStartTime, and the status.active list helpers).
 */
import { formatRFC3339, isKnownTimeZone } from '../../api/cron/index.js';
import type { KubeObject } from '../../client/types.js';
import { newControllerRef } from '../common/controller-ref.js';

export const CRONJOB_KIND = { apiVersion: 'batch/v1', kind: 'CronJob' };

/** Upstream's batchv1.CronJobScheduledTimestampAnnotation. */
export const SCHEDULED_TIMESTAMP_ANNOTATION = 'batch.kubernetes.io/cronjob-scheduled-timestamp';

type Rec = Record<string, unknown>;
const rec = (v: unknown): Rec => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Rec) : {});
const recs = (v: unknown): Rec[] => (Array.isArray(v) ? v.map(rec) : []);

/** An entry of status.active (a core/v1 ObjectReference). */
export interface ActiveRef {
  kind?: string;
  namespace?: string;
  name?: string;
  uid?: string;
  apiVersion?: string;
  resourceVersion?: string;
}

export function timeZoneOf(cj: KubeObject): string | undefined {
  const tz = rec(cj.spec).timeZone;
  return typeof tz === 'string' ? tz : undefined;
}

/** `<cronjob>-<scheduled time in minutes since the epoch>`: one name per scheduled time, so a retry cannot double it. */
export function jobName(cj: KubeObject, scheduledTime: number): string {
  return `${cj.metadata.name ?? ''}-${Math.floor(scheduledTime / 60_000)}`;
}

/** A Job from the CronJob's jobTemplate for one scheduled time. */
export function jobFromTemplate(cj: KubeObject, scheduledTime: number): KubeObject {
  const template = rec(rec(cj.spec).jobTemplate);
  const meta = rec(template.metadata);
  const labels = { ...(rec(meta.labels) as Record<string, string>) };
  const annotations = { ...(rec(meta.annotations) as Record<string, string>) };
  const zone = timeZoneOf(cj) ?? '';
  if (!isKnownTimeZone(zone)) throw new Error(`unknown time zone ${zone}`);
  annotations[SCHEDULED_TIMESTAMP_ANNOTATION] = formatRFC3339(zone === '' ? 'UTC' : zone, scheduledTime);
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: {
      name: jobName(cj, scheduledTime),
      ...(Object.keys(labels).length > 0 ? { labels } : {}),
      annotations,
      ownerReferences: [newControllerRef(cj, CRONJOB_KIND)],
    },
    spec: structuredClone(rec(template.spec)),
  };
}

/** The type of the Job's finishing condition (Complete or Failed with status True), if it has finished. */
export function finishedCondition(job: KubeObject): 'Complete' | 'Failed' | undefined {
  for (const c of recs(rec(job.status).conditions)) {
    if ((c.type === 'Complete' || c.type === 'Failed') && c.status === 'True') return c.type;
  }
  return undefined;
}

export const isJobFinished = (job: KubeObject) => finishedCondition(job) !== undefined;

/** Upstream's IsJobSucceeded: a Complete condition with status True. */
export const isJobSucceeded = (job: KubeObject) =>
  recs(rec(job.status).conditions).some((c) => c.type === 'Complete' && c.status === 'True');

/** Jobs by status.startTime, those without one last, names breaking ties. */
export function byJobStartTime(a: KubeObject, b: KubeObject): number {
  const sa = rec(a.status).startTime;
  const sb = rec(b.status).startTime;
  if (typeof sa !== 'string' && typeof sb === 'string') return 1;
  if (typeof sa === 'string' && typeof sb !== 'string') return -1;
  const ta = typeof sa === 'string' ? Date.parse(sa) : 0;
  const tb = typeof sb === 'string' ? Date.parse(sb) : 0;
  if (ta === tb) {
    const na = a.metadata.name ?? '';
    const nb = b.metadata.name ?? '';
    return na < nb ? -1 : na > nb ? 1 : 0;
  }
  return ta - tb;
}

export function activeList(cj: KubeObject): ActiveRef[] {
  return recs(rec(cj.status).active) as ActiveRef[];
}

export function inActiveList(cj: KubeObject, uid: string | undefined): boolean {
  return activeList(cj).some((j) => j.uid === uid);
}

export function inActiveListByName(cj: KubeObject, namespace: string, name: string): boolean {
  return activeList(cj).some((j) => j.name === name && j.namespace === namespace);
}

export function deleteFromActiveList(cj: KubeObject, uid: string | undefined): void {
  const status = rec(cj.status);
  const active = activeList(cj).filter((j) => j.uid !== uid);
  // An empty list is left out, as Go's omitempty leaves it.
  if (active.length > 0) status.active = active;
  else delete status.active;
  cj.status = status;
}

/** A Job's object reference for status.active (client-go's reference.GetReference). */
export function jobReference(job: KubeObject): ActiveRef {
  return {
    kind: 'Job',
    namespace: job.metadata.namespace ?? '',
    name: job.metadata.name ?? '',
    uid: job.metadata.uid ?? '',
    apiVersion: 'batch/v1',
    resourceVersion: job.metadata.resourceVersion ?? '',
  };
}
