/**
 * The scheduling queue (upstream's backend/queue PriorityQueue, with queueing hints on as in v1.33):
 *
 * - activeQ: pods to try now, ordered by the profile's QueueSort `less` (PrioritySort: priority, then time);
 * - backoffQ: pods that failed and wait out their backoff (initial × 2^(attempts-1), capped at the maximum) before
 *   going back to activeQ; flushed every second. When activeQ is empty, pop takes the head of backoffQ at once
 *   (SchedulerPopFromBackoffQ, on by default in v1.33), but never a pod whose attempt failed with an error (no
 *   plugin rejected it: a binding the apiserver refused), which waits its backoff out (BackoffQueue);
 * - unschedulablePods: pods rejected by some plugins (or gated by PreEnqueue), moved back only by a cluster event
 *   one of those plugins registered interest in and whose queueing hint says it may help, or after
 *   podMaxInUnschedulablePodsDuration (checked every 30 s).
 *
 * A popped pod is "in flight" until done(uid): events that arrive meanwhile are kept, so when the attempt fails
 * the pod is requeued at once if one of them could have changed the outcome (upstream's inFlightEvents).
 */
import type { Clock, TimerHandle } from '../../util/clock.js';
import { type Logger, silentLogger } from '../../util/logger.js';
import { newPodInfo } from '../framework/node-info.js';
import {
  type ClusterEvent,
  type ClusterEventWithHint,
  type Pod,
  type PodInfo,
  type PreEnqueuePlugin,
  type QueuedPodInfo,
  QueueingHint,
} from '../framework/types.js';
import {
  BACKOFF_COMPLETE,
  EVENT_FORCE_ACTIVATE,
  EVENT_UNSCHEDULABLE_TIMEOUT,
  EVENT_UNSCHEDULED_POD_ADD,
  EVENT_UNSCHEDULED_POD_UPDATE,
  eventLabel,
  type IncomingEvent,
  isWildCard,
  matchClusterEvent,
  POP_FROM_BACKOFF_Q,
  podSchedulingPropertiesChange,
  SCHEDULE_ATTEMPT_FAILURE,
} from './events.js';
import { KeyedHeap } from './heap.js';
import { type NominatingInfo, Nominator } from './nominator.js';

export const DEFAULT_POD_INITIAL_BACKOFF_MS = 1_000;
export const DEFAULT_POD_MAX_BACKOFF_MS = 10_000;
export const DEFAULT_POD_MAX_IN_UNSCHEDULABLE_PODS_MS = 5 * 60_000;
const BACKOFF_FLUSH_PERIOD_MS = 1_000;
const UNSCHEDULABLE_FLUSH_PERIOD_MS = 30_000;

/** A queued pod with the queue's own bookkeeping. */
export interface QueuedPod extends QueuedPodInfo {
  /** When its backoff ends (cached; recomputed after each failure). */
  backoffExpiration?: number;
  /** The PreEnqueue plugin that gates it ('' when none). */
  gatingPlugin: string;
  gatingPluginEvents: ClusterEvent[];
  unschedulableCount: number;
  consecutiveErrorsCount: number;
}

/** One plugin's interest in an event, for one profile. */
export interface QueueingHintEntry {
  plugin: string;
  event: ClusterEvent;
  hint?: ClusterEventWithHint['hint'];
}

export interface SchedulingQueueOptions {
  /** The QueueSort plugin's order (all profiles share one, as upstream requires). */
  less: (a: QueuedPodInfo, b: QueuedPodInfo) => boolean;
  clock: Clock;
  logger?: Logger;
  podInitialBackoffMs?: number;
  podMaxBackoffMs?: number;
  podMaxInUnschedulablePodsMs?: number;
  /** Profile name → its PreEnqueue plugins, in order. */
  preEnqueuePlugins?: Map<string, PreEnqueuePlugin[]>;
  /** Profile name → the events its plugins registered (EnqueueExtensions). */
  queueingHints?: Map<string, QueueingHintEntry[]>;
  /** Pop from backoffQ when activeQ is empty (upstream's SchedulerPopFromBackoffQ; default true). */
  popFromBackoffQ?: boolean;
  /** For the nominator: whether the pod is still waiting to be scheduled (informer view). */
  isStillPending?: (pod: Pod) => boolean;
}

