/**
 * What controllers that own pods share (upstream's pkg/controller controller_utils.go and podutil):
 *
 * - Predicates: `isPodActive` (not Succeeded/Failed, no deletionTimestamp), `isPodTerminating`, `isPodReady`,
 *   `getPodReadyCondition`, `podReadyTime` (ms, or undefined), `isPodAvailable(pod, minReadySeconds, nowMs)`,
 *   `podAvailableAt(pod, minReadySeconds)` (the ms after which it counts as available), `filterActivePods`.
 * - `podKey(pod)`: its `namespace/name`, the key informers file it under.
 * - Ranking for scale-down (`compareActivePodsWithRanks`, `sortActivePodsWithRanks`), upstream's
 *   ActivePodsWithRanks: the first pods of the sorted list are the ones to delete.
 * - `POD_CONTROLLER_UID_INDEX` / `podControllerUidIndexFunc` / `filterPodsByOwner`: pods indexed by controller uid,
 *   orphans by namespace, so an owner reads only its own pods and the orphans it could adopt.
 * - `getPodFromTemplate(template, owner, controllerRef)` and `PodControl` (creates pods with `SuccessfulCreate` /
 *   `FailedCreate` events, deletes them with `SuccessfulDelete` / `FailedDelete`, upstream's messages).
 * - `slowStartBatch(count, initialBatchSize, fn)`: calls fn count times in batches of 1, 2, 4… and stops after the
 *   first batch in which a call failed.
 * - `withoutServiceAccountAlias(spec)`: a pod spec without the deprecated `serviceAccount`, for comparing templates.
 *
 * Times: timestamps are RFC 3339 strings; functions here take and return epoch milliseconds.
 */

import type { Indexer } from '../../client/cache/store.js';
import type { EventRecorder } from '../../client/events/broadcaster.js';
import { ApiError, isNotFound, type KubeObject, type OwnerReference, type ResourceClient } from '../../client/types.js';
import { deepClone } from '../../util/clone.js';
import type { Logger } from '../../util/logger.js';
import { getControllerOf } from './controller-ref.js';

// biome-ignore lint/suspicious/noExplicitAny: pods are plain JSON objects
type Pod = KubeObject & { spec?: any; status?: any };

/** Upstream's pod-deletion-cost annotation: pods with a lower cost are deleted first on scale-down. */
export const POD_DELETION_COST_ANNOTATION = 'controller.kubernetes.io/pod-deletion-cost';

/** Upstream's event reasons of pod control. */
export const FAILED_CREATE_POD_REASON = 'FailedCreate';
export const SUCCESSFUL_CREATE_POD_REASON = 'SuccessfulCreate';
export const FAILED_DELETE_POD_REASON = 'FailedDelete';
export const SUCCESSFUL_DELETE_POD_REASON = 'SuccessfulDelete';

/** Parses a metav1.Time; undefined for a missing (zero) or unreadable time. */
export function parseTime(value: unknown): number | undefined {
  if (typeof value !== 'string' || value === '') return undefined;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? undefined : ms;
}

/** A pod's `namespace/name`, the key informers file it under. */
export function podKey(pod: KubeObject): string {
  return `${pod.metadata.namespace ?? ''}/${pod.metadata.name ?? ''}`;
}

export function isPodActive(pod: Pod): boolean {
  const phase = pod.status?.phase;
  return phase !== 'Succeeded' && phase !== 'Failed' && !pod.metadata.deletionTimestamp;
}

/** Being deleted but not yet in a terminal phase (upstream's IsPodTerminating). */
export function isPodTerminating(pod: Pod): boolean {
  const phase = pod.status?.phase;
  return phase !== 'Succeeded' && phase !== 'Failed' && !!pod.metadata.deletionTimestamp;
}

export function filterActivePods<T extends Pod>(pods: readonly T[]): T[] {
  return pods.filter(isPodActive);
}

