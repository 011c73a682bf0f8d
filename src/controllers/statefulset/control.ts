/**
 * One StatefulSet's reconciliation (upstream's defaultStatefulSetControl, in our own code), given the pods it owns:
 *
 * 1. Revisions: the set's current template is the update revision (an equal older revision is renumbered, as a
 *    rollback; otherwise a new ControllerRevision is created, bumping collisionCount on a name clash); the current
 *    revision is the one status.currentRevision names.
 * 2. Pods are split into the wanted ordinals `[start, start + replicas)` and the condemned rest. Each wanted slot
 *    without a pod gets a new one at the revision its ordinal should have; failed or succeeded pods are deleted
 *    (to be recreated next time); pending pods get their missing claims; identities, volumes and claim owners are
 *    repaired. Under OrderedReady ("monotonic") work stops at the first pod not yet created, terminating, or not
 *    Running, Ready and available — so pods come up one at a time in ordinal order; under Parallel all at once.
 * 3. Condemned pods are deleted highest ordinal first, under OrderedReady one at a time and only once every
 *    other pod is healthy (the first unhealthy pod itself may go).
 * 4. RollingUpdate: the pod with the highest ordinal ≥ partition that is not at the update revision is deleted
 *    (it is recreated at the update revision by step 2), one at a time, waiting for unavailable pods. OnDelete
 *    leaves it to the user.
 * 5. The status is written, and revisions beyond revisionHistoryLimit that no pod uses are deleted.
 */
import { LabelSelector } from '../../api/labels.js';
import type { Indexer } from '../../client/cache/store.js';
import { isNotFound, type ResourceClient } from '../../client/types.js';
import type { Clock } from '../../util/clock.js';
import type { Logger } from '../../util/logger.js';
import { aggregateMessage } from '../common/controller-ref.js';
import {
  type ControllerHistory,
  type ControllerRevision,
  equalRevision,
  findEqualRevisions,
  nextRevision,
  revisionsBeyondLimit,
  sortControllerRevisions,
} from '../history/index.js';
import {
  allowsBurst,
  descendingOrdinal,
  getOrdinal,
  getPodRevision,
  identityMatches,
  isCreated,
  isFailed,
  isPending,
  isRunningAndAvailable,
  isRunningAndReady,
  isSucceeded,
  isTerminating,
  isUnavailable,
  newVersionedStatefulSetPod,
  podInOrdinalRange,
  startOrdinal,
  storageMatches,
} from './identity.js';
import type { StatefulPodControl } from './pod-control.js';
import { applyRevision, newRevision } from './revisions.js';
import { countReplicas, updateStatefulSetStatus, type WorkingStatus } from './status.js';
import type { Pod, StatefulSet } from './types.js';

/** Upstream's MaxBatchSize: the largest batch of concurrent calls under Parallel. */
export const MAX_BATCH_SIZE = 500;

export interface StatefulSetControlDeps {
  podControl: StatefulPodControl;
  history: ControllerHistory;
  setClient: ResourceClient;
  setIndexer: Indexer;
  clock: Clock;
  logger: Logger;
}

type Step = (i: number) => Promise<boolean>;

/** Calls fn for 0..count-1 in concurrent batches of 1, 2, 4… (at most MAX_BATCH_SIZE); stops after a failing batch. */
async function slowStartBatch(count: number, fn: Step): Promise<void> {
  let remaining = count;
  let next = 0;
  for (let size = Math.min(remaining, 1); size > 0; size = Math.min(2 * size, remaining, MAX_BATCH_SIZE)) {
    const indices = Array.from({ length: size }, () => next++);
    const results = await Promise.allSettled(indices.map((i) => fn(i)));
    const errors = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected').map((r) => r.reason);
    if (errors.length > 0) throw errors.length === 1 ? errors[0] : new Error(aggregateMessage(errors));
    remaining -= size;
  }
}

/**
 * Runs fn over count items: in order, stopping at the first that asks to (monotonic), or all in slow-start batches.
 * Answers whether the caller should stop here.
 */
async function runForAll(count: number, fn: Step, monotonic: boolean): Promise<boolean> {
  if (monotonic) {
    for (let i = 0; i < count; i++) if (await fn(i)) return true;
    return false;
  }
  await slowStartBatch(count, fn);
  return false;
}

export class StatefulSetControl {
  constructor(private readonly deps: StatefulSetControlDeps) {}

  /** The revisions of set (owned, or orphans its selector matches), oldest first. */
  listRevisions(set: StatefulSet): ControllerRevision[] {
    return sortControllerRevisions(this.deps.history.list(set, LabelSelector.fromObject(set.spec.selector)));
  }

