/**
 * The replica set controller (upstream's pkg/controller/replicaset), for ReplicaSets and, parameterised by
 * ReplicaSetKind, ReplicationControllers. sync(key) claims the active pods that match the selector (adopting
 * orphans, releasing pods that stopped matching), creates or deletes pods to reach spec.replicas — at most
 * BURST_REPLICAS per sync, creations in slow-start batches, deletions chosen by upstream's ranking — and writes the
 * status. Expectations keep it from acting on a cache that has not yet seen its own creations and deletions.
 * A PodTally per set remembers what the last sync claimed and counted, so a sync looks only at the pods whose events
 * arrived since (tally.ts).
 */

import { LabelSelector } from '../../api/labels.js';
import type { SharedIndexInformer } from '../../client/cache/shared-informer.js';
import {
  DeletedFinalStateUnknown,
  type Indexer,
  metaNamespaceKeyFunc,
  splitMetaNamespaceKey,
} from '../../client/cache/store.js';
import { waitForCacheSync } from '../../client/cache/wait-for-cache-sync.js';
import type { ResourceClient } from '../../client/types.js';
import { isNotFound, type KubeObject } from '../../client/types.js';
import { createRateLimitingQueue, type RateLimitingQueue } from '../../client/workqueue/rate-limiting.js';
import type { Logger } from '../../util/logger.js';
import {
  ClaimError,
  CONTROLLER_UID_INDEX,
  ControllerRefManager,
  controlledByOtherKind,
  controllerUidIndexFunc,
  getControllerOf,
  newControllerRef,
  ownerCanAdopt,
} from '../common/controller-ref.js';
import { UIDTrackingControllerExpectations } from '../common/expectations.js';
import {
  filterPodsByOwner,
  isNamespaceTerminatingError,
  isPodActive,
  POD_CONTROLLER_UID_INDEX,
  PodControl,
  podControllerUidIndexFunc,
  podKey,
  SLOW_START_INITIAL_BATCH_SIZE,
  slowStartBatch,
  sortActivePodsWithRanks,
} from '../common/pods.js';
import type { Controller, ControllerContext } from '../context.js';
import { runWorkers } from '../worker.js';
import type { ReplicaSetKind } from './kinds.js';
import {
  calculateStatus,
  desiredReplicas,
  minReadySecondsOf,
  nextAvailableAfter,
  statusFromCounts,
  updateReplicaSetStatus,
} from './status.js';
import { PodTally, tallyFingerprint } from './tally.js';

/** Upstream's BurstReplicas: the most pods one sync creates or deletes. */
export const BURST_REPLICAS = 500;

const PODS = { group: '', version: 'v1', resource: 'pods' };

export class ReplicaSetController implements Controller {
  readonly queue: RateLimitingQueue<string>;
  readonly expectations: UIDTrackingControllerExpectations;
  private readonly rsInformer: SharedIndexInformer;
  private readonly podInformer: SharedIndexInformer;
  private readonly rsIndexer: Indexer;
  private readonly podIndexer: Indexer;
  private readonly rsClient: ResourceClient;
  private readonly podControl: PodControl;
  private readonly log: Logger;
  private readonly burstReplicas: number;
  /** Per replica set key: what its last sync claimed, and the pods changed since. */
  private readonly tallies = new Map<string, PodTally>();

