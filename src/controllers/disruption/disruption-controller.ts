/**
 * The disruption controller (upstream's pkg/controller/disruption): keeps every PodDisruptionBudget's status —
 * expectedPods, desiredHealthy, currentHealthy, disruptionsAllowed, observedGeneration, the disruptedPods the
 * eviction subresource recorded (dropped after 2 minutes when the pod was not deleted) and the DisruptionAllowed
 * condition — so that the apiserver's `pods/eviction` can decide. When a sync fails for a reason other than a
 * conflict, it fails safe: disruptionsAllowed 0 and DisruptionAllowed=False with reason SyncFailed.
 *
 * It also clears stale DisruptionTarget pod conditions: a pod that got the condition but was not deleted within
 * 2 minutes has it set back to False.
 *
 * Three queues as upstream: PDB keys (rate limited), PDB rechecks (delayed, moved into the first when due), and
 * pods with a stale DisruptionTarget condition. One worker each.
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
import type { EventRecorder } from '../../client/events/broadcaster.js';
import { EVENT_TYPE_NORMAL, EVENT_TYPE_WARNING, formatTime } from '../../client/events/event.js';
import { isConflict, isNotFound, type KubeObject } from '../../client/types.js';
import { DelayingQueue } from '../../client/workqueue/delaying.js';
import { createRateLimitingQueue, type RateLimitingQueue } from '../../client/workqueue/rate-limiting.js';
import type { Logger } from '../../util/logger.js';
import { getControllerOf } from '../common/controller-ref.js';
import { parseTime } from '../common/pods.js';
import type { Controller, ControllerContext } from '../context.js';
import { runWorkers } from '../worker.js';
import { type ControllerAndScale, PodControllerFinders } from './finders.js';
import {
  buildDisruptedPodMap,
  countHealthyPods,
  DISRUPTION_ALLOWED_CONDITION,
  desiredPdbStatus,
  type PdbStatus,
  type StatusCondition,
  SYNC_FAILED_REASON,
  scaledValueFromIntOrPercent,
  setStatusCondition,
  statusIsCurrent,
} from './status.js';

/** How long a DisruptionTarget condition may stay on a pod that is not being deleted (stalePodDisruptionTimeout). */
export const STALE_POD_DISRUPTION_TIMEOUT_MS = 2 * 60_000;

const gvr = (group: string, resource: string) => ({ group, version: 'v1', resource });
const PDB_KIND = { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget' };
const POD_KIND = { apiVersion: 'v1', kind: 'Pod' };

const podRef = (pod: KubeObject) => `${pod.metadata.namespace ?? ''}/${pod.metadata.name ?? ''}`;
const unwrap = (obj: KubeObject | DeletedFinalStateUnknown<KubeObject>) =>
  obj instanceof DeletedFinalStateUnknown ? obj.obj : obj;

/** An error whose text becomes the SyncFailed condition's message. */
const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err));

export class DisruptionController implements Controller {
  readonly queue: RateLimitingQueue<string>;
  readonly recheckQueue: DelayingQueue<string>;
  readonly stalePodDisruptionQueue: RateLimitingQueue<string>;
  private readonly pdbInformer: SharedIndexInformer;
  private readonly podInformer: SharedIndexInformer;
  private readonly informers: SharedIndexInformer[];
  private readonly pdbs: Indexer;
  private readonly pods: Indexer;
  private readonly finders: PodControllerFinders;
  private readonly recorder: EventRecorder;
  private readonly log: Logger;