type Strategy = 'skip' | 'backoff' | 'immediate';
type QueueName = 'Active' | 'Backoff' | 'Unschedulable';

interface InFlightEvent {
  seq: number;
  event: IncomingEvent;
  oldObj: unknown;
  newObj: unknown;
}

const keyOf = (pod: Pod) => `${pod.metadata?.namespace ?? ''}/${pod.metadata?.name ?? ''}`;
const qpKey = (qp: QueuedPodInfo) => keyOf(qp.podInfo.pod);

export class SchedulingQueue {
  private readonly clock: Clock;
  private readonly log: Logger;
  private readonly initialBackoffMs: number;
  private readonly maxBackoffMs: number;
  private readonly maxInUnschedulableMs: number;
  private readonly popFromBackoffQ: boolean;
  private readonly preEnqueue: Map<string, PreEnqueuePlugin[]>;
  private readonly hints: Map<string, QueueingHintEntry[]>;
  private readonly pluginToEvents = new Map<string, ClusterEvent[]>();
  private readonly activeQ: KeyedHeap<QueuedPod>;
  private readonly backoffQ: BackoffQueue;
  private readonly unschedulable = new Map<string, QueuedPod>();
  readonly nominator: Nominator;

  private cycle = 0;
  private eventSeq = 0;
  private readonly inFlightPods = new Map<string, { qp: QueuedPod; seq: number }>();
  private inFlightEvents: InFlightEvent[] = [];
  private waiters: (() => void)[] = [];
  private timers: TimerHandle[] = [];
  private closed = false;

  constructor(opts: SchedulingQueueOptions) {
    this.clock = opts.clock;
    this.log = opts.logger ?? silentLogger;
    this.initialBackoffMs = opts.podInitialBackoffMs ?? DEFAULT_POD_INITIAL_BACKOFF_MS;
    this.maxBackoffMs = opts.podMaxBackoffMs ?? DEFAULT_POD_MAX_BACKOFF_MS;
    this.maxInUnschedulableMs = opts.podMaxInUnschedulablePodsMs ?? DEFAULT_POD_MAX_IN_UNSCHEDULABLE_PODS_MS;
    this.popFromBackoffQ = opts.popFromBackoffQ ?? true;
    this.preEnqueue = opts.preEnqueuePlugins ?? new Map();
    this.hints = opts.queueingHints ?? new Map();
    for (const entries of this.hints.values()) {
      for (const e of entries) {
        const list = this.pluginToEvents.get(e.plugin) ?? [];
        list.push(e.event);
        this.pluginToEvents.set(e.plugin, list);
      }
    }
    this.activeQ = new KeyedHeap<QueuedPod>(qpKey, (a, b) => opts.less(a, b));
    this.backoffQ = new BackoffQueue((a, b) => this.backoffTime(a) < this.backoffTime(b));
    this.nominator = new Nominator(opts.isStillPending);
  }

  /** Starts the periodic flushes of backoffQ (every second) and of unschedulable pods (every 30 s). */
  run(): void {
    if (this.timers.length > 0 || this.closed) return;
    this.timers.push(this.clock.every(BACKOFF_FLUSH_PERIOD_MS, () => this.flushBackoffQCompleted()));
    this.timers.push(this.clock.every(UNSCHEDULABLE_FLUSH_PERIOD_MS, () => this.flushUnschedulablePodsLeftover()));
  }

  /** Stops the flushes and wakes every pop with undefined. */
  close(): void {
    this.closed = true;
    for (const t of this.timers) t.cancel();
    this.timers = [];
    this.wake();
  }

  // --- adding and removing ----------------------------------------------------------------------------------

  /** A new unscheduled pod. */
  add(pod: Pod): void {
    const qp = this.newQueuedPod(pod);
    this.moveToActiveQ(qp, eventLabel(EVENT_UNSCHEDULED_POD_ADD), false);
  }

