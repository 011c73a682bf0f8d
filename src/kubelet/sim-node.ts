/**
 * The kubelet of one simulated node: registration (or taking over a Node that exists), the Lease in
 * kube-node-lease renewed every 10 s, node status computed every 10 s and reported when it changed or every 5
 * minutes, and the pods bound to the node: admission, the simulated runtime, status reports and the final deletion
 * of gracefully deleted pods. Everything runs on timers of the shared wheel and talks to the API through the node's
 * own client (its identity, system:node:<name>, when it has one). A stopped node (stopNode, or the
 * sim.wheelhouse.dev/stopped annotation) neither reads nor writes: no lease, no node status, no pod status, no new
 * pods; its containers go on, and it catches up when started again.
 */
import type { EventRecorder } from '../client/events/broadcaster.js';
import type { ObjectReference } from '../client/events/event.js';
import type { KubeClient } from '../client/rest.js';
import { isAlreadyExists, isConflict, isNotFound, type KubeObject, type ResourceClient } from '../client/types.js';
import type { Clock, TimerHandle } from '../util/clock.js';
import type { Logger } from '../util/logger.js';
import { formatMicroTime, formatTime, normalizeImage } from './format.js';
import { admitPod } from './lifecycle/admission.js';
import { resizeHold } from './lifecycle/resize.js';
import type { Limiter } from './limiter.js';
import { DEFAULT_LABEL_KEYS, type SimNodeSpec } from './nodestatus/node-config.js';
import {
  CONDITION_EVENTS,
  CONTROLLER_MANAGED_ATTACH_DETACH,
  desiredNodeStatus,
  type NodeRuntimeInfo,
  newRuntimeInfo,
  nodeStatusChanged,
  registrationNode,
  SIM_HOST_IP,
} from './nodestatus/node-status.js';
import { needsPreflight, type ObjectReader, type PreflightResult, preflight } from './preflight.js';
import type { ImagePull, Lifecycles } from './runtimes/sim/lifecycle-config.js';
import type { ContainerLog } from './runtimes/sim/logs.js';
import { type EventType, type PodHost, SimPod } from './runtimes/sim/pod-runtime.js';
import { generatePodStatus, KUBELET_CONDITIONS, type PodCondition } from './status/pod-status.js';
import type { TimerWheel } from './timer-wheel.js';

export const NODE_LEASE_NAMESPACE = 'kube-node-lease';
/** Set to "true" on a Node to stop its simulated kubelet (wheelhouse node stop); removed to start it again. */
export const STOPPED_ANNOTATION = 'sim.wheelhouse.dev/stopped';

/** Upstream's defaults. */
export const NODE_LEASE_DURATION_SECONDS = 40;
/** A quarter of the lease duration (upstream's NodeLeaseRenewIntervalFraction). */
export const NODE_LEASE_RENEW_INTERVAL_MS = 10_000;
export const NODE_STATUS_UPDATE_FREQUENCY_MS = 10_000;
export const NODE_STATUS_REPORT_FREQUENCY_MS = 300_000;

/** What the nodes of one SimKubelets share. */
export interface SimContext {
  readonly clock: Clock;
  readonly wheel: TimerWheel;
  readonly limiter: Limiter;
  /**
   * The bound of Lease renewals and node status reports, apart from the pods' calls: upstream's kubelet sends its
   * heartbeats through a client of their own, so a backlog of pod status writes cannot delay them past the node
   * monitor grace period and get the node marked unreachable.
   */
  readonly heartbeats: Limiter;
  readonly logger: Logger;
  readonly lifecycles: Lifecycles;
  readonly kubeletPort: number;
  readonly nodeStatusUpdateFrequencyMs: number;
  readonly nodeStatusReportFrequencyMs: number;
  readonly leaseDurationSeconds: number;
  readonly leaseRenewIntervalMs: number;
  /**
   * The limit on a kubelet's event writes (upstream's --event-qps / --event-burst, KubeletConfiguration
   * eventRecordQPS / eventBurst): each node writes events through a client of its own with this rate limit.
   */
  readonly eventRateLimit: { qps: number; burst: number };
  recorder(node: string): EventRecorder | undefined;
  /** The Node as the shared informer has it. */
  nodeFromCache(name: string): KubeObject | undefined;
  /** The pods bound to the node, from the shared informer. */
  podsFromCache(node: string): KubeObject[];
  /** Keeps the process-wide pod index (for logs and exec) in step. */
  indexPod(pod: SimPod, node: SimNode | undefined): void;
  readonly closed: boolean;
}