  constructor(private readonly ctx: ControllerContext) {
    this.log = ctx.logger;
    this.recorder = ctx.recorder('controllermanager');
    this.queue = createRateLimitingQueue<string>({ clock: ctx.clock, name: 'disruption' });
    this.recheckQueue = new DelayingQueue<string>({ clock: ctx.clock, name: 'disruption_recheck' });
    this.stalePodDisruptionQueue = createRateLimitingQueue<string>({ clock: ctx.clock, name: 'stale_pod_disruption' });
    this.podInformer = ctx.informers.forGroupVersionResource(gvr('', 'pods'));
    this.pdbInformer = ctx.informers.forGroupVersionResource(gvr('policy', 'poddisruptionbudgets'));
    const rcInformer = ctx.informers.forGroupVersionResource(gvr('', 'replicationcontrollers'));
    const rsInformer = ctx.informers.forGroupVersionResource(gvr('apps', 'replicasets'));
    const dInformer = ctx.informers.forGroupVersionResource(gvr('apps', 'deployments'));
    const ssInformer = ctx.informers.forGroupVersionResource(gvr('apps', 'statefulsets'));
    this.informers = [this.podInformer, this.pdbInformer, rcInformer, rsInformer, dInformer, ssInformer];
    this.pdbs = this.pdbInformer.getIndexer();
    this.pods = this.podInformer.getIndexer();
    this.finders = new PodControllerFinders({
      client: ctx.client,
      rcs: rcInformer.getIndexer(),
      replicaSets: rsInformer.getIndexer(),
      deployments: dInformer.getIndexer(),
      statefulSets: ssInformer.getIndexer(),
    });
    this.pdbInformer.addEventHandler({
      onAdd: (pdb) => this.enqueuePdb(pdb),
      onUpdate: (_old, pdb) => this.enqueuePdb(pdb),
      onDelete: (pdb) => this.enqueuePdb(unwrap(pdb)),
    });
    this.podInformer.addEventHandler({
      onAdd: (pod) => this.podChanged(pod, true),
      onUpdate: (_old, pod) => this.podChanged(pod, true),
      onDelete: (pod) => this.podChanged(unwrap(pod), false),
    });
  }

  async run(): Promise<void> {
    const { signal } = this.ctx;
    this.log.info('Starting controller', { controller: 'disruption-controller' });
    try {
      if (!(await waitForCacheSync(signal, ...this.informers))) return;
      await Promise.all([
        runWorkers({ queue: this.queue, workers: 1, sync: (key) => this.sync(key), signal, logger: this.log }),
        this.runRecheckWorker(),
        runWorkers({
          queue: this.stalePodDisruptionQueue,
          workers: 1,
          sync: (key) => this.syncStalePodDisruption(key),
          signal,
          logger: this.log,
        }),
      ]);
    } finally {
      this.queue.shutDown();
      this.recheckQueue.shutDown();
      this.stalePodDisruptionQueue.shutDown();
      this.log.info('Shutting down controller', { controller: 'disruption-controller' });
    }
  }

  /** Moves rechecks that fell due into the main queue. */
  private async runRecheckWorker(): Promise<void> {
    const stop = () => this.recheckQueue.shutDown();
    if (this.ctx.signal.aborted) stop();
    else this.ctx.signal.addEventListener('abort', stop, { once: true });
    for (;;) {
      const item = await this.recheckQueue.get();
      if (item.shutdown) return;
      this.queue.addRateLimited(item.key);
      this.recheckQueue.done(item.key);
    }
  }

  // Event handlers.

  private enqueuePdb(pdb: KubeObject | undefined): void {
    if (!pdb?.metadata) return;
    try {
      this.queue.add(metaNamespaceKeyFunc(pdb));
    } catch (err) {
      this.log.error("Couldn't get key for PodDisruptionBudget", { err: String(err) });
    }
  }

  private podChanged(pod: KubeObject | undefined, live: boolean): void {
    if (!pod?.metadata) return;
    // Upstream wakes only the first matching PDB; waking all of them keeps every status current.
    for (const pdb of this.getPdbsForPod(pod)) this.enqueuePdb(pdb);
    if (!live) return;
    const stale = this.staleDisruptionCondition(pod);
    if (stale.has) this.stalePodDisruptionQueue.addAfter(metaNamespaceKeyFunc(pod), stale.cleanAfterMs);
  }

  /** The PDBs whose selector matches the pod (none for a pod without labels, as upstream's lister). */
  private podPdbs(pod: KubeObject): KubeObject[] {
    if (Object.keys(pod.metadata.labels ?? {}).length === 0) return [];
    const out: KubeObject[] = [];
    for (const pdb of this.pdbs.byIndex('namespace', pod.metadata.namespace ?? '')) {
      let selector: LabelSelector;
      try {
        selector = LabelSelector.fromObject(pdb.spec?.selector);
      } catch {
        continue;
      }
      if (selector.matches(pod.metadata.labels)) out.push(pdb);
    }
    return out;
  }