  constructor(
    private readonly ctx: ControllerContext,
    private readonly kind: ReplicaSetKind,
    opts: { burstReplicas?: number } = {},
  ) {
    this.log = ctx.logger;
    this.burstReplicas = opts.burstReplicas ?? BURST_REPLICAS;
    this.queue = createRateLimitingQueue<string>({ clock: ctx.clock, name: kind.name });
    this.expectations = new UIDTrackingControllerExpectations(ctx.clock);
    this.rsClient = kind.client(ctx.client);
    this.podControl = new PodControl(ctx.client.pods(), ctx.recorder(kind.component), this.log);
    this.rsInformer = ctx.informers.forGroupVersionResource(kind.gvr, {
      indexers: { [CONTROLLER_UID_INDEX]: controllerUidIndexFunc },
    });
    this.podInformer = ctx.informers.forGroupVersionResource(PODS, {
      indexers: { [POD_CONTROLLER_UID_INDEX]: podControllerUidIndexFunc },
    });
    this.rsIndexer = this.rsInformer.getIndexer();
    this.podIndexer = this.podInformer.getIndexer();
    this.rsInformer.addEventHandler({
      onAdd: (rs) => this.enqueue(rs),
      onUpdate: (oldRs, curRs) => this.updateRS(oldRs, curRs),
      onDelete: (rs) => this.deleteRS(rs),
    });
    this.podInformer.addEventHandler({
      onAdd: (pod) => this.addPod(pod),
      onUpdate: (oldPod, curPod) => this.updatePod(oldPod, curPod),
      onDelete: (pod) => this.deletePod(pod),
    });
  }

  async run(): Promise<void> {
    const { signal } = this.ctx;
    this.log.info('Starting controller', { name: this.kind.name });
    try {
      if (!(await waitForCacheSync(signal, this.rsInformer, this.podInformer))) return;
      await runWorkers({
        queue: this.queue,
        workers: this.kind.workers(this.ctx.options),
        sync: (key) => this.sync(key),
        signal,
        logger: this.log,
      });
    } finally {
      this.queue.shutDown();
      this.log.info('Shutting down controller', { name: this.kind.name });
    }
  }

  // Event handlers: they only enqueue keys and record what was observed.

  private enqueue(rs: KubeObject | DeletedFinalStateUnknown<KubeObject>, afterMs?: number): void {
    let key: string;
    try {
      key = metaNamespaceKeyFunc(rs);
    } catch (err) {
      this.log.error("couldn't get key for object", { err: String(err) });
      return;
    }
    if (afterMs === undefined) this.queue.add(key);
    else this.queue.addAfter(key, afterMs);
  }

  private updateRS(oldRs: KubeObject, curRs: KubeObject): void {
    // A delete and re-create under one name may reach us as an update.
    if (oldRs.metadata.uid !== curRs.metadata.uid) {
      this.deleteRS(new DeletedFinalStateUnknown(metaNamespaceKeyFunc(oldRs), oldRs));
    }
    if (desiredReplicas(oldRs) !== desiredReplicas(curRs)) {
      this.log.v(4).info(`${this.kind.kind} updated. Desired pod count change.`, {
        name: curRs.metadata.name,
        oldReplicas: desiredReplicas(oldRs),
        newReplicas: desiredReplicas(curRs),
      });
    }
    this.enqueue(curRs);
  }

  private deleteRS(obj: KubeObject | DeletedFinalStateUnknown<KubeObject>): void {
    const key = metaNamespaceKeyFunc(obj);
    this.log.v(4).info(`Deleting ${this.kind.kind}`, { key });
    this.expectations.deleteExpectations(key);
    this.tallies.delete(key);
    this.queue.add(key);
  }

  /** The cached owner a controllerRef points to, if it is of our kind and still the same object. */
  private resolveControllerRef(namespace: string, ref: { kind: string; name: string; uid: string }) {
    if (ref.kind !== this.kind.kind) return undefined;
    const rs = this.rsIndexer.getByKey(`${namespace}/${ref.name}`);
    return rs && rs.metadata.uid === ref.uid ? rs : undefined;
  }

  /** The owners whose selector matches an orphan pod. */
  private getPodReplicaSets(pod: KubeObject): KubeObject[] {
    const out: KubeObject[] = [];
    for (const rs of this.rsIndexer.byIndex('namespace', pod.metadata.namespace ?? '')) {
      try {
        const selector = this.kind.selector(rs);
        if (selector.isEmpty() || !selector.matches(pod.metadata.labels)) continue;
      } catch {
        continue;
      }
      out.push(rs);
    }
    if (out.length > 1) {
      this.log.error(`user error! more than one ${this.kind.kind} is selecting pods with labels`, {
        pod: podKey(pod),
        labels: pod.metadata.labels,
      });
    }
    return out;
  }