interface PodRecord {
  sim: SimPod;
  dirty: boolean;
  writing: boolean;
  lastWritten: string;
  lastConditions: PodCondition[];
  lastPhase: string | undefined;
  /** resourceVersion of the pod after the last report. */
  writtenRV: number;
  deleteSent: boolean;
  retry: TimerHandle | undefined;
  /** The next look at the objects a held pod or blocked container waits on. */
  preflightRetry: TimerHandle | undefined;
  /** The pod's generation when its resources were last looked at (a resize changes the spec, so the generation). */
  resizeGeneration: number | undefined;
  /** Whether the pod's end was seen (the room it leaves may be what a held resize waits for). */
  ended: boolean;
}

const kubeletOwned = new Set<string>(KUBELET_CONDITIONS);
/** Upstream's exponential backoff of volume operations ends at 2 min 2 s. */
const MAX_MOUNT_BACKOFF_MS = 122_000;
/** How often containers waiting on their configuration are tried again. */
const CONFIG_RETRY_MS = 10_000;

export class SimNode implements PodHost {
  readonly name: string;
  readonly hostIP = SIM_HOST_IP;
  readonly runtime: NodeRuntimeInfo;
  registered = false;
  uid: string | undefined;
  private manualStop = false;
  private annotationStop = false;
  private loops: TimerHandle[] = [];
  private lease: KubeObject | undefined;
  private lastReport = Number.NEGATIVE_INFINITY;
  private readonly pods = new Map<string, PodRecord>();
  /**
   * The records of pods that were active when last looked at (see active()): a finished pod is dropped the next
   * time the set is read, as a pod never runs again once it has finished. Admitting a pod so reads only the pods
   * still running, not every finished pod a node keeps until it is deleted.
   */
  private readonly running = new Set<PodRecord>();
  private readonly usedIPs = new Set<number>();
  private nextIP = 2;
  private readonly images = new Set<string>();
  private readonly log: Logger;
  private registering: Promise<void> | undefined;
  private leaseRenewal: Promise<void> | undefined;
  /** The Node was deleted (seen by the informer): no lease renewals until it is back. */
  private nodeDeleted = false;
  /** Where this node's events are written (its client's core/v1 events). */
  readonly events: ResourceClient;

  constructor(
    private readonly ctx: SimContext,
    readonly spec: SimNodeSpec,
    /** What this kubelet talks to the API through: its own identity, or the fleet's client. */
    readonly client: KubeClient,
  ) {
    this.name = spec.name;
    // As upstream's kubelet, events go through a client of their own, on the same connection, with the event limit.
    this.events = client.withRateLimit(ctx.eventRateLimit.qps, ctx.eventRateLimit.burst).events();
    this.runtime = newRuntimeInfo(ctx.kubeletPort);
    for (const image of spec.images) this.imagePulled(image);
    this.log = ctx.logger.child(spec.name);
  }

  get clock(): Clock {
    return this.ctx.clock;
  }

  get wheel(): TimerWheel {
    return this.ctx.wheel;
  }

  /** Stopped by stopNode() or by the annotation. */
  get stopped(): boolean {
    return this.manualStop || this.annotationStop;
  }

  /** Registers the node (until it succeeds or the kubelets close), then starts the lease and status loops. */
  start(offsetMs: number): Promise<void> {
    this.registering ??= this.registerUntilDone().then(() => {
      this.registering = undefined;
      if (this.ctx.closed) return;
      this.startLoops(offsetMs);
    });
    return this.registering;
  }

  /** Stops the loops and the pods' timers (the kubelets are closing). */
  shutdown(): void {
    for (const t of this.loops) t.cancel();
    this.loops = [];
    for (const rec of this.pods.values()) {
      rec.retry?.cancel();
      rec.sim.dispose();
    }
  }

  setManualStop(stopped: boolean): void {
    const was = this.stopped;
    this.manualStop = stopped;
    this.afterStopChange(was);
  }

  /** The Node as the informer saw it (undefined: deleted). */
  observeNode(node: KubeObject | undefined): void {
    const was = this.stopped;
    this.annotationStop = node?.metadata.annotations?.[STOPPED_ANNOTATION] === 'true';
    this.nodeDeleted = node === undefined;
    if (node?.metadata.uid) this.uid = node.metadata.uid;
    this.afterStopChange(was);
  }