  /** The PDBs of a pod, with upstream's warning event when there is more than one. */
  private getPdbsForPod(pod: KubeObject): KubeObject[] {
    const pdbs = this.podPdbs(pod);
    const first = pdbs[0];
    if (pdbs.length > 1 && first) {
      const msg = `Pod "${pod.metadata.namespace}"/"${pod.metadata.name}" matches multiple PodDisruptionBudgets.  Chose "${first.metadata.name}" arbitrarily.`;
      this.log.info(msg);
      this.recorder.event({ ...pod, ...POD_KIND }, EVENT_TYPE_WARNING, 'MultiplePodDisruptionBudgets', msg);
    }
    return pdbs;
  }

  private podsForPdb(pdb: KubeObject): KubeObject[] {
    const selector = LabelSelector.fromObject(pdb.spec?.selector);
    return this.pods
      .byIndex('namespace', pdb.metadata.namespace ?? '')
      .filter((p) => selector.matches(p.metadata.labels));
  }

  // The PDB sync.

  async sync(key: string): Promise<void> {
    const start = this.ctx.clock.now();
    try {
      const pdb = this.pdbs.getByKey(key);
      if (!pdb) {
        this.log.v(4).info('podDisruptionBudget has been deleted', { key });
        return;
      }
      try {
        await this.trySync(pdb);
      } catch (err) {
        // A conflict is retried without failing safe: the next sync sees the newer object.
        if (isConflict(err)) throw err;
        this.log.error('Failed to sync PDB', { podDisruptionBudget: key, err: messageOf(err) });
        await this.failSafe(pdb, err);
      }
    } finally {
      this.log.v(4).info('Finished syncing PodDisruptionBudget', { key, durationMs: this.ctx.clock.now() - start });
    }
  }

  private async trySync(pdb: KubeObject): Promise<void> {
    const subject = { ...pdb, ...PDB_KIND };
    let pods: KubeObject[];
    try {
      pods = this.podsForPdb(pdb);
    } catch (err) {
      this.recorder.eventf(subject, EVENT_TYPE_WARNING, 'NoPods', 'Failed to get pods: %v', messageOf(err));
      throw err;
    }
    if (pods.length === 0) this.recorder.event(subject, EVENT_TYPE_NORMAL, 'NoPods', 'No matching pods found');

    let expected: { expectedCount: number; desiredHealthy: number; unmanagedPods: string[] };
    try {
      expected = await this.getExpectedPodCount(pdb, pods);
    } catch (err) {
      this.recorder.eventf(
        subject,
        EVENT_TYPE_WARNING,
        'CalculateExpectedPodCountFailed',
        'Failed to calculate the number of expected pods: %v',
        messageOf(err),
      );
      throw err;
    }
    if (expected.unmanagedPods.length > 0) {
      this.log.v(4).info('Found unmanaged pods associated with this PDB', { pods: expected.unmanagedPods });
      this.recorder.event(
        subject,
        EVENT_TYPE_WARNING,
        'UnmanagedPods',
        `Pods selected by this PodDisruptionBudget (selector: ${selectorString(pdb.spec?.selector)}) were found to be unmanaged. As a result, the status of the PDB cannot be calculated correctly, which may result in undefined behavior. To account for these pods please set ".spec.minAvailable" field of the PDB to an integer value.`,
      );
    }

    const now = this.ctx.clock.now();
    const disrupted = buildDisruptedPodMap(pods, pdb.status?.disruptedPods, now);
    for (const pod of disrupted.notDeleted) {
      this.log.v(1).info("pod was expected to be deleted but it wasn't, updating PDB", {
        pod: podRef(pod),
        podDisruptionBudget: metaNamespaceKeyFunc(pdb),
      });
      // Upstream's message names the namespace twice.
      this.recorder.eventf(
        { ...pod, ...POD_KIND },
        EVENT_TYPE_WARNING,
        'NotDeleted',
        "Pod was expected by PDB %s/%s to be deleted but it wasn't",
        pdb.metadata.namespace,
        pdb.metadata.namespace,
      );
    }
    const currentHealthy = countHealthyPods(pods, disrupted.disruptedPods, now);
    await this.updatePdbStatus(
      pdb,
      { currentHealthy, desiredHealthy: expected.desiredHealthy, expectedPods: expected.expectedCount },
      disrupted.disruptedPods,
      now,
    );
    if (disrupted.recheckAt !== undefined) {
      this.recheckQueue.addAfter(metaNamespaceKeyFunc(pdb), Math.max(0, disrupted.recheckAt - now));
    }
  }