  /** Reconciles set with its pods; resolves with the status it computed (and wrote). */
  async updateStatefulSet(cached: StatefulSet, pods: Pod[]): Promise<WorkingStatus> {
    const set = structuredClone(cached);
    const revisions = this.listRevisions(set);
    let current: ControllerRevision | undefined;
    let update: ControllerRevision | undefined;
    let status: WorkingStatus | undefined;
    const errors: unknown[] = [];
    try {
      const found = await this.getStatefulSetRevisions(set, revisions);
      current = found.current;
      update = found.update;
      let syncError: unknown;
      try {
        status = await this.sync(set, found.current, found.update, found.collisionCount, pods);
      } catch (err) {
        syncError = err;
        status = (err as { status?: WorkingStatus }).status;
      }
      if (status) {
        try {
          await updateStatefulSetStatus(this.deps.setClient, this.deps.setIndexer, set, status);
        } catch (err) {
          if (syncError === undefined) syncError = err;
          else this.deps.logger.error('Could not update status', { statefulSet: key(set), err: String(err) });
        }
      }
      if (syncError !== undefined) errors.push(syncError);
    } catch (err) {
      errors.push(err);
    }
    try {
      await this.truncateHistory(set, pods, revisions, current, update);
    } catch (err) {
      errors.push(err);
    }
    if (errors.length === 1) throw errors[0];
    if (errors.length > 1) throw new Error(aggregateMessage(errors));
    return status as WorkingStatus;
  }

  /** Deletes the oldest revisions no pod, nor the current or update revision, uses, beyond revisionHistoryLimit. */
  private async truncateHistory(
    set: StatefulSet,
    pods: readonly Pod[],
    revisions: readonly ControllerRevision[],
    current: ControllerRevision | undefined,
    update: ControllerRevision | undefined,
  ): Promise<void> {
    const limit = set.spec.revisionHistoryLimit ?? 10;
    if (limit < 0) return;
    const live = new Set<string>();
    if (current?.metadata.name) live.add(current.metadata.name);
    if (update?.metadata.name) live.add(update.metadata.name);
    for (const pod of pods) live.add(getPodRevision(pod));
    for (const old of revisionsBeyondLimit(revisions, limit, live)) await this.deps.history.delete(old);
  }

  /** The current and update revisions of set, creating or renumbering the update revision as needed. */
  async getStatefulSetRevisions(
    set: StatefulSet,
    revisions: ControllerRevision[],
  ): Promise<{ current: ControllerRevision; update: ControllerRevision; collisionCount: number }> {
    let collisionCount = set.status?.collisionCount ?? 0;
    let update = newRevision(set, nextRevision(revisions), collisionCount);
    const equal = findEqualRevisions(revisions, update);
    const last = revisions[revisions.length - 1];
    const lastEqual = equal[equal.length - 1];
    if (lastEqual && last && equalRevision(last, lastEqual)) {
      // Nothing changed since the latest revision.
      update = last;
    } else if (lastEqual) {
      // Back to an earlier template: that revision becomes the newest.
      update = await this.deps.history.update(lastEqual, update.revision ?? 0);
    } else {
      const created = await this.deps.history.create(set, update, collisionCount);
      update = created.revision;
      collisionCount = created.collisionCount;
    }
    const current = revisions.find((r) => r.metadata.name === set.status?.currentRevision) ?? update;
    return { current, update, collisionCount };
  }