  private afterStopChange(was: boolean): void {
    if (was === this.stopped || this.ctx.closed) return;
    this.log.info(this.stopped ? 'Simulated kubelet stopped' : 'Simulated kubelet started', { node: this.name });
    if (this.stopped) return;
    // A kubelet that comes back: registers again if its Node is gone, renews at once, reports, catches up on pods.
    if (!this.ctx.nodeFromCache(this.name) && this.registered) {
      this.registered = false;
      for (const t of this.loops) t.cancel();
      this.loops = [];
      void this.start(0);
      return;
    }
    this.lastReport = Number.NEGATIVE_INFINITY;
    void this.renewLease();
    void this.reportStatus();
    for (const rec of this.pods.values()) {
      rec.lastWritten = '';
      rec.dirty = true;
    }
    this.resyncPods();
  }

  // ---- registration ----

  private async registerUntilDone(): Promise<void> {
    let delay = 100;
    while (!this.ctx.closed) {
      try {
        await this.register();
        this.registered = true;
        return;
      } catch (err) {
        this.log.error('Unable to register node with API server', { node: this.name, err: String(err) });
        await new Promise<void>((resolve) => this.ctx.wheel.after(delay, resolve));
        delay = Math.min(7000, delay * 2);
      }
    }
  }

  private async register(): Promise<void> {
    const nodes = this.client.nodes();
    const now = this.ctx.clock.now();
    const fresh = registrationNode(this.spec, this.runtime, now);
    const recorder = this.ctx.recorder(this.name);
    const ref = this.nodeRef();
    recorder?.event(ref, 'Normal', 'Starting', 'Starting kubelet.');
    recorder?.event(ref, 'Normal', 'NodeAllocatableEnforced', 'Updated Node Allocatable limit across pods');
    try {
      const created = await this.ctx.limiter.run(() => nodes.create(fresh));
      this.uid = created.metadata.uid;
      this.nodeDeleted = false;
      this.lastReport = now;
      this.conditionEvents(undefined, created);
      this.log.v(2).info('Successfully registered node', { node: this.name });
      return;
    } catch (err) {
      if (!isAlreadyExists(err)) throw err;
    }
    // The Node exists: take it over, keeping upstream's default labels and the pod CIDR in step.
    const existing = await this.ctx.limiter.run(() => nodes.get(this.name));
    const labels = { ...existing.metadata.labels };
    let changed = false;
    for (const key of DEFAULT_LABEL_KEYS) {
      const want = this.spec.labels[key];
      if (want !== undefined && labels[key] !== want) {
        labels[key] = want;
        changed = true;
      }
    }
    const annotations = { ...existing.metadata.annotations };
    if (annotations[CONTROLLER_MANAGED_ATTACH_DETACH] !== 'true') {
      annotations[CONTROLLER_MANAGED_ATTACH_DETACH] = 'true';
      changed = true;
    }
    const spec = { ...existing.spec };
    if (spec.podCIDR) this.spec.podCIDR = spec.podCIDR;
    else {
      spec.podCIDR = this.spec.podCIDR;
      spec.podCIDRs = [this.spec.podCIDR];
      changed = true;
    }
    let node = existing;
    if (changed) {
      node = await this.ctx.limiter.run(() =>
        nodes.update({ ...existing, metadata: { ...existing.metadata, labels, annotations }, spec }),
      );
    }
    this.uid = node.metadata.uid;
    this.nodeDeleted = false;
    this.annotationStop = node.metadata.annotations?.[STOPPED_ANNOTATION] === 'true';
    this.log.v(2).info('Node was previously registered', { node: this.name });
  }

  /** Upstream's nodeRef: the node's name doubles as its uid. */
  private nodeRef(): ObjectReference {
    return { kind: 'Node', name: this.name, uid: this.name };
  }

  /** spec.unschedulable as this kubelet last saw it (upstream's lastNodeUnschedulable starts false). */
  private lastUnschedulable = false;

  /**
   * NodeNotSchedulable / NodeSchedulable when the node is cordoned or uncordoned, as upstream's kubelet records
   * them at its next status update (recordNodeSchedulableEvent).
   */
  private schedulableEvent(node: KubeObject): void {
    const unschedulable = node.spec?.unschedulable === true;
    if (unschedulable === this.lastUnschedulable) return;
    this.lastUnschedulable = unschedulable;
    const event = unschedulable ? 'NodeNotSchedulable' : 'NodeSchedulable';
    this.ctx
      .recorder(this.name)
      ?.eventf(this.nodeRef(), 'Normal', event, 'Node %s status is now: %s', this.name, event);
  }