  /** An unscheduled pod changed. */
  update(oldPod: Pod, newPod: Pod): void {
    const events = podSchedulingPropertiesChange(newPod, oldPod);
    const uid = newPod.metadata?.uid ?? '';
    if (this.inFlightPods.has(uid)) {
      // Kept for when the attempt in flight fails: the update may make the pod schedulable.
      for (const event of events) this.pushInFlightEvent(event, oldPod, newPod);
      return;
    }
    const key = keyOf(oldPod);
    for (const heap of [this.activeQ, this.backoffQ]) {
      const qp = heap.get(key);
      if (qp) {
        qp.podInfo = newPodInfo(newPod);
        heap.addOrUpdate(qp);
        this.nominator.update(oldPod, qp.podInfo);
        return;
      }
    }
    const qp = this.unschedulable.get(key);
    if (qp) {
      qp.podInfo = newPodInfo(newPod);
      this.nominator.update(oldPod, qp.podInfo);
      for (const event of events) {
        const strategy = this.isPodWorthRequeuing(qp, event, oldPod, newPod);
        const queue = this.requeue(qp, strategy, eventLabel(event));
        if (queue === 'Active' || (this.popFromBackoffQ && queue === 'Backoff')) break;
      }
      return;
    }
    this.moveToActiveQ(this.newQueuedPod(newPod), eventLabel(EVENT_UNSCHEDULED_POD_UPDATE), false);
  }

  /** The pod is gone (deleted, or bound by someone). */
  delete(pod: Pod): void {
    this.nominator.delete(pod);
    const key = keyOf(pod);
    if (this.activeQ.delete(key)) return;
    if (this.backoffQ.delete(key)) return;
    this.unschedulable.delete(key);
  }

  /** Moves these pods (from unschedulablePods or backoffQ) to activeQ; in-flight ones are requeued when back. */
  activate(pods: Pod[]): void {
    for (const pod of pods) {
      const key = keyOf(pod);
      let qp = this.unschedulable.get(key);
      let fromBackoff = false;
      if (!qp) {
        qp = this.backoffQ.delete(key);
        fromBackoff = qp !== undefined;
      }
      if (qp) {
        this.moveToActiveQ(qp, eventLabel(EVENT_FORCE_ACTIVATE), fromBackoff);
        continue;
      }
      if (this.inFlightPods.has(pod.metadata?.uid ?? '')) this.pushInFlightEvent(EVENT_FORCE_ACTIVATE, undefined, pod);
    }
  }

  // --- popping ---------------------------------------------------------------------------------------------