export interface PodCondition {
  type: string;
  status: string;
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

export function getPodReadyCondition(pod: Pod): PodCondition | undefined {
  const conditions: PodCondition[] = pod.status?.conditions ?? [];
  return conditions.find((c) => c?.type === 'Ready');
}

export function isPodReady(pod: Pod): boolean {
  return getPodReadyCondition(pod)?.status === 'True';
}

/** When the pod last became ready (ms); undefined when it is not ready or the time is not set. */
export function podReadyTime(pod: Pod): number | undefined {
  if (!isPodReady(pod)) return undefined;
  return parseTime(getPodReadyCondition(pod)?.lastTransitionTime);
}

/**
 * Ready for more than minReadySeconds at nowMs (upstream's IsPodAvailable: with minReadySeconds 0, ready is enough;
 * otherwise the Ready condition's lastTransitionTime plus minReadySeconds must be strictly before now).
 */
export function isPodAvailable(pod: Pod, minReadySeconds: number, nowMs: number): boolean {
  if (!isPodReady(pod)) return false;
  if (!minReadySeconds) return true;
  const since = parseTime(getPodReadyCondition(pod)?.lastTransitionTime);
  return since !== undefined && since + minReadySeconds * 1000 < nowMs;
}

/**
 * For a ready pod not yet available: the time (ms) after which isPodAvailable turns true; undefined for a pod that
 * is not ready or whose ready time is unknown.
 */
export function podAvailableAt(pod: Pod, minReadySeconds: number): number | undefined {
  const since = podReadyTime(pod);
  return since === undefined ? undefined : since + (minReadySeconds || 0) * 1000;
}

// Scale-down ranking.

const PHASE_ORDINAL: Readonly<Record<string, number>> = { Pending: 0, Unknown: 1, Running: 2 };

function phaseOrdinal(pod: Pod): number {
  const phase = pod.status?.phase;
  return typeof phase === 'string' && Object.hasOwn(PHASE_ORDINAL, phase) ? (PHASE_ORDINAL[phase] ?? 0) : 0;
}

/** The pod-deletion-cost annotation as an int32; 0 when missing or invalid (no '+', no leading zeros). */
export function podDeletionCost(pod: Pod): number {
  const value = pod.metadata.annotations?.[POD_DELETION_COST_ANNOTATION];
  if (value === undefined) return 0;
  // Upstream refuses a leading '+' and leading zeros ("0" itself is fine; a '-' may be followed by any digits).
  const firstOk = value.startsWith('-') || value === '0' || /^[1-9]/.test(value);
  if (!firstOk || !/^-?[0-9]+$/.test(value)) return 0;
  const n = Number(value);
  return n >= -(2 ** 31) && n < 2 ** 31 ? n : 0;
}

/** The highest restart count of the regular containers and of the sidecars (restartable init containers). */
function maxContainerRestarts(pod: Pod): { regular: number; sidecar: number } {
  let regular = 0;
  for (const c of pod.status?.containerStatuses ?? []) regular = Math.max(regular, Number(c?.restartCount ?? 0));
  const sidecars = new Set<string>();
  for (const c of pod.spec?.initContainers ?? []) if (c?.restartPolicy === 'Always') sidecars.add(c.name);
  let sidecar = 0;
  for (const c of pod.status?.initContainerStatuses ?? []) {
    if (sidecars.has(c?.name)) sidecar = Math.max(sidecar, Number(c?.restartCount ?? 0));
  }
  return { regular, sidecar };
}

/** afterOrZero: a missing time sorts first; otherwise the later time first. Negative when a goes first. */
function compareAfterOrZero(a: number | undefined, b: number | undefined): number {
  if (a === undefined || b === undefined) return a === undefined ? -1 : 1;
  return a > b ? -1 : 1;
}

/** floor(log2(now - t)) with the age in nanoseconds as upstream measures it; -1 for an age of zero or less. */
function logRank(t: number, nowMs: number): number {
  const ageNs = (nowMs - t) * 1e6;
  return ageNs > 0 ? Math.floor(Math.log2(ageNs)) : -1;
}

/**
 * Compares two timestamps where the more recent should go first, bucketing ages by powers of two (upstream's
 * LogarithmicScaleDown) with the uid as tie-breaker within a bucket.
 */
function compareRecentFirst(a: number | undefined, b: number | undefined, uidA: string, uidB: string, nowMs: number) {
  if (a === undefined || b === undefined || !nowMs) return compareAfterOrZero(a, b);
  const diff = logRank(a, nowMs) - logRank(b, nowMs);
  if (diff === 0) return uidA < uidB ? -1 : uidA > uidB ? 1 : 0;
  return diff;
}

/**
 * Upstream's ActivePodsWithRanks.Less as a comparator: negative when pod a should be deleted before pod b.
 * rankA/rankB count the related pods on each pod's node (more goes first). The order:
 * unassigned < assigned; Pending < Unknown < Running; not ready < ready; lower pod-deletion-cost first; higher
 * rank first; ready more recently first (log-bucketed); more container restarts first; created more recently
 * first (log-bucketed).
 */
export function compareActivePodsWithRanks(a: Pod, rankA: number, b: Pod, rankB: number, nowMs: number): number {
  const nodeA: string = a.spec?.nodeName ?? '';
  const nodeB: string = b.spec?.nodeName ?? '';
  if (nodeA !== nodeB && (nodeA === '' || nodeB === '')) return nodeA === '' ? -1 : 1;
  const phaseA = phaseOrdinal(a);
  const phaseB = phaseOrdinal(b);
  if (phaseA !== phaseB) return phaseA - phaseB;
  const readyA = isPodReady(a);
  const readyB = isPodReady(b);
  if (readyA !== readyB) return readyA ? 1 : -1;
  const costA = podDeletionCost(a);
  const costB = podDeletionCost(b);
  if (costA !== costB) return costA - costB;
  if (rankA !== rankB) return rankB - rankA;
  const uidA = a.metadata.uid ?? '';
  const uidB = b.metadata.uid ?? '';
  if (readyA && readyB) {
    const timeA = podReadyTime(a);
    const timeB = podReadyTime(b);
    if (timeA !== timeB) return compareRecentFirst(timeA, timeB, uidA, uidB, nowMs);
  }
  const restartsA = maxContainerRestarts(a);
  const restartsB = maxContainerRestarts(b);
  if (restartsA.regular !== restartsB.regular) return restartsB.regular - restartsA.regular;
  if (restartsA.sidecar !== restartsB.sidecar) return restartsB.sidecar - restartsA.sidecar;
  const createdA = parseTime(a.metadata.creationTimestamp);
  const createdB = parseTime(b.metadata.creationTimestamp);
  if (createdA !== createdB) return compareRecentFirst(createdA, createdB, uidA, uidB, nowMs);
  return 0;
}

/** The pods sorted for deletion (first = deleted first); ranks[i] belongs to pods[i]. */
export function sortActivePodsWithRanks<T extends Pod>(
  pods: readonly T[],
  ranks: readonly number[],
  nowMs: number,
): T[] {
  const entries = pods.map((pod, i) => ({ pod, rank: ranks[i] ?? 0 }));
  entries.sort((x, y) => compareActivePodsWithRanks(x.pod, x.rank, y.pod, y.rank, nowMs));
  return entries.map((e) => e.pod);
}

// The index of pods by controller.

/** Name of the pod index by controller uid (orphans under a per-namespace key). */
export const POD_CONTROLLER_UID_INDEX = 'podControllerUID';
const ORPHAN_POD_INDEX_KEY = '_ORPHAN_POD';

/** The index value of the orphan pods of a namespace. */
export function orphanPodIndexKey(namespace: string): string {
  return `${ORPHAN_POD_INDEX_KEY}/${namespace}`;
}

/** Indexes a pod under its controller's uid, or as an orphan of its namespace. */
export function podControllerUidIndexFunc(pod: KubeObject): string[] {
  const ref = getControllerOf(pod);
  return [ref ? ref.uid : orphanPodIndexKey(pod.metadata.namespace ?? '')];
}

/** The pods controlled by owner plus the orphans of its namespace (the pod indexer must have the index above). */
export function filterPodsByOwner<T extends KubeObject>(indexer: Indexer<T>, owner: KubeObject): T[] {
  const { uid = '', namespace = '' } = owner.metadata;
  return [
    ...indexer.byIndex(POD_CONTROLLER_UID_INDEX, uid),
    ...indexer.byIndex(POD_CONTROLLER_UID_INDEX, orphanPodIndexKey(namespace)),
  ];
}

// Creating and deleting pods.

export interface PodTemplateSpec {
  metadata?: { labels?: Record<string, string>; annotations?: Record<string, string>; finalizers?: string[] };
  // biome-ignore lint/suspicious/noExplicitAny: the pod spec is passed through as it is
  spec?: any;
}

/** `<owner>-` as generateName, or the owner's name alone when the dash would make the prefix too long. */
export function podNamePrefix(ownerName: string): string {
  return ownerName.length + 1 > 253 ? ownerName : `${ownerName}-`;
}

/** A pod for template, owned by controllerRef (upstream's GetPodFromTemplate). */
export function getPodFromTemplate(
  template: PodTemplateSpec | undefined,
  owner: KubeObject,
  controllerRef: OwnerReference | undefined,
): Pod {
  const meta = template?.metadata ?? {};
  const pod: Pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      generateName: podNamePrefix(owner.metadata.name ?? ''),
      ...(meta.labels ? { labels: { ...meta.labels } } : {}),
      ...(meta.annotations ? { annotations: { ...meta.annotations } } : {}),
      ...(meta.finalizers ? { finalizers: [...meta.finalizers] } : {}),
      ...(controllerRef ? { ownerReferences: [{ ...controllerRef }] } : {}),
    },
    spec: deepClone(template?.spec ?? {}),
  };
  return pod;
}