  private conditionEvents(before: KubeObject | undefined, after: KubeObject | Record<string, unknown>): void {
    const recorder = this.ctx.recorder(this.name);
    if (!recorder) return;
    const status = ((after as KubeObject).status ?? after) as { conditions?: { type: string; status: string }[] };
    const old: { type: string; status: string }[] = before?.status?.conditions ?? [];
    for (const c of status.conditions ?? []) {
      const event = CONDITION_EVENTS[c.type];
      if (!event) continue;
      if (old.find((o) => o.type === c.type)?.status === c.status) continue;
      recorder.eventf(this.nodeRef(), 'Normal', event, 'Node %s status is now: %s', this.name, event);
    }
  }

  // ---- lease and node status ----

  private startLoops(offsetMs: number): void {
    for (const t of this.loops) t.cancel();
    const first = Math.max(0, offsetMs);
    this.loops = [
      this.ctx.wheel.every(
        this.ctx.leaseRenewIntervalMs,
        () => void this.renewLease(),
        first || this.ctx.leaseRenewIntervalMs,
      ),
      this.ctx.wheel.every(
        this.ctx.nodeStatusUpdateFrequencyMs,
        () => {
          void this.reportStatus();
          if (this.heldResizes.size > 0) this.retryHeldResizes();
        },
        first || this.ctx.nodeStatusUpdateFrequencyMs,
      ),
    ];
    void this.renewLease();
    this.resyncPods();
  }

  private canTalk(): boolean {
    return this.registered && !this.stopped && !this.ctx.closed;
  }

  /** Creates or renews the node's Lease (holder: the node, 40 s, owned by the Node); one renewal at a time. */
  renewLease(): Promise<void> {
    if (!this.canTalk() || this.nodeDeleted) return Promise.resolve();
    this.leaseRenewal ??= this.tryRenewLease().finally(() => {
      this.leaseRenewal = undefined;
    });
    return this.leaseRenewal;
  }

  private async tryRenewLease(): Promise<void> {
    const leases = this.client.leases(NODE_LEASE_NAMESPACE);
    const now = formatMicroTime(this.ctx.clock.now());
    try {
      if (this.lease) {
        const next = structuredClone(this.lease);
        next.spec = {
          ...next.spec,
          holderIdentity: this.name,
          leaseDurationSeconds: this.ctx.leaseDurationSeconds,
          renewTime: now,
        };
        this.addOwner(next);
        this.lease = await this.ctx.heartbeats.run(() => leases.update(next));
        return;
      }
      // A new Lease is the common case (first registration); one that exists is read and renewed.
      const lease: KubeObject = {
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata: { name: this.name, namespace: NODE_LEASE_NAMESPACE },
        spec: { holderIdentity: this.name, leaseDurationSeconds: this.ctx.leaseDurationSeconds, renewTime: now },
      };
      this.addOwner(lease);
      try {
        this.lease = await this.ctx.heartbeats.run(() => leases.create(lease));
        return;
      } catch (err) {
        if (!isAlreadyExists(err)) throw err;
      }
      this.lease = await this.ctx.heartbeats.run(() => leases.get(this.name));
      return this.tryRenewLease();
    } catch (err) {
      this.lease = undefined;
      if (this.ctx.closed) return;
      if (!isConflict(err) && !isAlreadyExists(err)) {
        this.log.error('Failed to update lease', { node: this.name, err: String(err) });
      }
      // Try again soon rather than waiting for the next interval (upstream backs off from 200 ms).
      this.ctx.wheel.after(1000, () => void this.renewLease());
    }
  }

  private addOwner(lease: KubeObject): void {
    if (!this.uid || (lease.metadata.ownerReferences ?? []).length > 0) return;
    lease.metadata.ownerReferences = [{ apiVersion: 'v1', kind: 'Node', name: this.name, uid: this.uid }];
  }