  /** Waits for the next pod to schedule; undefined once the queue is closed (or signal aborts). */
  async pop(signal?: AbortSignal): Promise<QueuedPod | undefined> {
    for (;;) {
      if (this.closed || signal?.aborted) return undefined;
      const qp = this.tryPop();
      if (qp) return qp;
      await new Promise<void>((resolve) => {
        const onAbort = () => resolve();
        signal?.addEventListener('abort', onAbort, { once: true });
        this.waiters.push(() => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        });
      });
    }
  }

  /** The next pod if one is ready now. */
  tryPop(): QueuedPod | undefined {
    let qp = this.activeQ.pop();
    if (!qp && this.popFromBackoffQ) {
      qp = this.backoffQ.popEarly();
      if (qp) this.log.v(5).info('Pod popped from backoffQ', { pod: qpKey(qp), event: POP_FROM_BACKOFF_Q });
    }
    if (!qp) return undefined;
    qp.attempts++;
    this.cycle++;
    const uid = qp.podInfo.pod.metadata?.uid ?? '';
    if (!this.inFlightPods.has(uid)) this.inFlightPods.set(uid, { qp, seq: this.eventSeq });
    qp.unschedulablePlugins.clear();
    qp.pendingPlugins.clear();
    qp.gatingPlugin = '';
    qp.gatingPluginEvents = [];
    qp.gated = false;
    return qp;
  }

  /** Puts back a popped pod that was never attempted (the scheduler stopped leading meanwhile). */
  restore(qp: QueuedPod): void {
    this.done(qp.podInfo.pod.metadata?.uid ?? '');
    qp.attempts = Math.max(0, qp.attempts - 1);
    this.moveToActiveQ(qp, 'Restore', false);
  }

  /** The scheduling cycle number (pods popped so far). */
  schedulingCycle(): number {
    return this.cycle;
  }

  /** The attempt for this pod is over; events kept for it may go. */
  done(uid: string): void {
    if (!this.inFlightPods.delete(uid)) return;
    if (this.inFlightPods.size === 0) {
      this.inFlightEvents = [];
      return;
    }
    let oldest = Number.POSITIVE_INFINITY;
    for (const { seq } of this.inFlightPods.values()) oldest = Math.min(oldest, seq);
    const first = this.inFlightEvents.findIndex((e) => e.seq > oldest);
    this.inFlightEvents = first < 0 ? [] : this.inFlightEvents.slice(first);
  }

  /**
   * Puts back a pod whose attempt failed: to activeQ/backoffQ when an event seen during the attempt may have
   * changed the outcome (or no plugin rejected it: an error), else to unschedulablePods. Marks the attempt done.
   */
  addUnschedulableIfNotPresent(qp: QueuedPod): void {
    const uid = qp.podInfo.pod.metadata?.uid ?? '';
    try {
      const key = qpKey(qp);
      if (this.unschedulable.has(key) || this.activeQ.has(key) || this.backoffQ.has(key)) {
        this.log.error('Pod is already present in the scheduling queue', { pod: key });
        return;
      }
      if (qp.unschedulablePlugins.size === 0 && qp.pendingPlugins.size === 0) {
        qp.consecutiveErrorsCount++;
      } else {
        qp.unschedulableCount++;
        qp.consecutiveErrorsCount = 0;
      }
      qp.timestamp = this.clock.now();
      qp.backoffExpiration = undefined;
      const strategy = this.hintForInFlightPod(qp);
      const queue = this.requeue(qp, strategy, SCHEDULE_ATTEMPT_FAILURE);
      this.log.v(3).info('Pod moved to an internal scheduling queue', {
        pod: key,
        event: SCHEDULE_ATTEMPT_FAILURE,
        queue,
        unschedulablePlugins: [...qp.unschedulablePlugins, ...qp.pendingPlugins],
      });
    } finally {
      this.done(uid);
    }
  }

  // --- cluster events ---------------------------------------------------------------------------------------

  /**
   * A cluster event: every unschedulable pod (that preCheck accepts) whose rejecting plugins registered interest
   * in it and whose hints say Queue goes to backoffQ or activeQ. Recorded for pods in flight.
   */
  moveAllToActiveOrBackoffQueue(
    event: IncomingEvent,
    oldObj: unknown,
    newObj: unknown,
    preCheck?: (pod: Pod) => boolean,
  ): void {
    if (!this.isEventOfInterest(event)) return;
    const candidates = [...this.unschedulable.values()].filter((qp) => !preCheck || preCheck(qp.podInfo.pod));
    this.movePods(candidates, event, oldObj, newObj);
  }

  /** Moves bound-pod-related waiting pods back when their hints say the event helps (QHint path, as upstream). */
  private movePods(list: QueuedPod[], event: IncomingEvent, oldObj: unknown, newObj: unknown): void {
    if (!this.isEventOfInterest(event)) return;
    for (const qp of list) {
      if (qp.gated && !qp.gatingPluginEvents.some((e) => matchClusterEvent(e, event))) continue;
      const strategy = this.isPodWorthRequeuing(qp, event, oldObj, newObj);
      if (strategy === 'skip') continue;
      this.unschedulable.delete(qpKey(qp));
      this.requeue(qp, strategy, eventLabel(event));
    }
    if (this.inFlightPods.size > 0) this.pushInFlightEvent(event, oldObj, newObj);
  }

  /** Moves pods whose backoff is over from backoffQ to activeQ. */
  flushBackoffQCompleted(): void {
    const now = this.clock.now();
    for (;;) {
      const head = this.backoffQ.peek();
      if (!head || this.backoffTime(head) > now) break;
      this.backoffQ.delete(qpKey(head));
      this.moveToActiveQ(head, BACKOFF_COMPLETE, true);
    }
  }

  /** Moves pods that stayed in unschedulablePods longer than podMaxInUnschedulablePodsDuration. */
  flushUnschedulablePodsLeftover(): void {
    const now = this.clock.now();
    const stale = [...this.unschedulable.values()].filter((qp) => now - qp.timestamp > this.maxInUnschedulableMs);
    if (stale.length > 0) this.movePods(stale, EVENT_UNSCHEDULABLE_TIMEOUT, undefined, undefined);
  }

  // --- nominated pods ----------------------------------------------------------------------------------------

  addNominatedPod(pi: PodInfo, info?: NominatingInfo): void {
    this.nominator.add(pi, info);
  }

  deleteNominatedPodIfExists(pod: Pod): void {
    this.nominator.delete(pod);
  }

  nominatedPodsForNode(nodeName: string): PodInfo[] {
    return this.nominator.podsForNode(nodeName);
  }

  // --- inspection --------------------------------------------------------------------------------------------

  /** How many pods activeQ holds (pods ready to be tried now). */
  activeCount(): number {
    return this.activeQ.size;
  }

  podsInActiveQ(): Pod[] {
    return this.activeQ.list().map((qp) => qp.podInfo.pod);
  }
  podsInBackoffQ(): Pod[] {
    return this.backoffQ.list().map((qp) => qp.podInfo.pod);
  }
  unschedulablePods(): Pod[] {
    return [...this.unschedulable.values()].map((qp) => qp.podInfo.pod);
  }
  inFlight(): Pod[] {
    return [...this.inFlightPods.values()].map((e) => e.qp.podInfo.pod);
  }
  /** The queued pod of namespace/name in any of the three queues. */
  get(namespace: string, name: string): QueuedPod | undefined {
    const key = `${namespace}/${name}`;
    return this.activeQ.get(key) ?? this.backoffQ.get(key) ?? this.unschedulable.get(key);
  }
  /** Counts for scheduler_pending_pods{queue}: gated pods are counted apart from unschedulable ones. */
  pendingCounts(): { active: number; backoff: number; unschedulable: number; gated: number } {
    let gated = 0;
    for (const qp of this.unschedulable.values()) if (qp.gated) gated++;
    return {
      active: this.activeQ.size,
      backoff: this.backoffQ.size,
      unschedulable: this.unschedulable.size - gated,
      gated,
    };
  }
  /** When the pod's backoff ends (ms). */
  backoffTime(qp: QueuedPod): number {
    if (qp.backoffExpiration === undefined) qp.backoffExpiration = qp.timestamp + this.backoffDuration(qp);
    return qp.backoffExpiration;
  }

  // --- internals ----------------------------------------------------------------------------------------------

  private backoffDuration(qp: QueuedPod): number {
    if (qp.attempts === 0) return 0;
    let d = this.initialBackoffMs;
    for (let i = 1; i < qp.attempts; i++) {
      if (d > this.maxBackoffMs - d) return this.maxBackoffMs;
      d += d;
    }
    return Math.min(d, this.maxBackoffMs);
  }

  private isBackingOff(qp: QueuedPod): boolean {
    return this.backoffTime(qp) > this.clock.now();
  }

  private newQueuedPod(pod: Pod): QueuedPod {
    const now = this.clock.now();
    return {
      podInfo: newPodInfo(pod),
      initialAttemptTimestamp: now,
      timestamp: now,
      attempts: 0,
      unschedulablePlugins: new Set(),
      pendingPlugins: new Set(),
      gated: false,
      gatingPlugin: '',
      gatingPluginEvents: [],
      unschedulableCount: 0,
      consecutiveErrorsCount: 0,
    };
  }

  private runPreEnqueuePlugins(qp: QueuedPod): void {
    const plugins = this.preEnqueue.get(qp.podInfo.pod.spec?.schedulerName ?? '') ?? [];
    const ordered = qp.gatingPlugin
      ? [...plugins.filter((p) => p.name === qp.gatingPlugin), ...plugins.filter((p) => p.name !== qp.gatingPlugin)]
      : plugins;
    for (const pl of ordered) {
      let ok: boolean;
      try {
        ok = pl.preEnqueue(qp.podInfo.pod).isSuccess();
      } catch (err) {
        this.log.error('Unexpected error running PreEnqueue plugin', { plugin: pl.name, err: String(err) });
        ok = false;
      }
      if (ok) continue;
      qp.unschedulablePlugins.add(pl.name);
      qp.gatingPlugin = pl.name;
      qp.gatingPluginEvents = this.pluginToEvents.get(pl.name) ?? [];
      qp.gated = true;
      return;
    }
    qp.gatingPlugin = '';
    qp.gatingPluginEvents = [];
    qp.gated = false;
  }

  private moveToActiveQ(qp: QueuedPod, label: string, movesFromBackoffQ: boolean): boolean {
    if (!(this.popFromBackoffQ && movesFromBackoffQ)) this.runPreEnqueuePlugins(qp);
    const key = qpKey(qp);
    if (qp.gated) {
      if (this.activeQ.has(key) || this.backoffQ.has(key) || this.unschedulable.has(key)) return false;
      this.unschedulable.set(key, qp);
      this.log.v(5).info('Pod moved to an internal scheduling queue, because the pod is gated', {
        pod: key,
        event: label,
        queue: 'Unschedulable',
      });
      return false;
    }
    this.unschedulable.delete(key);
    this.backoffQ.delete(key);
    this.activeQ.addOrUpdate(qp);
    if (label === eventLabel(EVENT_UNSCHEDULED_POD_ADD) || label === eventLabel(EVENT_UNSCHEDULED_POD_UPDATE)) {
      this.nominator.add(qp.podInfo);
    }
    this.wake();
    return true;
  }

  private moveToBackoffQ(qp: QueuedPod, label: string): boolean {
    const key = qpKey(qp);
    if (this.popFromBackoffQ) {
      this.runPreEnqueuePlugins(qp);
      if (qp.gated) {
        if (!this.unschedulable.has(key)) this.unschedulable.set(key, qp);
        this.log.v(5).info('Pod moved to an internal scheduling queue', { pod: key, event: label });
        return false;
      }
    }
    this.unschedulable.delete(key);
    this.backoffQ.addOrUpdate(qp);
    if (this.popFromBackoffQ) this.wake();
    return true;
  }

  private requeue(qp: QueuedPod, strategy: Strategy, label: string): QueueName {
    if (strategy === 'skip') {
      this.unschedulable.set(qpKey(qp), qp);
      return 'Unschedulable';
    }
    if (strategy === 'backoff' && this.isBackingOff(qp)) {
      return this.moveToBackoffQ(qp, label) ? 'Backoff' : 'Unschedulable';
    }
    return this.moveToActiveQ(qp, label, false) ? 'Active' : 'Unschedulable';
  }

  private isEventOfInterest(event: IncomingEvent): boolean {
    if (isWildCard(event)) return true;
    for (const entries of this.hints.values()) {
      for (const e of entries) if (matchClusterEvent(e.event, event)) return true;
    }
    return false;
  }

  /** Upstream's isPodWorthRequeuing: asks the hints of the plugins that rejected the pod. */
  private isPodWorthRequeuing(qp: QueuedPod, event: IncomingEvent, oldObj: unknown, newObj: unknown): Strategy {
    const pod = qp.podInfo.pod;
    const rejectors = new Set([...qp.unschedulablePlugins, ...qp.pendingPlugins]);
    if (rejectors.size === 0) return 'backoff';
    if (isWildCard(event)) {
      // A wildcard event carrying a pod is meant for that pod only (ForceActivate).
      const target = newObj as Pod | undefined;
      if (target?.metadata && target.metadata.uid !== pod.metadata?.uid) return 'skip';
      return 'backoff';
    }
    const entries = this.hints.get(pod.spec?.schedulerName ?? '');
    if (!entries) return 'backoff';
    let strategy: Strategy = 'skip';
    for (const entry of entries) {
      if (!rejectors.has(entry.plugin) || !matchClusterEvent(entry.event, event)) continue;
      let hint = QueueingHint.Queue;
      if (entry.hint) {
        try {
          hint = entry.hint(pod, oldObj as never, newObj as never);
        } catch (err) {
          this.log.error('QueueingHintFn returns error', { plugin: entry.plugin, pod: keyOf(pod), err: String(err) });
          hint = QueueingHint.Queue;
        }
      }
      if (hint === QueueingHint.Skip) continue;
      if (qp.pendingPlugins.has(entry.plugin)) return 'immediate';
      if (qp.pendingPlugins.size === 0) return 'backoff';
      strategy = 'backoff';
    }
    return strategy;
  }

  private hintForInFlightPod(qp: QueuedPod): Strategy {
    if (qp.unschedulablePlugins.size === 0 && qp.pendingPlugins.size === 0) return 'backoff';
    const entry = this.inFlightPods.get(qp.podInfo.pod.metadata?.uid ?? '');
    if (!entry) return 'backoff';
    let strategy: Strategy = 'skip';
    for (const e of this.inFlightEvents) {
      if (e.seq <= entry.seq) continue;
      const s = this.isPodWorthRequeuing(qp, e.event, e.oldObj, e.newObj);
      if (s === 'immediate') return s;
      if (s === 'backoff') {
        strategy = 'backoff';
        if (qp.pendingPlugins.size === 0) return strategy;
      }
    }
    return strategy;
  }

  private pushInFlightEvent(event: IncomingEvent, oldObj: unknown, newObj: unknown): void {
    this.eventSeq++;
    this.inFlightEvents.push({ seq: this.eventSeq, event, oldObj, newObj });
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }
}