  /** expectedPods and desiredHealthy from minAvailable or maxUnavailable (upstream's getExpectedPodCount). */
  async getExpectedPodCount(
    pdb: KubeObject,
    pods: KubeObject[],
  ): Promise<{ expectedCount: number; desiredHealthy: number; unmanagedPods: string[] }> {
    const spec = pdb.spec ?? {};
    if (spec.maxUnavailable !== undefined && spec.maxUnavailable !== null) {
      const { expectedCount, unmanagedPods } = await this.getExpectedScale(pods);
      const maxUnavailable = scaledValueFromIntOrPercent(spec.maxUnavailable, expectedCount, true);
      return { expectedCount, desiredHealthy: Math.max(0, expectedCount - maxUnavailable), unmanagedPods };
    }
    if (spec.minAvailable !== undefined && spec.minAvailable !== null) {
      if (typeof spec.minAvailable === 'number') {
        return { expectedCount: pods.length, desiredHealthy: spec.minAvailable, unmanagedPods: [] };
      }
      const { expectedCount, unmanagedPods } = await this.getExpectedScale(pods);
      const minAvailable = scaledValueFromIntOrPercent(spec.minAvailable, expectedCount, true);
      return { expectedCount, desiredHealthy: minAvailable, unmanagedPods };
    }
    return { expectedCount: 0, desiredHealthy: 0, unmanagedPods: [] };
  }

  /** The sum of the desired scale of every controller of the pods; pods without a controller are listed apart. */
  private async getExpectedScale(pods: KubeObject[]): Promise<{ expectedCount: number; unmanagedPods: string[] }> {
    const scales = new Map<string, number>();
    const unmanagedPods: string[] = [];
    for (const pod of pods) {
      const ref = getControllerOf(pod);
      if (!ref) {
        unmanagedPods.push(pod.metadata.name ?? '');
        continue;
      }
      if (scales.has(ref.uid)) continue;
      let found: ControllerAndScale | undefined;
      for (const finder of this.finders.finders()) {
        found = await finder(ref, pod.metadata.namespace ?? '');
        if (found) break;
      }
      if (!found) throw new Error(`found no controllers for pod "${pod.metadata.name}"`);
      scales.set(found.uid, found.scale);
    }
    let expectedCount = 0;
    for (const n of scales.values()) expectedCount += n;
    return { expectedCount, unmanagedPods };
  }

  private async updatePdbStatus(
    pdb: KubeObject,
    counts: { currentHealthy: number; desiredHealthy: number; expectedPods: number },
    disruptedPods: Record<string, string>,
    now: number,
  ): Promise<void> {
    const status = desiredPdbStatus(pdb, counts, disruptedPods, now);
    if (statusIsCurrent(pdb, status)) return;
    await this.writePdbStatus(pdb, status);
  }

  private async writePdbStatus(pdb: KubeObject, status: PdbStatus): Promise<void> {
    const { namespace = '' } = pdb.metadata;
    await this.ctx.client.podDisruptionBudgets(namespace).updateStatus({ ...pdb, ...PDB_KIND, status });
  }