  /** Marks pod for a fresh look in the tally of each set it may belong to: its controller, or any set of its namespace. */
  private markDirty(pod: KubeObject): void {
    if (this.tallies.size === 0) return;
    const key = podKey(pod);
    const namespace = pod.metadata.namespace ?? '';
    const ref = getControllerOf(pod);
    if (ref) {
      if (ref.kind === this.kind.kind) this.tallies.get(`${namespace}/${ref.name}`)?.dirty.add(key);
      return;
    }
    for (const rs of this.rsIndexer.byIndex('namespace', namespace)) {
      this.tallies.get(metaNamespaceKeyFunc(rs))?.dirty.add(key);
    }
  }

  private addPod(pod: KubeObject): void {
    this.markDirty(pod);
    if (pod.metadata.deletionTimestamp) {
      // A pod already being deleted (seen first after a restart) must not count as a creation.
      this.deletePod(pod);
      return;
    }
    const ref = getControllerOf(pod);
    if (ref) {
      const rs = this.resolveControllerRef(pod.metadata.namespace ?? '', ref);
      if (!rs) return;
      const key = metaNamespaceKeyFunc(rs);
      this.expectations.creationObserved(key);
      this.queue.add(key);
      return;
    }
    // An orphan: wake up every owner that might adopt it.
    for (const rs of this.getPodReplicaSets(pod)) this.enqueue(rs);
  }

  private updatePod(oldPod: KubeObject, curPod: KubeObject): void {
    if (oldPod.metadata.resourceVersion === curPod.metadata.resourceVersion) return;
    if (controlledByOtherKind(oldPod, curPod, this.kind.kind)) return;
    this.markDirty(oldPod);
    this.markDirty(curPod);
    const labelChanged = JSON.stringify(oldPod.metadata.labels ?? {}) !== JSON.stringify(curPod.metadata.labels ?? {});
    if (curPod.metadata.deletionTimestamp) {
      // Count the deletion as soon as it starts, so a replacement is created while this pod terminates.
      this.deletePod(curPod);
      if (labelChanged) this.deletePod(oldPod);
      return;
    }
    const curRef = getControllerOf(curPod);
    const oldRef = getControllerOf(oldPod);
    const refChanged = JSON.stringify(curRef ?? null) !== JSON.stringify(oldRef ?? null);
    if (refChanged && oldRef) {
      const rs = this.resolveControllerRef(oldPod.metadata.namespace ?? '', oldRef);
      if (rs) this.enqueue(rs);
    }
    if (curRef) {
      const rs = this.resolveControllerRef(curPod.metadata.namespace ?? '', curRef);
      if (rs) this.enqueue(rs);
      return;
    }
    if (labelChanged || refChanged) {
      for (const rs of this.getPodReplicaSets(curPod)) this.enqueue(rs);
    }
  }

  private deletePod(obj: KubeObject | DeletedFinalStateUnknown<KubeObject>): void {
    const pod = obj instanceof DeletedFinalStateUnknown ? obj.obj : obj;
    if (!pod?.metadata) {
      // Which set it belonged to is unknown: every tally looks at the key again.
      if (obj instanceof DeletedFinalStateUnknown) for (const tally of this.tallies.values()) tally.dirty.add(obj.key);
      return;
    }
    this.markDirty(pod);
    const ref = getControllerOf(pod);
    if (!ref) return;
    const rs = this.resolveControllerRef(pod.metadata.namespace ?? '', ref);
    if (!rs) return;
    const key = metaNamespaceKeyFunc(rs);
    this.expectations.deletionObserved(key, podKey(pod));
    this.queue.add(key);
  }

  // The sync.

  /** Reconciles one owner by key. Throws to be retried with backoff. */
  async sync(key: string): Promise<void> {
    const start = this.ctx.clock.now();
    try {
      await this.syncOwner(key);
    } finally {
      this.log.v(4).info(`Finished syncing ${this.kind.kind}`, { key, durationMs: this.ctx.clock.now() - start });
    }
  }