/** A pod whose attempt failed with an error rather than because some plugin rejected it. */
function failedWithError(qp: QueuedPod): boolean {
  return qp.unschedulablePlugins.size === 0 && qp.pendingPlugins.size === 0;
}

/**
 * backoffQ as upstream keeps it since v1.33: two heaps ordered by the end of the backoff, one of pods some plugin
 * rejected, one of pods whose attempt failed with an error. Only the first gives pods up before their backoff is
 * over (popEarly, for SchedulerPopFromBackoffQ): a pod that met an error (its binding refused) waits, so that it does
 * not go back to the apiserver at once, again and again.
 */
class BackoffQueue {
  private readonly rejected: KeyedHeap<QueuedPod>;
  private readonly errored: KeyedHeap<QueuedPod>;

  constructor(private readonly less: (a: QueuedPod, b: QueuedPod) => boolean) {
    this.rejected = new KeyedHeap<QueuedPod>(qpKey, less);
    this.errored = new KeyedHeap<QueuedPod>(qpKey, less);
  }

  get size(): number {
    return this.rejected.size + this.errored.size;
  }

  has(key: string): boolean {
    return this.rejected.has(key) || this.errored.has(key);
  }

  get(key: string): QueuedPod | undefined {
    return this.rejected.get(key) ?? this.errored.get(key);
  }

  delete(key: string): QueuedPod | undefined {
    return this.rejected.delete(key) ?? this.errored.delete(key);
  }

  /** Adds the pod to the heap its last failure calls for (out of the other), or updates it there. */
  addOrUpdate(qp: QueuedPod): void {
    const [to, other] = failedWithError(qp) ? [this.errored, this.rejected] : [this.rejected, this.errored];
    other.delete(qpKey(qp));
    to.addOrUpdate(qp);
  }

  list(): QueuedPod[] {
    return [...this.rejected.list(), ...this.errored.list()];
  }

  /** The pod whose backoff ends first, of either heap. */
  peek(): QueuedPod | undefined {
    const a = this.rejected.peek();
    const b = this.errored.peek();
    if (!a || !b) return a ?? b;
    return this.less(b, a) ? b : a;
  }

  /** The rejected pod whose backoff ends first, taken out whether or not it has ended. */
  popEarly(): QueuedPod | undefined {
    return this.rejected.pop();
  }
}