  /** Upstream's tryUpdateNodeStatus: report when something changed or the report interval has passed. */
  async reportStatus(): Promise<void> {
    if (!this.canTalk()) return;
    const current = this.ctx.nodeFromCache(this.name);
    if (!current) return;
    this.schedulableEvent(current);
    const now = this.ctx.clock.now();
    const desired = desiredNodeStatus(this.spec, this.runtime, current, now);
    if (!nodeStatusChanged(desired, current) && now - this.lastReport < this.ctx.nodeStatusReportFrequencyMs) return;
    try {
      await this.ctx.heartbeats.run(() =>
        this.client.nodes().patch(this.name, 'strategic', { status: desired }, { subresource: 'status' }),
      );
      this.lastReport = now;
      this.conditionEvents(current, desired);
    } catch (err) {
      if (!this.ctx.closed)
        this.log.error('Error updating node status, will retry', { node: this.name, err: String(err) });
    }
  }

  // ---- pods ----

  /** Looks at every pod the informer has for this node, and forgets pods it no longer has. */
  resyncPods(): void {
    if (!this.canTalk()) return;
    const seen = new Set<string>();
    for (const pod of this.ctx.podsFromCache(this.name)) {
      seen.add(pod.metadata.uid ?? '');
      this.syncPod(pod);
    }
    for (const [uid, rec] of this.pods) {
      if (!seen.has(uid)) this.forget(uid);
      else if (rec.dirty || rec.sim.terminal) this.scheduleWrite(rec);
    }
  }

  /** The pod was added or changed. */
  syncPod(pod: KubeObject): void {
    if (!this.canTalk()) return;
    const uid = pod.metadata.uid ?? '';
    const rec = this.pods.get(uid);
    if (rec) {
      rec.sim.update(pod);
      if (pod.metadata.generation !== rec.resizeGeneration) {
        rec.resizeGeneration = pod.metadata.generation;
        this.resize(rec);
      }
      if (rec.sim.terminal && pod.metadata.deletionTimestamp) this.scheduleWrite(rec);
      else if ((pod.spec?.readinessGates ?? []).length > 0) {
        // Ready depends on conditions others set: work it out again (nothing is sent if it did not change).
        this.scheduleWrite(rec);
      } else if (this.overwritten(rec, pod)) {
        // Someone else changed what the kubelet reports (e.g. the node lifecycle controller marking the pod not
        // ready while this node was away): report again, as upstream's status manager reconciles.
        rec.lastWritten = '';
        this.scheduleWrite(rec);
      }
      return;
    }
    const phase = pod.status?.phase;
    if (phase === 'Succeeded' || phase === 'Failed') {
      // Finished before this kubelet saw it (or under an earlier one): only a deletion is left to finish.
      if (pod.metadata.deletionTimestamp) void this.finalDelete(pod);
      return;
    }
    const sim = new SimPod(pod, this.ctx.lifecycles.resolve(pod), this);
    const record: PodRecord = {
      sim,
      dirty: false,
      writing: false,
      lastWritten: '',
      lastConditions: [],
      lastPhase: undefined,
      writtenRV: 0,
      deleteSent: false,
      retry: undefined,
      preflightRetry: undefined,
      resizeGeneration: pod.metadata.generation,
      ended: false,
    };
    this.pods.set(uid, record);
    this.running.add(record);
    this.ctx.indexPod(sim, this);
    if (pod.metadata.deletionTimestamp) {
      // Deleted before it ever ran here: nothing to stop.
      void this.finalDelete(pod);
      return;
    }
    if (sim.adopt((ip) => this.reserveIP(ip))) {
      this.resize(record);
      return;
    }
    const { node, others } = this.nodeAndOthers(record);
    const verdict = admitPod(pod, node, others);
    if (!verdict.admit) {
      this.event(pod, undefined, 'Warning', verdict.reason, verdict.message);
      sim.reject(verdict.reason, verdict.message);
      return;
    }
    this.log.v(3).info('SyncLoop ADD', { pod: `${pod.metadata.namespace}/${pod.metadata.name}` });
    if (needsPreflight(pod)) void this.startAfterPreflight(record, 0);
    else sim.start();
  }

  /** Pods whose resize the node holds (PodResizePending), to be tried again as room is made. */
  private readonly heldResizes = new Set<PodRecord>();