  private async syncOwner(key: string): Promise<void> {
    splitMetaNamespaceKey(key);
    const rs = this.rsIndexer.getByKey(key);
    if (!rs) {
      this.log.v(4).info(`${this.kind.kind} has been deleted`, { key });
      this.expectations.deleteExpectations(key);
      this.tallies.delete(key);
      return;
    }
    const needsSync = this.expectations.satisfiedExpectations(key);
    let selector: ReturnType<ReplicaSetKind['selector']>;
    try {
      selector = this.kind.selector(rs);
    } catch (err) {
      this.log.error(`error converting pod selector to selector for ${this.kind.kind} ${key}`, { err: String(err) });
      return;
    }
    const fingerprint = tallyFingerprint(rs);
    let tally = this.tallies.get(key);
    if (tally?.fingerprint !== fingerprint) {
      // First sync, or the set changed what it claims or counts: look at every candidate pod.
      tally = new PodTally(fingerprint);
      this.tallies.set(key, tally);
      for (const pod of filterPodsByOwner(this.podIndexer, rs)) tally.dirty.add(podKey(pod));
    }
    await this.claimDirty(tally, rs, selector);

    let manageError: unknown;
    if (needsSync && !rs.metadata.deletionTimestamp) {
      try {
        await this.manageReplicas(key, tally, rs);
      } catch (err) {
        manageError = err;
      }
    }
    const now = this.ctx.clock.now();
    // Availability after minReadySeconds depends on the time, so such a set counts its pods each sync.
    const timed = minReadySecondsOf(rs) > 0 ? tally.pods() : undefined;
    const status = timed
      ? calculateStatus(rs, timed, manageError, now)
      : statusFromCounts(
          rs,
          { replicas: tally.replicas, fullyLabeled: tally.fullyLabeled, ready: tally.ready, available: tally.ready },
          manageError,
          now,
        );
    const updated = await updateReplicaSetStatus(this.rsClient, rs, status);
    if (manageError !== undefined) throw manageError;
    // Come back when the next ready pod has been ready for minReadySeconds, so availableReplicas moves on its own.
    const wait = timed && nextAvailableAfter(updated, timed, now);
    if (wait) this.queue.addAfter(key, wait);
  }

  /**
   * Claims the tally's dirty pods (adopting matching orphans, releasing pods that stopped matching) and records the
   * outcome. Rejects as ControllerRefManager.claim does; the pods it could not settle stay dirty for the retry.
   */
  private async claimDirty(tally: PodTally, rs: KubeObject, selector: LabelSelector): Promise<void> {
    const { uid, namespace = '' } = rs.metadata;
    const candidates: KubeObject[] = [];
    for (const key of tally.takeDirty()) {
      const pod = this.podIndexer.getByKey(key);
      const ref = pod && getControllerOf(pod);
      // The candidates of the full walk: active pods this set controls, and active orphans of its namespace.
      if (pod && isPodActive(pod) && (ref ? ref.uid === uid : (pod.metadata.namespace ?? '') === namespace)) {
        candidates.push(pod);
      } else {
        tally.remove(key);
      }
    }
    if (candidates.length === 0) return;
    const manager = new ControllerRefManager({
      owner: rs,
      ownerKind: this.kind,
      selector,
      children: this.ctx.client.pods(),
      canAdopt: ownerCanAdopt(this.rsClient, rs, this.kind),
    });
    let claimed: KubeObject[];
    let failure: unknown;
    try {
      claimed = await manager.claim(candidates);
    } catch (err) {
      claimed = err instanceof ClaimError ? err.claimed : [];
      failure = err;
    }
    const templateLabels = LabelSelector.fromSet(rs.spec?.template?.metadata?.labels);
    const isClaimed = new Set(claimed);
    for (const pod of candidates) {
      if (isClaimed.has(pod)) {
        tally.set(pod, templateLabels.matches(pod.metadata.labels));
        continue;
      }
      tally.remove(podKey(pod));
      if (failure !== undefined) tally.dirty.add(podKey(pod));
    }
    if (failure !== undefined) throw failure;
  }