  /** Sets disruptionsAllowed to 0 and DisruptionAllowed=False/SyncFailed, so evictions stop while syncs fail. */
  private async failSafe(pdb: KubeObject, err: unknown): Promise<void> {
    const previous: Partial<PdbStatus> = pdb.status ?? {};
    const status: PdbStatus = {
      disruptionsAllowed: 0,
      currentHealthy: previous.currentHealthy ?? 0,
      desiredHealthy: previous.desiredHealthy ?? 0,
      expectedPods: previous.expectedPods ?? 0,
      ...(previous.observedGeneration ? { observedGeneration: previous.observedGeneration } : {}),
      ...(previous.disruptedPods ? { disruptedPods: previous.disruptedPods } : {}),
      conditions: structuredClone(previous.conditions ?? []) as StatusCondition[],
    };
    setStatusCondition(
      status.conditions as StatusCondition[],
      {
        type: DISRUPTION_ALLOWED_CONDITION,
        status: 'False',
        reason: SYNC_FAILED_REASON,
        message: messageOf(err),
        ...(status.observedGeneration ? { observedGeneration: status.observedGeneration } : {}),
      },
      this.ctx.clock.now(),
    );
    await this.writePdbStatus(pdb, status);
  }

  // Stale DisruptionTarget conditions.

  /** Whether the pod carries a DisruptionTarget=True that may go stale, and how long until it is. */
  private staleDisruptionCondition(pod: KubeObject): { has: boolean; cleanAfterMs: number } {
    if (pod.metadata.deletionTimestamp) return { has: false, cleanAfterMs: 0 };
    const conditions: StatusCondition[] = pod.status?.conditions ?? [];
    const cond = conditions.find((c) => c?.type === 'DisruptionTarget');
    const phase = pod.status?.phase;
    if (
      cond?.status !== 'True' ||
      cond.reason === 'TerminationByKubelet' ||
      phase === 'Succeeded' ||
      phase === 'Failed'
    ) {
      return { has: false, cleanAfterMs: 0 };
    }
    const since = this.ctx.clock.now() - (parseTime(cond.lastTransitionTime) ?? 0);
    return { has: true, cleanAfterMs: Math.max(0, STALE_POD_DISRUPTION_TIMEOUT_MS - since) };
  }

  async syncStalePodDisruption(key: string): Promise<void> {
    const { namespace, name } = splitMetaNamespaceKey(key);
    const pod = this.pods.getByKey(key);
    if (!pod) {
      this.log.v(4).info('Skipping clearing DisruptionTarget condition because pod was deleted', { pod: key });
      return;
    }
    const stale = this.staleDisruptionCondition(pod);
    if (!stale.has) return;
    if (stale.cleanAfterMs > 0) {
      this.stalePodDisruptionQueue.addAfter(key, stale.cleanAfterMs);
      return;
    }
    // As upstream's UpdatePodCondition: the condition is replaced by a bare False one.
    const conditions: StatusCondition[] = (pod.status?.conditions ?? []).map((c: StatusCondition) =>
      c.type === 'DisruptionTarget'
        ? { type: 'DisruptionTarget', status: 'False', lastTransitionTime: formatTime(this.ctx.clock.now()) }
        : c,
    );
    try {
      await this.ctx.client
        .pods(namespace)
        .updateStatus({ ...pod, ...POD_KIND, status: { ...pod.status, conditions } });
    } catch (err) {
      if (isNotFound(err)) return;
      throw err;
    }
    this.log.v(2).info('Reset stale DisruptionTarget condition to False', { pod: `${namespace}/${name}` });
  }
}

/** A *metav1.LabelSelector as Go's %v prints it (its generated String method). */
export function selectorString(selector: unknown): string {
  if (selector === null || typeof selector !== 'object') return 'nil';
  const sel = selector as {
    matchLabels?: Record<string, string>;
    matchExpressions?: { key?: string; operator?: string; values?: string[] }[];
  };
  const labels = Object.keys(sel.matchLabels ?? {})
    .sort()
    .map((k) => `${k}: ${sel.matchLabels?.[k]},`)
    .join('');
  const exprs = (sel.matchExpressions ?? [])
    .map(
      (e) =>
        `LabelSelectorRequirement{Key:${e.key ?? ''},Operator:${e.operator ?? ''},Values:[${(e.values ?? []).join(' ')}],},`,
    )
    .join('');
  return `&LabelSelector{MatchLabels:map[string]string{${labels}},MatchExpressions:[]LabelSelectorRequirement{${exprs}},}`;
}