  /**
   * An in-place resize (pods/resize changed what the spec asks): taken when the node has room beside the other
   * pods as allocated, else held with the reason. A held resize is tried again when a pod on the node ends or
   * goes, when another resize is taken, and at each node status report. A stopping pod keeps what it shows.
   */
  private resize(rec: PodRecord): void {
    const sim = rec.sim;
    if (sim.terminating) return;
    if (!sim.resizeRequested()) {
      this.heldResizes.delete(rec);
      sim.settleResize();
      return;
    }
    const { node, others } = this.nodeAndOthers(rec);
    const hold = resizeHold(sim.pod, node, others);
    if (hold) {
      this.heldResizes.add(rec);
      sim.holdResize(hold.reason, hold.message);
      return;
    }
    this.heldResizes.delete(rec);
    sim.acceptResize();
    // Taking it may have lowered what the pod asks, making room for another.
    this.retryHeldResizes();
  }

  private retryHeldResizes(): void {
    for (const rec of [...this.heldResizes]) {
      if (this.pods.get(rec.sim.uid) !== rec) this.heldResizes.delete(rec);
      else this.resize(rec);
    }
  }

  /** A pod ended or went: the room it leaves may be what a held resize waits for. */
  private roomMade(rec: PodRecord): void {
    this.heldResizes.delete(rec);
    if (this.heldResizes.size > 0) this.retryHeldResizes();
  }

  /** This node as the informer has it (or as it registers), and its other running pods as they are allocated. */
  private nodeAndOthers(rec: PodRecord): { node: KubeObject; others: KubeObject[] } {
    const node = this.ctx.nodeFromCache(this.name) ?? registrationNode(this.spec, this.runtime, this.ctx.clock.now());
    const others = this.active()
      .filter((r) => r !== rec)
      .map((r) => r.sim.allocatedPod());
    return { node, others };
  }

  /** The pod's ConfigMaps and Secrets, read as this node's kubelet reads them. */
  private objectReader(pod: KubeObject): ObjectReader {
    const namespace = pod.metadata.namespace ?? 'default';
    return async (kind, name) => {
      const resource = kind === 'configmap' ? this.client.configMaps(namespace) : this.client.secrets(namespace);
      try {
        return await resource.get(name);
      } catch (err) {
        if (isNotFound(err)) return undefined;
        throw err;
      }
    };
  }

  /**
   * Starts a pod once its volumes mount (FailedMount and a retry with upstream's volume backoff, 0.5 s doubling to
   * 2 min 2 s, meanwhile); its containers whose environment cannot be made wait (CreateContainerConfigError) and are
   * tried again every 10 s. An API failure does not hold the pod back.
   */
  private async startAfterPreflight(rec: PodRecord, attempt: number): Promise<void> {
    let result: PreflightResult | undefined;
    try {
      result = await preflight(rec.sim.pod, this.objectReader(rec.sim.pod));
    } catch (err) {
      this.log.error('Failed to read the objects a pod refers to', { err: String(err) });
    }
    if (this.pods.get(rec.sim.uid) !== rec || rec.sim.terminal || rec.sim.terminating || this.ctx.closed) return;
    if (result?.mount) {
      this.event(rec.sim.pod, undefined, 'Warning', 'FailedMount', result.mount);
      rec.sim.holdForVolumes();
      const delay = Math.min(500 * 2 ** attempt, MAX_MOUNT_BACKOFF_MS);
      rec.preflightRetry = this.ctx.wheel.after(delay, () => void this.startAfterPreflight(rec, attempt + 1));
      return;
    }
    const errors = result?.config ?? new Map<string, string>();
    rec.sim.setConfigErrors(errors);
    rec.sim.start();
    if (errors.size > 0) this.retryConfig(rec);
  }

  private retryConfig(rec: PodRecord): void {
    rec.preflightRetry = this.ctx.wheel.after(CONFIG_RETRY_MS, async () => {
      let result: PreflightResult;
      try {
        result = await preflight(rec.sim.pod, this.objectReader(rec.sim.pod));
      } catch {
        this.retryConfig(rec);
        return;
      }
      if (this.pods.get(rec.sim.uid) !== rec || rec.sim.terminal || this.ctx.closed) return;
      rec.sim.retryBlocked(result.config);
      if (result.config.size > 0) this.retryConfig(rec);
    });
  }

  /** Whether the API shows, after this kubelet's last report, other values for what the kubelet reports. */
  private overwritten(rec: PodRecord, pod: KubeObject): boolean {
    if (rec.writing || rec.dirty || rec.lastWritten === '' || rec.sim.rejected) return false;
    const rv = Number(pod.metadata.resourceVersion);
    if (!Number.isFinite(rv) || rv <= rec.writtenRV) return false;
    if (pod.status?.phase !== rec.lastPhase) return true;
    const api: PodCondition[] = pod.status?.conditions ?? [];
    return rec.lastConditions.some((c) => api.find((a) => a.type === c.type)?.status !== c.status);
  }