  /** Creates or deletes pods so that the owner has spec.replicas active pods (within the burst limit). */
  private async manageReplicas(key: string, tally: PodTally, rs: KubeObject): Promise<void> {
    const diff = tally.replicas - desiredReplicas(rs);
    const namespace = rs.metadata.namespace ?? '';
    const subject = { ...rs, apiVersion: this.kind.apiVersion, kind: this.kind.kind };
    if (diff < 0) {
      const count = Math.min(-diff, this.burstReplicas);
      // Expect them all before the first create: its pod may be observed before the create call returns.
      this.expectations.expectCreations(key, count);
      this.log.v(2).info('Too few replicas', { key, need: desiredReplicas(rs), creating: count });
      const ref = newControllerRef(rs, this.kind);
      const { successes, error } = await slowStartBatch(count, SLOW_START_INITIAL_BATCH_SIZE, async () => {
        try {
          await this.podControl.createPods(namespace, rs.spec?.template, subject, ref);
        } catch (err) {
          // A terminating namespace refuses every create; nothing to do (the pod will never be observed).
          if (isNamespaceTerminatingError(err)) return;
          throw err;
        }
      });
      // The pods never attempted will never be observed either.
      const skipped = count - successes;
      if (skipped > 0) this.expectations.lowerExpectations(key, skipped, 0);
      if (error !== undefined) throw error;
      return;
    }
    if (diff > 0) {
      const count = Math.min(diff, this.burstReplicas);
      this.log.v(2).info('Too many replicas', { key, need: desiredReplicas(rs), deleting: count });
      const toDelete = this.getPodsToDelete(tally.pods(), this.getIndirectlyRelatedPods(rs), count);
      // Expect these exact pods' deletions before deleting them.
      this.expectations.expectDeletions(key, toDelete.map(podKey));
      const results = await Promise.allSettled(
        toDelete.map(async (pod) => {
          try {
            await this.podControl.deletePod(namespace, pod.metadata.name ?? '', subject);
          } catch (err) {
            // Its deletion will not be observed (it failed, or the pod was gone already).
            this.expectations.deletionObserved(key, podKey(pod));
            if (!isNotFound(err)) throw err;
          }
        }),
      );
      const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
      if (failed) throw failed.reason;
    }
  }

  /** The first count pods by upstream's deletion ranking (all of them when count covers every pod). */
  private getPodsToDelete(active: KubeObject[], related: KubeObject[], count: number): KubeObject[] {
    if (count >= active.length) return active.slice(0, count);
    const podsOnNode = new Map<string, number>();
    for (const pod of related) {
      if (!isPodActive(pod)) continue;
      const node: string = pod.spec?.nodeName ?? '';
      podsOnNode.set(node, (podsOnNode.get(node) ?? 0) + 1);
    }
    const ranks = active.map((pod) => podsOnNode.get(pod.spec?.nodeName ?? '') ?? 0);
    return sortActivePodsWithRanks(active, ranks, this.ctx.clock.now()).slice(0, count);
  }

  /**
   * The pods of every replica set under the same controller as rs (e.g. the ReplicaSets of one Deployment), so
   * that scale-down spreads the deployment's pods across nodes. None for a replica set without a controller.
   */
  private getIndirectlyRelatedPods(rs: KubeObject): KubeObject[] {
    const ref = getControllerOf(rs);
    if (!ref) return [];
    const seen = new Set<string>();
    const related: KubeObject[] = [];
    for (const sibling of this.rsIndexer.byIndex(CONTROLLER_UID_INDEX, ref.uid)) {
      let selector: ReturnType<ReplicaSetKind['selector']>;
      try {
        selector = this.kind.selector(sibling);
      } catch {
        continue;
      }
      for (const pod of this.podIndexer.byIndex('namespace', sibling.metadata.namespace ?? '')) {
        if (!selector.matches(pod.metadata.labels)) continue;
        const uid = pod.metadata.uid ?? podKey(pod);
        if (seen.has(uid)) continue;
        seen.add(uid);
        related.push(pod);
      }
    }
    return related;
  }
}