  /** Steps 2–4; rejects with an error carrying the status computed so far (`status`). */
  private async sync(
    set: StatefulSet,
    currentRevision: ControllerRevision,
    updateRevision: ControllerRevision,
    collisionCount: number,
    pods: Pod[],
  ): Promise<WorkingStatus> {
    const { podControl, clock, logger } = this.deps;
    const currentSet = applyRevision(set, currentRevision);
    const updateSet = applyRevision(set, updateRevision);
    const currentName = currentRevision.metadata.name ?? '';
    const updateName = updateRevision.metadata.name ?? '';
    const minReadySeconds = set.spec.minReadySeconds ?? 0;
    const now = () => clock.now();

    const status: WorkingStatus = {
      observedGeneration: set.metadata.generation ?? 0,
      currentRevision: currentName,
      updateRevision: updateName,
      collisionCount,
      ...countReplicas(pods, minReadySeconds, currentName, updateName, now()),
    };
    const recount = () =>
      Object.assign(
        status,
        countReplicas([...replicas, ...condemned], minReadySeconds, currentName, updateName, now()),
      );
    const fail = (err: unknown): never => {
      recount();
      throw Object.assign(err instanceof Error ? err : new Error(String(err)), { status });
    };

    const start = startOrdinal(set);
    const replicaCount = set.spec.replicas ?? 1;
    const slots: (Pod | undefined)[] = new Array(replicaCount).fill(undefined);
    const condemned: Pod[] = [];
    for (const pod of pods) {
      if (podInOrdinalRange(pod, set)) slots[getOrdinal(pod) - start] = pod;
      else if (getOrdinal(pod) >= 0) condemned.push(pod);
    }
    for (let i = 0; i < replicaCount; i++) {
      slots[i] ??= newVersionedStatefulSetPod(currentSet, updateSet, currentName, updateName, start + i);
    }
    const replicas = slots as Pod[];
    condemned.sort(descendingOrdinal);

    let firstUnavailable: Pod | undefined;
    let unavailable = 0;
    for (const pod of [...replicas, ...[...condemned].reverse()]) {
      if (!isUnavailable(pod, minReadySeconds, now())) continue;
      unavailable++;
      firstUnavailable ??= pod;
    }
    if (unavailable > 0) {
      logger.v(4).info('StatefulSet has unavailable Pods', {
        statefulSet: key(set),
        unavailableReplicas: unavailable,
        pod: firstUnavailable?.metadata.name,
      });
    }
    if (set.metadata.deletionTimestamp) return status;

    const monotonic = !allowsBurst(set);

    const processReplica = async (i: number): Promise<boolean> => {
      const pod = replicas[i] as Pod;
      // Failed or succeeded pods (evicted, killed on a node reboot…) are deleted; the next sync recreates them.
      if (isFailed(pod) || isSucceeded(pod)) {
        if (!pod.metadata.deletionTimestamp) await podControl.deleteStatefulPod(set, pod);
        return true;
      }
      if (!isCreated(pod)) {
        if (podControl.podClaimIsStale(set, pod)) return true;
        await podControl.createStatefulPod(set, pod);
        if (monotonic) return true;
      }
      if (isPending(pod)) await podControl.createMissingPersistentVolumeClaims(set, pod);
      if (monotonic && isTerminating(pod)) {
        logger
          .v(4)
          .info('StatefulSet is waiting for Pod to Terminate', { statefulSet: key(set), pod: pod.metadata.name });
        return true;
      }
      if (monotonic && !isRunningAndReady(pod)) {
        logger.v(4).info('StatefulSet is waiting for Pod to be Running and Ready', {
          statefulSet: key(set),
          pod: pod.metadata.name,
        });
        return true;
      }
      if (monotonic && !isRunningAndAvailable(pod, minReadySeconds, now())) {
        logger.v(4).info('StatefulSet is waiting for Pod to be Available', {
          statefulSet: key(set),
          pod: pod.metadata.name,
        });
        return true;
      }
      const retentionMatches = podControl.claimsMatchRetentionPolicy(updateSet, pod);
      if (identityMatches(set, pod) && storageMatches(set, pod) && retentionMatches) return false;
      await podControl.updateStatefulPod(updateSet, pod);
      return false;
    };
    try {
      if (await runForAll(replicas.length, processReplica, monotonic)) {
        recount();
        return status;
      }
      // Claims of condemned pods take the owners the retention policy gives scaled-down pods.
      const fixClaims = async (i: number): Promise<boolean> => {
        const pod = condemned[i] as Pod;
        if (!podControl.claimsMatchRetentionPolicy(updateSet, pod)) {
          await podControl.updatePodClaimForRetentionPolicy(updateSet, pod);
        }
        return false;
      };
      if (await runForAll(condemned.length, fixClaims, monotonic)) {
        recount();
        return status;
      }
      const processCondemned = async (i: number): Promise<boolean> => {
        const pod = condemned[i] as Pod;
        if (isTerminating(pod)) {
          if (monotonic) {
            logger.v(4).info('StatefulSet is waiting for Pod to Terminate prior to scale down', {
              statefulSet: key(set),
              pod: pod.metadata.name,
            });
          }
          return monotonic;
        }
        if (monotonic && pod !== firstUnavailable) {
          if (!isRunningAndReady(pod) || !isRunningAndAvailable(pod, minReadySeconds, now())) {
            logger.v(4).info('StatefulSet is waiting for Pod to be Running, Ready and Available prior to scale down', {
              statefulSet: key(set),
              pod: firstUnavailable?.metadata.name,
            });
            return true;
          }
        }
        logger.v(2).info('Pod of StatefulSet is terminating for scale down', {
          statefulSet: key(set),
          pod: pod.metadata.name,
        });
        await podControl.deleteStatefulPod(set, pod);
        return true;
      };
      if (await runForAll(condemned.length, processCondemned, monotonic)) {
        recount();
        return status;
      }
    } catch (err) {
      fail(err);
    }
    recount();

    if (set.spec.updateStrategy?.type === 'OnDelete') return status;

    // RollingUpdate: replace the highest-ordinal outdated pod at or above the partition, one at a time.
    const updateMin = set.spec.updateStrategy?.rollingUpdate?.partition ?? 0;
    for (let target = replicas.length - 1; target >= updateMin; target--) {
      const pod = replicas[target] as Pod;
      if (getPodRevision(pod) !== updateName && !isTerminating(pod)) {
        logger.v(2).info('Pod of StatefulSet is terminating for update', {
          statefulSet: key(set),
          pod: pod.metadata.name,
        });
        try {
          await podControl.deleteStatefulPod(set, pod);
        } catch (err) {
          if (!isNotFound(err)) throw Object.assign(err as Error, { status });
        }
        status.currentReplicas--;
        return status;
      }
      if (isUnavailable(pod, minReadySeconds, now())) {
        logger.v(4).info('StatefulSet is waiting for Pod to update', { statefulSet: key(set), pod: pod.metadata.name });
        return status;
      }
    }
    return status;
  }
}

function key(set: StatefulSet): string {
  return `${set.metadata.namespace ?? ''}/${set.metadata.name ?? ''}`;
}