  /** The pod is gone from the API. */
  podDeleted(pod: KubeObject): void {
    this.forget(pod.metadata.uid ?? '');
  }

  private forget(uid: string): void {
    const rec = this.pods.get(uid);
    if (!rec) return;
    rec.retry?.cancel();
    rec.preflightRetry?.cancel();
    rec.sim.dispose();
    this.pods.delete(uid);
    this.running.delete(rec);
    this.ctx.indexPod(rec.sim, undefined);
    this.roomMade(rec);
  }

  /** The records of the pods running here (not finished), dropping those that finished from running. */
  private active(): PodRecord[] {
    const out: PodRecord[] = [];
    for (const r of this.running) {
      if (r.sim.active) out.push(r);
      else this.running.delete(r);
    }
    return out;
  }

  /** The log of a container of a pod on this node. */
  logOf(uid: string, container: string, previous: boolean): ContainerLog | undefined {
    return this.pods.get(uid)?.sim.logOf(container, previous);
  }

  /** Pods this kubelet runs (not finished). */
  activePods(): number {
    return this.active().length;
  }

  // PodHost

  changed(sim: SimPod): void {
    const rec = this.pods.get(sim.uid);
    if (!rec) return;
    this.scheduleWrite(rec);
    if (sim.terminal && !rec.ended) {
      rec.ended = true;
      this.roomMade(rec);
    }
  }

  event(pod: KubeObject, fieldPath: string | undefined, type: EventType, reason: string, message: string): void {
    const recorder = this.ctx.recorder(this.name);
    // A stopped kubelet cannot reach the API, events included.
    if (!recorder || this.stopped) return;
    const m = pod.metadata;
    recorder.event(
      {
        kind: 'Pod',
        apiVersion: 'v1',
        namespace: m.namespace,
        name: m.name,
        uid: m.uid,
        ...(m.resourceVersion ? { resourceVersion: m.resourceVersion } : {}),
        ...(fieldPath ? { fieldPath } : {}),
      },
      type,
      reason,
      message,
    );
  }

  /** Images by the reference a runtime stores them under (`nginx` and `nginx:latest` are one image). */
  imagePresent(image: string): boolean {
    return this.images.has(normalizeImage(image));
  }

  imagePulled(image: string): void {
    const ref = normalizeImage(image);
    if (this.images.has(ref)) return;
    this.images.add(ref);
    this.runtime.images.push(image);
  }

  imagePullOf(pod: KubeObject): ImagePull {
    return this.ctx.lifecycles.resolve(pod).imagePull;
  }

  allocateIP(): string | undefined {
    const base = this.spec.podCIDR.split('/')[0]?.split('.').slice(0, 3).join('.') ?? '10.244.0';
    for (let tries = 0; tries < 253; tries++) {
      const host = this.nextIP;
      this.nextIP = this.nextIP >= 254 ? 2 : this.nextIP + 1;
      if (this.usedIPs.has(host)) continue;
      this.usedIPs.add(host);
      return `${base}.${host}`;
    }
    return undefined;
  }

  releaseIP(ip: string): void {
    const host = Number(ip.split('.')[3]);
    this.usedIPs.delete(host);
  }

  private reserveIP(ip: string): boolean {
    const base = this.spec.podCIDR.split('/')[0]?.split('.').slice(0, 3).join('.');
    if (!ip.startsWith(`${base}.`)) return false;
    const host = Number(ip.split('.')[3]);
    if (this.usedIPs.has(host)) return false;
    this.usedIPs.add(host);
    return true;
  }

  // ---- pod status reports ----

  private scheduleWrite(rec: PodRecord): void {
    rec.dirty = true;
    if (rec.writing) return;
    rec.writing = true;
    // Changes made in the same turn (several containers starting at once) go out as one report.
    queueMicrotask(() => void this.writeLoop(rec));
  }

  private async writeLoop(rec: PodRecord): Promise<void> {
    try {
      while (rec.dirty && this.pods.get(rec.sim.uid) === rec && !this.ctx.closed) {
        if (this.stopped) return;
        if (!(await this.ctx.limiter.run(() => this.writeStatus(rec)))) {
          rec.dirty = true;
          rec.retry?.cancel();
          rec.retry = this.ctx.wheel.after(1000, () => this.scheduleWrite(rec));
          return;
        }
        if (rec.sim.terminal && rec.sim.pod.metadata.deletionTimestamp && !rec.deleteSent) {
          rec.deleteSent = true;
          if (!(await this.finalDelete(rec.sim.pod))) rec.deleteSent = false;
        }
      }
    } finally {
      rec.writing = false;
    }
  }