/** Whether the apiserver refused a create because the namespace is being deleted. */
export function isNamespaceTerminatingError(err: unknown): boolean {
  return (
    err instanceof ApiError && (err.status.details?.causes ?? []).some((cause) => cause.type === 'NamespaceTerminating')
  );
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/**
 * Creates and deletes pods for an owner and records upstream's events on it (upstream's RealPodControl). The owner
 * given as the event subject must carry apiVersion and kind.
 */
export class PodControl {
  constructor(
    /** core/v1 pods (any namespace scope; the given namespace is used). */
    private readonly pods: ResourceClient,
    private readonly recorder: EventRecorder,
    private readonly logger: Logger,
  ) {}

  /** Creates one pod from template for owner; rejects with the apiserver's error. */
  async createPods(
    namespace: string,
    template: PodTemplateSpec | undefined,
    owner: KubeObject,
    controllerRef: OwnerReference,
    generateName?: string,
  ): Promise<KubeObject> {
    if (!controllerRef.controller) throw new Error('controllerRef.Controller is not set to true');
    if (!controllerRef.blockOwnerDeletion) throw new Error('controllerRef.BlockOwnerDeletion is not set');
    const pod = getPodFromTemplate(template, owner, controllerRef);
    if (generateName) pod.metadata.generateName = generateName;
    if (Object.keys(pod.metadata.labels ?? {}).length === 0) throw new Error('unable to create pods, no labels');
    let created: KubeObject;
    try {
      created = await this.pods.namespace(namespace).create(pod);
    } catch (err) {
      if (!isNamespaceTerminatingError(err)) {
        this.recorder.event(owner, 'Warning', FAILED_CREATE_POD_REASON, `Error creating: ${message(err)}`);
      }
      throw err;
    }
    this.logger.v(4).info('Controller created pod', { controller: owner.metadata.name, pod: created.metadata.name });
    this.recorder.event(owner, 'Normal', SUCCESSFUL_CREATE_POD_REASON, `Created pod: ${created.metadata.name}`);
    return created;
  }

  /** Deletes a pod; rejects with NotFound as it came (the caller decides), other failures after an event. */
  async deletePod(namespace: string, name: string, owner: KubeObject): Promise<void> {
    this.logger.v(2).info('Deleting pod', { controller: owner.metadata.name, pod: `${namespace}/${name}` });
    try {
      await this.pods.namespace(namespace).delete(name);
    } catch (err) {
      if (isNotFound(err)) throw err;
      this.recorder.event(owner, 'Warning', FAILED_DELETE_POD_REASON, `Error deleting: ${message(err)}`);
      throw new Error(`unable to delete pods: ${message(err)}`);
    }
    this.recorder.event(owner, 'Normal', SUCCESSFUL_DELETE_POD_REASON, `Deleted pod: ${name}`);
  }
}

/**
 * Calls fn count times, in batches of initialBatchSize, then twice as many each time (1, 2, 4… by default), the
 * calls of one batch concurrently. Stops after the first batch in which a call failed, so that a systematic failure
 * (quota, admission) costs one call rather than count. Answers how many calls succeeded and the first error.
 */
export async function slowStartBatch(
  count: number,
  initialBatchSize: number,
  fn: () => Promise<void>,
): Promise<{ successes: number; error?: unknown }> {
  let remaining = count;
  let successes = 0;
  for (let batch = Math.min(remaining, initialBatchSize); batch > 0; batch = Math.min(2 * batch, remaining)) {
    const results = await Promise.allSettled(Array.from({ length: batch }, () => fn()));
    const failures = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    successes += batch - failures.length;
    if (failures.length > 0) return { successes, error: failures[0]?.reason };
    remaining -= batch;
  }
  return { successes };
}

/** Upstream's SlowStartInitialBatchSize. */
export const SLOW_START_INITIAL_BATCH_SIZE = 1;

/**
 * A pod spec without `serviceAccount`, an alias the apiserver keeps equal to `serviceAccountName` and missing from
 * templates stored before wheelhouse wrote it (upstream, converting on every read, never sees such a difference):
 * for comparing templates. The spec itself when it has none, else a copy.
 */
export function withoutServiceAccountAlias<T extends object>(spec: T): T {
  if (!('serviceAccount' in spec)) return spec;
  const { serviceAccount: _alias, ...rest } = spec as T & { serviceAccount?: unknown };
  return rest as T;
}