  /**
   * One status report, made once the limiter lets this pod's write go (so that changes made while it waited go out
   * in the same report); true when done (written, unchanged, or the pod is gone).
   */
  private async writeStatus(rec: PodRecord): Promise<boolean> {
    rec.dirty = false;
    const sim = rec.sim;
    const pod = sim.pod;
    const now = this.ctx.clock.now();
    let status: Record<string, unknown>;
    let conditions: PodCondition[] = rec.lastConditions;
    let phase: string = 'Failed';
    if (sim.rejected) {
      status = {
        phase: 'Failed',
        reason: sim.reason,
        message: sim.message ?? null,
        ...(sim.startTime !== undefined ? { startTime: formatTime(sim.startTime) } : {}),
      };
    } else {
      const generated = generatePodStatus(pod, sim.runtimeStatus(), rec.lastConditions, now);
      conditions = generated.conditions;
      phase = generated.phase;
      const order = [
        ...((pod.status?.conditions ?? []) as PodCondition[])
          .filter((c) => !kubeletOwned.has(c.type))
          .map((c) => c.type),
        ...conditions.map((c) => c.type),
      ];
      // A kubelet condition it no longer reports (a resize carried out) is deleted from the list.
      // (What the informer shows may not have caught up with the last report: both are looked at.)
      const shown = [...((pod.status?.conditions ?? []) as PodCondition[]), ...rec.lastConditions].map((c) => c.type);
      const dropped = [...new Set(shown)]
        .filter((type) => kubeletOwned.has(type) && !conditions.some((n) => n.type === type))
        .map((type) => ({ type, $patch: 'delete' }));
      status = {
        ...generated.fields,
        reason: generated.fields.reason ?? null,
        message: generated.fields.message ?? null,
        conditions: [
          ...conditions.map((c) => ({ ...c, reason: c.reason ?? null, message: c.message ?? null })),
          ...dropped,
        ],
        '$setElementOrder/conditions': order.map((type) => ({ type })),
      };
    }
    const text = JSON.stringify(status);
    if (text === rec.lastWritten) return true;
    try {
      // The patch is sent as JSON built around the status's text, which is encoded once for both uses.
      const patch = `{"metadata":{"uid":${JSON.stringify(sim.uid)}},"status":${text}}`;
      // Only the written resourceVersion is looked at, so the answered pod is not decoded.
      const writtenRV = await this.client
        .pods(pod.metadata.namespace)
        .patchForVersion(pod.metadata.name ?? '', 'strategic', patch, { subresource: 'status' });
      rec.lastWritten = text;
      rec.lastConditions = conditions;
      rec.lastPhase = phase;
      rec.writtenRV = Number(writtenRV) || rec.writtenRV;
      return true;
    } catch (err) {
      if (isNotFound(err) || (err as { code?: number }).code === 422) {
        this.forget(sim.uid);
        return true;
      }
      if (!this.ctx.closed) {
        this.log.error('Failed to update status for pod', {
          pod: `${pod.metadata.namespace}/${pod.metadata.name}`,
          err: String(err),
        });
      }
      return false;
    }
  }

  /** Upstream's last step of a graceful deletion: DELETE with grace period 0 and the pod's uid as precondition. */
  private async finalDelete(pod: KubeObject): Promise<boolean> {
    try {
      await this.ctx.limiter.run(() =>
        this.client.pods(pod.metadata.namespace).delete(pod.metadata.name ?? '', {
          gracePeriodSeconds: 0,
          preconditions: { uid: pod.metadata.uid ?? '' },
        }),
      );
      this.log
        .v(3)
        .info('Pod fully terminated and removed from etcd', { pod: `${pod.metadata.namespace}/${pod.metadata.name}` });
      return true;
    } catch (err) {
      if (isNotFound(err) || isConflict(err)) return true;
      if (!this.ctx.closed)
        this.log.error('Failed to delete pod', {
          pod: `${pod.metadata.namespace}/${pod.metadata.name}`,
          err: String(err),
        });
      return false;
    }
  }
}
